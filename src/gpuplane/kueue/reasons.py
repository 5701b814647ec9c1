"""Human-readable reasons, with the numbers, for why a workload was not admitted."""

from __future__ import annotations

import bisect

from gpuplane.kube.quantity import format_quantity
from gpuplane.kueue.cycle_head import Entry
from gpuplane.kueue.flavor_assigner import MODE_NOFIT, MODE_PREEMPT, Assignment, quota_text
from gpuplane.kueue.objects import Workload
from gpuplane.kueue.snapshot import Snapshot


def _dedupe(items: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def _victims_text(snap: Snapshot, entry: Entry) -> str:
    parts = []
    for t in entry.targets:
        state = snap.cqs[t.cq]
        borrowed = 0
        for fr, v in snap.usage_of.get(t.wl.key, {}).items():
            over = state.node.usage.get(fr, 0) - state.node.nominal.get(fr, 0)
            if over > 0:
                borrowed = max(borrowed, min(over, v))
        extra = f", borrowing {format_quantity(borrowed)}" if borrowed else ""
        parts.append(f"{t.wl.key} (priority {t.wl.priority}{extra}, {t.reason})")
    return "; would preempt " + ", ".join(parts) if parts else ""


def _deciding_reasons(a: Assignment) -> str:
    """The reasons of the pod set that decided: with several pod sets, the one that failed (else
    the first with the worst mode), named, with only its own flavor attempts (issue 21)."""
    if len(a.podsets) < 2:
        return "; ".join(_dedupe(a.reasons))
    worst = min(ps.mode() for ps in a.podsets)
    i, ps = next((i, ps) for i, ps in enumerate(a.podsets) if ps.failed or ps.mode() == worst)
    end = a.podsets[i + 1].first_reason if i + 1 < len(a.podsets) else len(a.reasons)
    own = _dedupe(a.reasons[ps.first_reason : end])
    return f"pod set {ps.name}: " + "; ".join(own) if own else "; ".join(_dedupe(a.reasons))


def describe_entry(snap: Snapshot, entry: Entry) -> str:
    """Why a head workload was not admitted in this cycle."""
    a = entry.assignment
    details = _deciding_reasons(a) if a is not None else ""
    mode = entry.mode()
    if entry.status == "deferred":
        return "waiting for workloads preempted by another workload to release quota"
    if entry.status == "skipped":
        if not details and a is not None:
            details = "; ".join(
                f"needs {format_quantity(v)} {fr[1]} in flavor {fr[0]}; {quota_text(entry.state, fr)}"
                for fr, v in sorted(a.usage.items())
            )
        return f"{entry.message}" + (f": {details}" if details else "")
    if mode == MODE_PREEMPT and entry.targets:
        n = len(entry.targets)
        return f"waiting for {n} preempted workload(s) to release quota" + _victims_text(snap, entry)
    if mode == MODE_PREEMPT:
        pol = entry.state.spec.preemption
        return (
            "needs preemption but no workload may be preempted "
            f"(withinClusterQueue {pol.within_cluster_queue}, reclaimWithinCohort "
            f"{pol.reclaim_within_cohort}, borrowWithinCohort {pol.borrow_within_cohort})"
            + (f": {details}" if details else "")
        )
    if mode == MODE_NOFIT:
        return "does not fit" + (f": {details}" if details else "")
    return details or "not admitted"


def describe_waiting(
    snap: Snapshot, wl: Workload, ranks: dict[str, list[tuple[int, float, str]]] | None = None
) -> str:
    """Why a workload that was not a head this cycle is waiting.

    `ranks` caches each ClusterQueue's sorted heap keys across calls of one report, so that a
    report on n pending workloads costs n log n, not n^2 (50 MB inputs, issue 9).
    """
    cq_name, problem = snap.cq_for(wl)
    if problem is not None:
        return problem
    state = snap.cqs.get(cq_name or "")
    if state is None:
        return f"ClusterQueue {cq_name} doesn't exist"
    if state.inactive is not None:
        return state.inactive
    keys = None if ranks is None else ranks.get(state.name)
    if keys is None:
        keys = sorted(
            (-other.priority, other.order_time, other.key) for other in state.queue.heap_workloads()
        )
        if ranks is not None:
            ranks[state.name] = keys
    ahead = bisect.bisect_left(keys, (-wl.priority, wl.order_time, wl.key))
    if ahead == 0:
        return (
            f"next in line in ClusterQueue {state.name}: Kueue considers one workload per ClusterQueue "
            "per cycle and this cycle's was another; it is considered in the next cycle"
        )
    return (
        f"waiting in ClusterQueue {state.name} with {ahead} ahead of it in queue order "
        "(Kueue considers one workload per ClusterQueue per cycle)"
    )
