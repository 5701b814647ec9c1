"""A real Prometheus over the "Done means" day (tests/account/done_day.py), one per test worker.

The day's series are written from its event table by `tests.support.exporter_series`, turned into
TSDB blocks by promtool, and served by Debian's `prometheus` on 127.0.0.1, which also scrapes one
port reserved for the exporter tests. Shape tests start their own server over their own table.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpuplane.spec import PlatformSpec, parse_spec
from tests.account import done_day
from tests.support.promserver import PrometheusServer, ToolMissing, build_tsdb, free_port, tool


@dataclass
class Day:
    """The running Prometheus over the day, its spec and where the exporter tests must listen."""

    url: str
    spec: PlatformSpec
    spec_file: Path
    exporter_port: int
    server: PrometheusServer


def need_prometheus() -> None:
    """Skip when Debian's prometheus package is not installed (make system-deps installs it)."""
    try:
        tool("promtool")
        tool("prometheus")
    except ToolMissing as exc:
        pytest.skip(str(exc))


def parse(text: str) -> PlatformSpec:
    spec, problems = parse_spec(text, "spec.yaml")
    assert not [p for p in problems if p.severity == "error"], problems
    return spec


@pytest.fixture(scope="session")
def day(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Day]:
    need_prometheus()
    work = tmp_path_factory.mktemp("day")
    build_tsdb([done_day.TABLE], work / "tsdb")
    port = free_port()
    server = PrometheusServer(
        work / "tsdb", work / "server", scrape_s=60, scrape_targets=[f"127.0.0.1:{port}"]
    )
    try:
        server.wait_ready()
        spec_file = work / "platform.yaml"
        spec_file.write_text(done_day.SPEC, encoding="utf-8")
        yield Day(server.url, parse(done_day.SPEC), spec_file, port, server)
    finally:
        server.stop()
