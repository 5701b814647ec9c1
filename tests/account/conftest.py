"""A real Prometheus over a generated week whose true GPU-hours are known (session-scoped).

The TSDB is built once per test run (under xdist, once for all workers, behind a file lock) from
`gpuplane.account.scenarios.small_week()` and `fallback_day()`; every worker then starts its own
`prometheus` on 127.0.0.1 over a copy, which also scrapes one port reserved for the exporter test.
"""

from __future__ import annotations

import fcntl
import hashlib
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuplane.account import scenarios, testdata
from gpuplane.account.promserver import Cluster, PrometheusServer, ToolMissing, build_tsdb, free_port, tool
from gpuplane.spec import parse_spec


def _digest() -> str:
    source = inspect.getsource(testdata) + inspect.getsource(scenarios)
    return hashlib.sha256(source.encode()).hexdigest()[:12]


@pytest.fixture(scope="session")
def tsdb_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        tool("promtool")
        tool("prometheus")
    except ToolMissing as exc:
        pytest.skip(str(exc))
    shared = tmp_path_factory.getbasetemp().parent
    target = shared / f"gpuplane-account-tsdb-{_digest()}"
    with (shared / f"{target.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / "done").exists():
            build_tsdb(
                [scenarios.small_week(), scenarios.fallback_day(), *scenarios.mixed_day()], target / "tsdb"
            )
            (target / "done").write_text("ok")
    return target / "tsdb"


@pytest.fixture(scope="session")
def cluster(tsdb_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    exporter_port = free_port()
    workdir = tmp_path_factory.mktemp("prometheus")
    server = PrometheusServer(tsdb_dir, workdir, scrape_targets=[f"127.0.0.1:{exporter_port}"])
    try:
        server.wait_ready()
        spec, problems = parse_spec(scenarios.SMALL_SPEC, "small.yaml")
        assert not [p for p in problems if p.severity == "error"], problems
        spec_file = workdir / "platform.yaml"
        spec_file.write_text(scenarios.SMALL_SPEC, encoding="utf-8")
        week = scenarios.small_week()
        yield Cluster(
            server.url,
            spec,
            spec_file,
            week,
            scenarios.truth(week),
            scenarios.fallback_day(),
            exporter_port,
            server,
        )
    finally:
        server.stop()
