"""Benchmarks of the Kueue admission engine (`gpuplane.kueue`); printed by `make bench`.

1. One scheduling cycle with 500 ClusterQueues in 20 cohorts (5 of them under a parent cohort),
   50,000 pending and 20,000 admitted workloads, classical and with fair sharing.
2. The same shape under contention: every ClusterQueue holds admitted work (a third borrow
   heavily, a third sit well under nominal), so heads reclaim and hundreds of preemptions
   actually go through (in 1. nearly every preemption search ends without victims).
   Row 1 runs again without later-flavors-first (`flavor_assigner.use_later_flavors_first`, issue
   23: a preemption search in a flavor Kueue's search cannot choose), for the ratio in the same run.
3. 1,000 consecutive cycles on a 50-ClusterQueue cluster where workloads keep arriving and
   finishing (the simulator's pattern).

Cycle rows give wall time and the process's CPU time (the CPU figure is steadier on a
shared machine). The garbage left by building the snapshot (and by the previous row) is collected
before a cycle is timed: otherwise the first full collection after a 70k-workload build lands in
the cycle and walks every object the build made (measured: 432 ms instead of 97 ms CPU for the
fair-sharing cycle, compiled), which is the build's cost, not the cycle's; the twin and
`explain --eta` run their cycles with the built state frozen out of the collector
(`kueue/frozen.py`).
"""

from __future__ import annotations

import gc
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `tests.support` lives beside src/

from gpuplane.kueue import PodSet, Snapshot, Workload, schedule_cycle
from gpuplane.kueue.flavor_assigner import use_later_flavors_first
from tests.support.kueue_clusters import GPU, build_cluster, build_contended

__all__ = ["build_cluster", "build_contended", "run"]


def _one_cycle(
    objs: list[object], fair: bool, later_first: bool = True
) -> tuple[float, float, float, int, int]:
    """(build s, cycle wall s, cycle CPU s, admitted, preempted) for one cycle over `objs`."""
    t0 = time.perf_counter()
    snap = Snapshot.from_objects(objs, fair_sharing=fair)
    built = time.perf_counter() - t0
    gc.collect()  # the build's garbage: not the cycle's (kept out of both clocks)
    use_later_flavors_first(later_first)
    try:
        t1, c1 = time.perf_counter(), time.process_time()
        result = schedule_cycle(snap)
        t2, c2 = time.perf_counter(), time.process_time()
    finally:
        use_later_flavors_first(True)
    return built, t2 - t1, c2 - c1, len(result.admitted), len(result.preempted)


def _many_cycles(n: int = 1000) -> tuple[float, int]:
    rng = random.Random(3)
    objs = build_cluster(50, 5, 0, 0)
    snap = Snapshot.from_objects(objs)
    admitted: list[str] = []
    t0 = time.perf_counter()
    job = 0
    total = 0
    for cycle in range(n):
        snap.now = float(cycle)
        for _ in range(3):
            i = rng.randrange(50)
            gpus = rng.choice([1, 2, 4])
            snap.add_workload(
                Workload(
                    f"ns-{i}",
                    f"j{job}",
                    "lq",
                    priority=rng.choice([0, 100]),
                    creation_time=float(cycle),
                    pod_sets=[PodSet("main", 1, {GPU: gpus, "cpu": gpus * 8})],
                )
            )
            job += 1
        result = schedule_cycle(snap)
        snap.release_preempted()
        admitted += [a.workload for a in result.admitted]
        total += len(result.admitted)
        while len(admitted) > 150:
            snap.finish(admitted.pop(rng.randrange(len(admitted))))
    return time.perf_counter() - t0, total


def run() -> list[tuple[str, str]]:
    """Rows of (label, figure)."""
    rows: list[tuple[str, str]] = []
    for fair in (False, True):
        cpus = []
        for later_first in (True, False):
            build, cycle, cpu, admitted, preempted = _one_cycle(
                build_cluster(500, 20, 50_000, 20_000), fair, later_first
            )
            cpus.append(cpu)
            tag = "fair sharing" if fair else "classical"
            if later_first:
                rows.append((f"kueue: build snapshot, 500 CQs / 70k workloads ({tag})", f"{build:.2f} s"))
            else:
                tag += ", without later-flavors-first"
            ratio = f", {cpus[1] / cpus[0]:.1f}x slower" if not later_first else ""
            rows.append(
                (
                    f"kueue: one cycle, 500 CQs, 50k pending, 20k admitted ({tag})",
                    f"{cycle * 1000:.0f} ms, cpu {cpu * 1000:.0f} ms ({admitted} admitted, {preempted} preempted{ratio})",
                )
            )
    for fair in (False, True):
        _, cycle, cpu, admitted, preempted = _one_cycle(build_contended(500, 20, 20_000), fair)
        tag = "fair sharing" if fair else "classical"
        rows.append(
            (
                f"kueue: one contended cycle, 500 CQs, 20k pending, ~9k admitted ({tag})",
                f"{cycle * 1000:.0f} ms, cpu {cpu * 1000:.0f} ms ({admitted} admitted, {preempted} preempted)",
            )
        )
    n = 1000
    elapsed, total = _many_cycles(n)
    rows.append(
        (
            "kueue: 1,000 consecutive cycles, 50 CQs",
            f"{elapsed:.2f} s ({elapsed / n * 1000:.3f} ms/cycle, {total} admitted)",
        )
    )
    return rows


if __name__ == "__main__":
    for label, figure in run():
        print(f"{label}: {figure}")
