"""Benchmark of `gpuplane plan`: a 100-design plan over one week of Philly-sized load.

The week is the busiest of the philly-pollux trace (week 7 from the first submission, 14,724 jobs,
shifted to start at 0) on the Philly-sized platform of bench_sim (352 8-GPU nodes, one team per
virtual cluster; the pool also serves inference, so it stays on demand). plan.yaml searches 100
maxNodes values (fixed-size pools of 120 to 516 nodes), so the search is a grid: every design runs
on the whole week, then 3 finalists x 2 more seeds. Designs run as Ray tasks on a local Ray with
this machine's cores; the same plan again from its cache shows the resume. A 10-design plan in
process, in the same bench run, is the reference the Ray figures are compared with.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WEEK = 7 * 86400.0
BUSIEST_WEEK = 6  # weeks since the first submission; see the module docstring


def _week() -> tuple[Any, list[Any]]:
    sys.path.insert(0, str(HERE))
    from bench_sim import PHILLY, philly_spec

    from gpuplane.traces.load import load_workload

    loaded = load_workload(PHILLY)
    workloads = list(loaded)
    start = min(w.submit for w in workloads) + BUSIEST_WEEK * WEEK
    week = [replace(w, submit=w.submit - start) for w in workloads if 0 <= w.submit - start < WEEK]
    return philly_spec(loaded.queues), week


def _inputs(folder: Path) -> tuple[Path, Path, Path]:
    from gpuplane.plan.design import spec_yaml
    from gpuplane.traces import write_workloads_csv

    spec, week = _week()
    trace, spec_path, space = folder / "week.csv", folder / "philly.yaml", folder / "plan.yaml"
    write_workloads_csv(week, trace)
    spec_path.write_text(spec_yaml(spec), encoding="utf-8")
    nodes = [120 + 4 * i for i in range(100)]  # 120 .. 516 nodes (the spec has 352)
    space.write_text(f"pools:\n  gpu: {{maxNodes: {nodes}}}\n", encoding="utf-8")
    return trace, spec_path, space


def _plan(inputs: tuple[Path, Path, Path], out: Path, *, ray: bool, designs: int) -> tuple[float, Any]:
    from gpuplane.plan.command import PlanOptions, execute

    trace, spec, space = inputs
    options = PlanOptions(spec=spec, workload=trace, space=space, out=out, designs=designs, ray=ray, seed=1)
    started = time.perf_counter()
    run = execute(options)
    return time.perf_counter() - started, run


def _evaluations(out: Path) -> int:
    """Evaluations a plan ran: one cache entry each (repeats within a run are cache hits)."""
    return len(list((out / "cache").glob("*.json")))


def _in_process(inputs: tuple[Path, Path, Path], folder: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, evaluations) of a 10-design plan in this process."""
    trace, spec, _ = inputs
    space = folder / "ten.yaml"
    space.write_text(f"pools:\n  gpu: {{maxNodes: {[120 + 44 * i for i in range(10)]}}}\n", encoding="utf-8")
    started = time.process_time()
    wall, _ = _plan((trace, spec, space), folder / "ten", ray=False, designs=10)
    return wall, time.process_time() - started, _evaluations(folder / "ten")


def run() -> list[tuple[str, str]]:
    """Rows of (label, figure)."""
    with tempfile.TemporaryDirectory(prefix="bench-plan-") as tmp:
        folder = Path(tmp)
        inputs = _inputs(folder)
        ref_wall, ref_cpu, ref_n = _in_process(inputs, folder)
        wall, run = _plan(inputs, folder / "plan", ray=True, designs=100)
        result, n = run.result, _evaluations(folder / "plan")
        again, rerun = _plan(inputs, folder / "plan", ray=True, designs=100)
        winner = result.winner
        return [
            ("philly week", f"{result.reference.result.workloads:,} jobs, the busiest week of philly-pollux"),
            (
                "reference: 10-design plan in process",
                f"{ref_wall:.1f} s wall, {ref_cpu / ref_n:.2f} s CPU and {ref_wall / ref_n:.2f} s wall per evaluation ({ref_n})",
            ),
            (
                f"plan {result.space_size} designs ({result.mode}) on a local Ray, {os.cpu_count()} CPUs",
                f"{wall:.1f} s wall ({n} evaluations, {wall / n:.2f} s each, {wall / 60:.1f} min)",
            ),
            ("  speed-up over in process (wall per evaluation)", f"{ref_wall / ref_n / (wall / n):.2f}x"),
            ("  winner", "none" if winner is None else f"{winner.design.id}: {winner.design.label()}"),
            (
                "same plan again, resumed from DIR/cache",
                f"{again:.1f} s ({rerun.cache_hits} cached evaluations)",
            ),
        ]


if __name__ == "__main__":
    for label, figure in run():
        print(f"{label}: {figure}")
