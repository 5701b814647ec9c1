"""Run a throw-away Prometheus on loopback over generated data (tests and the benchmark).

`build_tsdb` writes a scenario as OpenMetrics and turns it into TSDB blocks with
`promtool tsdb create-blocks-from openmetrics` (one promtool per 2-hour file, two at a time);
`PrometheusServer` starts Debian's `prometheus` on 127.0.0.1 with a free port over that data,
with a retention long enough for old blocks, and stops it again.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx

from gpuplane.account.scenarios import Truth
from gpuplane.account.testdata import Scenario, write_openmetrics
from gpuplane.spec import PlatformSpec


class ToolMissing(RuntimeError):
    """prometheus or promtool is not installed (Debian package `prometheus`)."""


def tool(name: str) -> str:
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


def build_tsdb(scenarios: list[Scenario], tsdb: Path, workers: int = 2) -> None:
    """Write the scenarios' series and create TSDB blocks from them in `tsdb`."""
    promtool = tool("promtool")
    tsdb.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gpuplane-om-") as scratch:
        files: list[Path] = []
        for index, scenario in enumerate(scenarios):
            files += write_openmetrics(scenario, Path(scratch) / str(index))

        def convert(path: Path) -> None:
            subprocess.run(
                [promtool, "tsdb", "create-blocks-from", "openmetrics", "-q", str(path), str(tsdb)],
                check=True,
                capture_output=True,
                timeout=600,
            )
            path.unlink()

        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(convert, files))


class PrometheusServer:
    """A Prometheus process on 127.0.0.1 over a copy of a TSDB directory."""

    def __init__(
        self, tsdb: Path, workdir: Path, scrape_targets: list[str] | None = None, scrape_interval: str = "1s"
    ) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        data = workdir / "data"
        shutil.copytree(tsdb, data)
        config = workdir / "prometheus.yml"
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
        config.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.log = (workdir / "prometheus.log").open("w", encoding="utf-8")
        self.process = subprocess.Popen(
            [
                tool("prometheus"),
                f"--config.file={config}",
                f"--storage.tsdb.path={data}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                "--storage.tsdb.retention.time=100y",
                "--log.level=warn",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"prometheus exited: see {self.workdir / 'prometheus.log'}")
            try:
                if httpx.get(f"{self.url}/-/ready", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise TimeoutError("prometheus did not become ready")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=20)
        self.log.close()


@dataclass
class Cluster:
    """A running Prometheus over known data: its URL, spec, scenarios and their truth (tests)."""

    url: str
    spec: PlatformSpec
    spec_file: Path
    week: Scenario
    truth: Truth
    fallback: Scenario
    exporter_port: int
    server: PrometheusServer
