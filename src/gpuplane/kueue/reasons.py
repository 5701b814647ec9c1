"""Human-readable reasons, with the numbers, for why a workload was not admitted."""

from __future__ import annotations

import bisect

from gpuplane.kube.quantity import format_quantity
from gpuplane.kueue.cycle_head import Entry
from gpuplane.kueue.flavor_assigner import MODE_NOFIT, MODE_PREEMPT, Assignment, quota_text
from gpuplane.kueue.objects import PreemptionPolicy, Workload
from gpuplane.kueue.snapshot import LazyText, Snapshot


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


class EntryReason(LazyText):
    """`describe_entry`'s text for a head whose words come from its flavor assignment, formatted
    when read: `head` then ": " and the assignment's deciding reasons (`pol`: the head is the
    preemption policy's sentence); with `fallback`, the reasons alone, else `fallback`. Nothing it
    reads changes after the cycle (the assignment is the cycle's own, its figures captured)."""

    def __init__(self, head: str, pol: PreemptionPolicy | None, a: Assignment, fallback: str) -> None:
        self.head = head
        self.pol = pol
        self.a = a
        self.fallback = fallback

    def text(self) -> str:
        """The text `describe_entry` gives."""
        details = _deciding_reasons(self.a)
        if self.fallback:
            return details or self.fallback
        head = self.head
        pol = self.pol
        if pol is not None:
            head = (
                "needs preemption but no workload may be preempted "
                f"(withinClusterQueue {pol.within_cluster_queue}, reclaimWithinCohort "
                f"{pol.reclaim_within_cohort}, borrowWithinCohort {pol.borrow_within_cohort})"
            )
        return head + (f": {details}" if details else "")


def describe_entry(snap: Snapshot, entry: Entry) -> str:
    """Why a head workload was not admitted in this cycle."""
    found = entry_reason(snap, entry)
    return found if isinstance(found, str) else found.text()


def entry_reason(snap: Snapshot, entry: Entry) -> str | LazyText:
    """`describe_entry`'s text, or (for the common cases) an `EntryReason` that formats it when read:
    what it quotes of the live state (victims' borrowing, quota) is formatted now."""
    a = entry.assignment
    if a is not None and entry.status != "deferred" and entry.status != "skipped":
        mode = entry.mode()
        if mode == MODE_PREEMPT and not entry.targets:
            return EntryReason("", entry.state.spec.preemption, a, "")
        if mode == MODE_NOFIT:
            return EntryReason("does not fit", None, a, "")
        if mode != MODE_PREEMPT:
            return EntryReason("", None, a, "not admitted")
    return _describe_now(snap, entry)


def _describe_now(snap: Snapshot, entry: Entry) -> str:
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
