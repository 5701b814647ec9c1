"""Workload reading and generation speed: rows per second for each public trace and the gpuplane
CSV, and time and peak memory to generate about 800,000 synthetic jobs (10x Philly).

The traces come from ../shared/reference/traces beside the checkout; when it is absent those rows
say so. Generation runs in a fresh interpreter so its peak memory is its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gpuplane.traces import builtin_week, read_workloads, write_workloads_csv

TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "traces"
FILES = [
    ("philly-pollux", "philly-pollux/philly.csv"),
    ("dirlab philly 15k", "dirlab-philly-15k/philly_data_training.csv"),
    ("dirlab helios 15k", "dirlab-helios-15k/helios_data_training.csv"),
    ("openb default", "alibaba-gpu-v2023-openb/openb_pod_list_default.csv"),
]
# 10x Philly: 82,247 jobs in 108.9 days is 31.5 jobs/h; ten times that over the same span.
_GENERATE = """
import json, resource, sys, time
from gpuplane.traces import generate
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
jobs = generate(1, 108.9 * 86400, ("team-a", "team-b", "team-c"), jobs_per_hour=315)
wall = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"n": len(jobs), "wall": wall, "base_kib": base, "peak_kib": peak}))
"""


def _read(path: Path) -> tuple[int, float]:
    started = time.perf_counter()
    count = sum(1 for _ in read_workloads(path))
    return count, time.perf_counter() - started


def _rate(label: str, count: int, seconds: float) -> tuple[str, str]:
    return (label, f"{count:,} workloads in {seconds:.2f} s = {count / seconds:,.0f} rows/s")


def run() -> list[tuple[str, str]]:
    """Figures as (label, text) rows; asserts nothing about time."""
    rows: list[tuple[str, str]] = []
    for label, rel in FILES:
        path = TRACES / rel
        if not path.is_file():
            rows.append((f"read {label}", f"skipped: {path} not found"))
            continue
        rows.append(_rate(f"read {label}", *_read(path)))
    week_started = time.perf_counter()
    week = builtin_week()
    rows.append(("builtin_week()", f"{len(week):,} workloads in {time.perf_counter() - week_started:.2f} s"))
    philly = TRACES / FILES[0][1]
    source = list(read_workloads(philly)) if philly.is_file() else week
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "w.csv"
        started = time.perf_counter()
        write_workloads_csv(source, out)
        rows.append(_rate("write gpuplane CSV", len(source), time.perf_counter() - started))
        rows.append(_rate("read gpuplane CSV", *_read(out)))
    proc = subprocess.run([sys.executable, "-c", _GENERATE], check=True, capture_output=True, text=True)
    g = json.loads(proc.stdout)
    grown_mib = (g["peak_kib"] - g["base_kib"]) / 1024
    rows.append(
        ("generate 10x Philly", f"{g['n']:,} jobs in {g['wall']:.2f} s = {g['n'] / g['wall']:,.0f} jobs/s")
    )
    rows.append(
        (
            "  peak memory (RSS)",
            f"{g['peak_kib'] / 1024:,.0f} MiB, {grown_mib:,.0f} MiB for the records "
            f"= {grown_mib * 1024 * 1024 / g['n']:,.0f} bytes/job",
        )
    )
    return rows


if __name__ == "__main__":
    for label, figure in run():
        print(f"{label:24} {figure}")
