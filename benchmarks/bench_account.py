"""Benchmark: time to account a week of a 1,000-GPU cluster at 30-second resolution from Prometheus.

Setup (not the figure that matters): the event table of tests/support/account_bench.py is written
as dcgm-exporter and kube-state-metrics series for 125 nodes x 8 H100 (scraped every 120 s),
promtool turns them into TSDB blocks (cached under the system temp folder by a digest of the
generator) and a loopback Prometheus serves them. Then `gpuplane account` runs over the whole week
with a 30 s step (20,160 steps per series).
"""

from __future__ import annotations

import fcntl
import hashlib
import inspect
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `tests.support` lives beside src/

from gpuplane.account.engine import run as account_run
from gpuplane.account.window import Window
from gpuplane.spec import parse_spec
from tests.support import account_bench, event_table, exporter_series, exporter_shapes
from tests.support.promserver import PrometheusServer, ToolMissing, build_tsdb, tool

NODES = 125


def _tsdb() -> tuple[Path, float]:
    digest = hashlib.sha256(
        "".join(
            inspect.getsource(m) for m in (event_table, exporter_shapes, exporter_series, account_bench)
        ).encode()
    ).hexdigest()[:12]
    target = Path(tempfile.gettempdir()) / f"gpuplane-bench-account-{NODES}-{digest}"
    began = time.perf_counter()
    target.mkdir(exist_ok=True)
    with (target / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / "done").exists():
            build_tsdb([account_bench.large_week(NODES)], target / "tsdb")
            (target / "done").write_text("ok")
    return target / "tsdb", time.perf_counter() - began


def run_bench() -> list[tuple[str, str]]:
    tool("prometheus")
    tsdb, setup_s = _tsdb()
    week = account_bench.large_week(NODES)
    spec, _ = parse_spec(account_bench.large_spec(NODES), "bench.yaml")
    with tempfile.TemporaryDirectory(prefix="gpuplane-bench-prom-") as work:
        server = PrometheusServer(tsdb, Path(work), scrape_s=week.scrape_s)
        try:
            server.wait_ready()
            window = Window.make(week.start, week.end, 30)
            began = time.perf_counter()
            result = account_run(server.url, spec, window, charts=False, timeout_s=1800)
            account_s = time.perf_counter() - began
            began = time.perf_counter()
            account_run(server.url, spec, window, charts=True, timeout_s=1800)
            charts_s = time.perf_counter() - began
        finally:
            server.stop()
    allocated = sum(p.allocated_h for p in result.pods)
    return [
        ("account: data setup (generate + promtool, cached)", f"{setup_s:.1f} s"),
        (
            "account: 1,000 GPUs x 7 days @ 30 s step",
            f"{account_s:.1f} s ({len(result.pods):,} pods, {allocated:,.0f} allocated GPU-h, "
            f"{result.queries} queries)",
        ),
        ("account: same with report time series", f"{charts_s:.1f} s"),
    ]


def run() -> list[tuple[str, str]]:
    try:
        return run_bench()
    except ToolMissing as exc:
        return [("account: skipped", str(exc))]
