"""`explain`: run N scheduling cycles over Kueue objects and report each one as data or a table."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.table import Table

from gpuplane.kueue.objects import Workload
from gpuplane.kueue.parse import Parsed
from gpuplane.kueue.scheduler import CycleResult, schedule_cycle
from gpuplane.kueue.snapshot import Snapshot


def _latest_time(parsed: Parsed) -> float:
    times = [0.0]
    for obj in parsed.objects:
        if isinstance(obj, Workload):
            times.append(obj.creation_time)
            if obj.quota_reserved_time is not None:
                times.append(obj.quota_reserved_time)
    return max(times)


def run_explain(
    parsed: Parsed, cycles: int = 1, fair_sharing: bool | None = None
) -> tuple[Snapshot, list[CycleResult]]:
    """Build a snapshot and run `cycles` cycles; victims are released between cycles."""
    snap = Snapshot.from_objects(parsed.objects, fair_sharing=True if fair_sharing else None)
    snap.notes = [*parsed.notes, *snap.notes]
    snap.now = _latest_time(parsed) + 1.0
    results = []
    for i in range(cycles):
        if i:
            snap.release_preempted()
            snap.now += 1.0
        results.append(schedule_cycle(snap, explain_pending=True))
    return snap, results


def to_json(snap: Snapshot, results: list[CycleResult]) -> dict[str, Any]:
    """The documented JSON shape: {"cycles": [{admitted, preempted, pending}], ...}."""
    cycles = []
    for r in results:
        cycles.append(
            {
                "cycle": r.cycle,
                "admitted": [
                    {
                        "workload": a.workload,
                        "clusterQueue": a.cluster_queue,
                        "podSets": [
                            {"name": p.name, "count": p.count, "flavors": p.flavors} for p in a.pod_sets
                        ],
                        "borrowingLevel": a.borrowing,
                    }
                    for a in r.admitted
                ],
                "preempted": [
                    {
                        "workload": p.workload,
                        "preemptor": p.preemptor,
                        "reason": p.reason,
                        "clusterQueue": p.cluster_queue,
                        "priority": p.priority,
                    }
                    for p in r.preempted
                ],
                "pending": [
                    {
                        "workload": p.workload,
                        "clusterQueue": p.cluster_queue,
                        "queue": p.queue,
                        "reason": p.reason,
                    }
                    for p in r.pending
                ],
            }
        )
    return {
        "fairSharing": snap.fair_sharing is not None,
        "cycles": cycles,
        "notes": list(snap.notes),
    }


def dumps(snap: Snapshot, results: list[CycleResult]) -> str:
    """Stable JSON text (sorted keys inside objects are kept as built; lists are ordered)."""
    return json.dumps(to_json(snap, results), indent=2) + "\n"


def print_tables(console: Console, snap: Snapshot, results: list[CycleResult]) -> None:
    """Rich tables: per cycle admitted, preempted and pending workloads with reasons."""
    for note in snap.notes:
        console.print(f"note: {note}", style="dim", markup=False)
    for r in results:
        console.rule(f"cycle {r.cycle}" + (" (fair sharing)" if snap.fair_sharing else ""))
        if r.admitted:
            t = Table("workload", "ClusterQueue", "pod sets (count: flavors)", title="admitted")
            for a in r.admitted:
                ps = "; ".join(
                    f"{p.name} x{p.count}: " + ", ".join(f"{k}={v}" for k, v in p.flavors.items())
                    for p in a.pod_sets
                )
                t.add_row(a.workload, a.cluster_queue, ps)
            console.print(t)
        if r.preempted:
            t = Table("victim", "ClusterQueue", "priority", "preemptor", "reason", title="preempted")
            for p in r.preempted:
                t.add_row(p.workload, p.cluster_queue, str(p.priority), p.preemptor, p.reason)
            console.print(t)
        if r.pending:
            t = Table("workload", "ClusterQueue", "queue", "why it waits", title="pending")
            for q in r.pending:
                t.add_row(q.workload, q.cluster_queue, q.queue, q.reason)
            console.print(t)
        if not (r.admitted or r.preempted or r.pending):
            console.print("nothing to schedule")
