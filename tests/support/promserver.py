"""A throw-away Prometheus on loopback over event-table data (tests and the benchmark).

`build_tsdb` writes tables as OpenMetrics and turns them into TSDB blocks with
`promtool tsdb create-blocks-from openmetrics`; `PrometheusServer` starts Debian's `prometheus`
on 127.0.0.1 over a copy of that data, can be stopped and started again on the same port, and
scrapes given targets.

Staleness: live scraping writes a staleness marker when a series disappears, so it stops
counting at the next scrape; backfilled blocks carry no markers, and a vanished series would
linger for the 5-minute lookback. The server therefore runs with a lookback just under the
scrape interval, which ends a vanished series at the next scrape time exactly as the marker
would (every step still finds the last sample of a live series).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.support.exporter_series import Table, write_openmetrics


class ToolMissing(RuntimeError):
    """prometheus or promtool is not installed (Debian package `prometheus`)."""


def tool(name: str) -> str:
    """The path of `prometheus` or `promtool`, or ToolMissing."""
    found = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else None)
    if not found:
        raise ToolMissing(
            f"{name} not found; install Debian's prometheus package (apt-get install prometheus)"
        )
    return found


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def build_tsdb(tables: list[Table], tsdb: Path, workers: int = 2) -> None:
    """Write the tables' series and create TSDB blocks from them in `tsdb`."""
    promtool = tool("promtool")
    tsdb.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gpuplane-om-") as scratch:
        files: list[Path] = []
        for index, table in enumerate(tables):
            files += write_openmetrics(table, Path(scratch) / str(index))

        def convert(path: Path) -> None:
            subprocess.run(
                [promtool, "tsdb", "create-blocks-from", "openmetrics", "-q", str(path), str(tsdb)],
                check=True,
                capture_output=True,
                timeout=900,
            )
            path.unlink()

        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(convert, files))


class PrometheusServer:
    """A Prometheus process on 127.0.0.1 over a copy of a TSDB directory."""

    def __init__(
        self,
        tsdb: Path,
        workdir: Path,
        *,
        scrape_s: float = 60.0,
        scrape_targets: list[str] | None = None,
        scrape_interval: str = "1s",
    ) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data = workdir / "data"
        shutil.copytree(tsdb, self.data)
        self.config = workdir / "prometheus.yml"
        lines = ["global:", f"  scrape_interval: {scrape_interval}", "scrape_configs:"]
        for index, target in enumerate(scrape_targets or []):
            lines += [
                f"  - job_name: target-{index}",
                f"    scrape_interval: {scrape_interval}",
                "    honor_labels: true",
                f"    static_configs: [{{targets: ['{target}']}}]",
            ]
        if not scrape_targets:
            lines[-1] = "scrape_configs: []"
        self.config.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.lookback = f"{max(int(scrape_s) - 1, 1)}s"
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        """Start (or start again) the server on its port."""
        log = (self.workdir / "prometheus.log").open("ab")
        self.process = subprocess.Popen(
            [
                tool("prometheus"),
                f"--config.file={self.config}",
                f"--storage.tsdb.path={self.data}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                "--storage.tsdb.retention.time=100y",
                f"--query.lookback-delta={self.lookback}",
                "--log.level=warn",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()

    def wait_ready(self, timeout_s: float = 120.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process is None or self.process.poll() is not None:
                raise RuntimeError(f"prometheus exited: see {self.workdir / 'prometheus.log'}")
            try:
                if httpx.get(f"{self.url}/-/ready", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise TimeoutError("prometheus did not become ready")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)
        self.process = None


@contextmanager
def serve_tables(tables: list[Table], workdir: Path) -> Iterator[PrometheusServer]:
    """A ready Prometheus over these tables (built in `workdir`), stopped afterwards."""
    build_tsdb(tables, workdir / "tsdb")
    scrape_s = min(t.scrape_s for t in tables)
    server = PrometheusServer(workdir / "tsdb", workdir / "server", scrape_s=scrape_s)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()
