"""One scheduling cycle: heads, nominate, order, admit or preempt, requeue (kueue.md §4).

Mirrors `pkg/scheduler/scheduler.go: schedule`. The snapshot is changed in place: admissions
persist; capacity reserved for preemptors and for Preempt-without-candidates entries lasts only
for the cycle. Victims are marked evicted and keep their quota until `release_preempted`.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.assignment import assignments, settle_deferred
from gpuplane.kueue.cycle_head import (
    FAILED_AFTER_NOMINATION,
    GENERIC,
    NAMESPACE_MISMATCH,
    PENDING_PREEMPTION,
    Entry,
)
from gpuplane.kueue.fair_sharing import tournament_order
from gpuplane.kueue.flavor_assigner import MODE_FIT, MODE_NOFIT, MODE_PREEMPT
from gpuplane.kueue.objects import FR, Admission, PodSetAssignment, Workload
from gpuplane.kueue.preemption import Target, can_always_reclaim
from gpuplane.kueue.queues import HEAP, INADMISSIBLE
from gpuplane.kueue.reasons import describe_waiting, entry_reason
from gpuplane.kueue.results import Admitted, AdmittedPodSet, CycleResult, Pending, Preempted
from gpuplane.kueue.snapshot import CQState, ScanState, Snapshot
from gpuplane.kueue.tas.hook import still_fits as tas_still_fits


def _heads(snap: Snapshot, states: list[CQState] | None = None) -> list[Workload]:
    """One head per active ClusterQueue with a non-empty heap, in ClusterQueue name order
    (`Heads()`: one head per ClusterQueue per cycle, ../shared/reference/kueue.md §3).
    `states`, when given, gets the ClusterQueue of each head (same order)."""
    active = snap.active
    n = len(active)
    if n == 0:
        return []
    cqs = snap.cqs
    if n == 1:
        state = cqs[next(iter(active))]
        if state.inactive is not None:
            return []
        wl = state.queue.pop()
        if wl is None:
            return []
        if states is not None:
            states.append(state)
        return [wl]
    # Name order: sort the few active names, or filter the names kept sorted once (many).
    order = snap.head_order
    names = sorted(active) if 8 * n < len(order) else [name for name in order if name in active]
    heads = []
    for name in names:
        state = cqs[name]
        if state.inactive is not None:
            continue
        wl = state.queue.pop()
        if wl is not None:
            heads.append(wl)
            if states is not None:
                states.append(state)
    return heads


def _entry(snap: Snapshot, wl: Workload, state: CQState | None = None) -> Entry:
    """Nominate one head: its flavor assignment and preemption targets, or why it cannot be.

    `state`: the ClusterQueue whose queue the head was popped from (a pending workload is queued
    in the ClusterQueue its LocalQueue names, `Snapshot._enqueue`, and LocalQueues are fixed once
    the snapshot is built); None: looked up."""
    if state is None:
        cq_name, _ = snap.cq_for(wl)
        state = snap.cqs[cq_name or ""]
    if snap.namespaces is not None:
        message, requeue = "", GENERIC
        ns = snap.namespaces.get(wl.namespace)
        if ns is None:
            message = f"namespace {wl.namespace} not found"
        else:
            selector = state.spec.namespace_selector
            if selector is None or not selector.matches(ns.labels):
                message = f"Workload namespace doesn't match ClusterQueue {state.name} selector"
                requeue = NAMESPACE_MISMATCH
        if message:
            return Entry(wl, state, None, [], "", requeue, message, True)
    assignment, targets = assignments(snap, wl, state)
    return Entry(wl, state, assignment, targets)


def _nominate(
    snap: Snapshot, heads: list[Workload], states: list[CQState] | None = None
) -> tuple[list[Entry], list[Entry]]:
    """Nominate every head; `states`: their ClusterQueues (from `_heads`), else looked up."""
    entries: list[Entry] = []
    bad: list[Entry] = []
    for i, wl in enumerate(heads):
        e = _entry(snap, wl, states[i] if states is not None else None)
        if e.inadmissible:
            bad.append(e)
        else:
            entries.append(e)
    return entries, bad


def _classical_order(entries: list[Entry]) -> list[Entry]:
    if len(entries) < 2:
        return entries

    def key(e: Entry) -> tuple[int, int, float, str]:
        borrowing = e.assignment.borrowing if e.assignment is not None else 0
        return (borrowing, -e.wl.priority, e.wl.order_time, e.state.name)

    return sorted(entries, key=key)


def _fair_order(snap: Snapshot, entries: list[Entry]) -> Iterator[Entry]:
    for e in tournament_order(
        snap,
        list(entries),
        lambda x: x.state,  # type: ignore[attr-defined]
        lambda x: x.usage(),  # type: ignore[attr-defined]
        lambda x: x.wl,  # type: ignore[attr-defined]
    ):
        assert isinstance(e, Entry)
        yield e


def _reserve(e: Entry) -> dict[FR, int]:
    """resourcesToReserve for a Preempt entry without candidates."""
    assert e.assignment is not None
    node = e.state.node
    out: dict[FR, int] = {}
    for fr, v in e.assignment.usage.items():
        nominal, used = node.nominal.get(fr, 0), node.usage.get(fr, 0)
        if e.assignment.borrowing > 0:
            limit = node.borrowing_limit.get(fr)
            out[fr] = v if limit is None else max(0, min(v, nominal + limit - used))
        else:
            out[fr] = max(0, min(v, nominal - used))
    return out


def _fits(snap: Snapshot, e: Entry, victims: dict[str, Target]) -> bool:
    """Fits once this cycle's victims and its own targets are gone (computed, not written)."""
    node = e.state.node
    if not victims and not e.targets:
        return all(v <= rn.cq_available(node, fr) for fr, v in e.usage().items())
    removed = dict(victims)
    for t in e.targets:
        removed[t.wl.key] = t
    shift = rn.removal_shift((snap.cqs[t.cq].node, snap.usage_of.get(t.wl.key, {})) for t in removed.values())
    return all(v <= rn.cq_available(node, fr, shift) for fr, v in e.usage().items())


def _process(
    snap: Snapshot,
    e: Entry,
    victims: dict[str, Target],
    reserved: list[tuple[CQState, dict[FR, int]]],
    result: CycleResult,
    last: bool = False,
    first: bool = False,
) -> None:
    """Process one head in cycle order. `last`: no head is processed after it, so a reservation
    for it would be undone before anything reads the quota tree (and is not made). `first`: no
    head was processed before it (classical order), so the tree is as its flavor assignment read
    it: a Fit assignment checked every (flavor, resource) total against `cq_available` of this
    tree (`fits_resource_quota`), which is what `_fits` would check again (without victims)."""
    mode = e.mode()
    if mode == MODE_NOFIT:
        return
    if mode == MODE_PREEMPT and not e.targets:
        if not last and not can_always_reclaim(e.state):
            amount = _reserve(e)
            rn.add_usage_map(e.state.node, amount, 1)
            reserved.append((e.state, amount))
        return
    if any(t.wl.key in victims for t in e.targets):
        e.status = "skipped"
        e.message = "Workload has overlapping preemption targets with another workload"
        return
    checked = first and mode == MODE_FIT and not victims  # (docstring: `_fits` would be True)
    if (not checked and not _fits(snap, e, victims)) or (
        snap.tas is not None and e.assignment is not None and not tas_still_fits(snap, e.wl, e.assignment)
    ):
        e.status = "skipped"
        e.message = "Workload no longer fits after processing another workload"
        return
    usage = e.usage()
    rn.add_usage_map(e.state.node, usage, 1)
    if mode == MODE_PREEMPT:
        reserved.append((e.state, usage))
        for t in e.targets:
            victims[t.wl.key] = t
            if not t.wl.evicted:
                snap.cqs[t.cq].mark_evicted(t.wl)
                result.preempted.append(Preempted(t.wl.key, e.wl.key, t.reason, t.cq, t.wl.priority))
        e.requeue = PENDING_PREEMPTION
        snap.scan.pop(e.wl.key, None)
        return
    _admit(snap, e, usage, result)


def _admit(snap: Snapshot, e: Entry, usage: dict[FR, int], result: CycleResult) -> None:
    assert e.assignment is not None
    psas = []
    out_ps = []
    placed = e.assignment.topology  # TAS: topology assignment per pod set, else None
    for ps in e.assignment.podsets:
        chosen = ps.flavors
        items = sorted(chosen.items()) if len(chosen) > 1 else chosen.items()
        flavors = {res: fc.flavor for res, fc in items}
        topology = placed.get(ps.name) if placed else None
        psas.append(
            PodSetAssignment(
                ps.name, flavors, {r: q for r, q in ps.requests.items() if r in flavors}, ps.count, topology
            )
        )
        out_ps.append(AdmittedPodSet(ps.name, ps.count, flavors, topology))
    snap.admit(e.wl, e.state.name, dict(usage), Admission(e.state.name, psas))
    e.status = "admitted"
    result.admitted.append(Admitted(e.wl.key, e.state.name, out_ps, e.assignment.borrowing))


def _requeue(snap: Snapshot, e: Entry) -> int:
    """Put a head that was not admitted back (`RequeueIfNotPresent`, ../shared/reference/kueue.md
    §3): heap or inadmissible set; returns how many were parked."""
    q = e.state.queue
    if e.status == "admitted":
        return 0
    wl = e.wl
    key = wl.key
    reason = e.requeue
    if e.status == "skipped" and reason == GENERIC:
        reason = FAILED_AFTER_NOMINATION
        if snap.scan:
            snap.scan.pop(key, None)
    elif reason != PENDING_PREEMPTION and e.assignment is not None:
        # FlavorFungibilityPreserveScanProgress: the next nomination resumes the flavor scan.
        # (the cycle's assignment is never changed after it, so its map is kept, not copied; the
        # flavor assigner reads a ScanState's fields, never keeps it: one is updated in place)
        scan = snap.scan.get(key)
        if scan is None:
            snap.scan[key] = ScanState(e.assignment.last_tried, e.state.generation)
        else:
            scan.last_tried = e.assignment.last_tried
            scan.generation = e.state.generation
    if reason == PENDING_PREEMPTION:
        if q.strategy != "StrictFIFO":
            q.sticky = key
        q.push(wl)
        return 0
    if q.sticky == key:
        q.sticky = None
    if q.strategy == "StrictFIFO":
        if reason == NAMESPACE_MISMATCH:
            q.park(wl)
            return 1
        q.push(wl)
        return 0
    if reason == FAILED_AFTER_NOMINATION or (
        not e.inadmissible and e.assignment is not None and e.assignment.pending_flavors()
    ):
        q.push(wl)
        return 0
    if not e.inadmissible and reason == GENERIC:
        return q.park_shape(wl)  # SchedulingEquivalenceHashing: its shape goes aside with it
    q.park(wl)
    return 1


#: Whether a cycle with one active ClusterQueue takes `_one_head` (off: the general path, which
#: decides the same; tests/kueue/test_cycle_upkeep.py compares the two).
ONE_HEAD_PATH = True


def use_one_head_path(on: bool) -> None:
    """Take the one-head path of a classical cycle when one ClusterQueue is active (`on`), or not."""
    global ONE_HEAD_PATH
    ONE_HEAD_PATH = on


_NO_VICTIMS: dict[str, Target] = {}
_NO_RESERVED: list[tuple[CQState, dict[FR, int]]] = []


def _one_head(snap: Snapshot, wl: Workload, state: CQState, result: CycleResult) -> None:
    """A classical cycle with one head (one ClusterQueue with a heap): `schedule_cycle` without
    the lists and orderings that several heads need. The head is first and last in its cycle's
    order, so `_process` neither reserves for it nor checks again what its assignment checked."""
    e = _entry(snap, wl, state)
    if e.inadmissible:
        snap.reasons[wl.key] = e.message
        result.parked += _requeue(snap, e)
        return
    a = e.assignment
    if a is not None and a.deferred:
        settle_deferred(snap, [e])
    if e.targets and e.mode() == MODE_PREEMPT:
        reserved: list[tuple[CQState, dict[FR, int]]] = []
        _process(snap, e, {}, reserved, result, last=True, first=True)
        for state, amount in reserved:
            rn.add_usage_map(state.node, amount, -1)
    else:  # (these paths write into neither `victims` nor `reserved`)
        _process(snap, e, _NO_VICTIMS, _NO_RESERVED, result, last=True, first=True)
    if e.status != "admitted":  # (an admitted workload's reason was dropped by snap.admit)
        snap.reasons[wl.key] = entry_reason(snap, e)
        result.parked += _requeue(snap, e)


def schedule_cycle(snap: Snapshot, explain_pending: bool = False) -> CycleResult:
    """Run one Kueue scheduling cycle on `snap` (mutated) and report what happened.

    With `explain_pending`, `result.pending` lists every waiting workload with its reason
    (costs time proportional to all pending workloads; `pending_report` gives it on demand).
    """
    snap.cycle += 1
    result = CycleResult(snap.cycle)
    active = snap.active
    if len(active) == 1 and snap.fair_sharing is None and ONE_HEAD_PATH:  # one head at most
        for name in active:
            state = snap.cqs[name]
            wl = state.queue.pop() if state.inactive is None else None
            if wl is not None:
                _one_head(snap, wl, state, result)
            break
        if explain_pending:
            result.pending = pending_report(snap)
        return result
    states: list[CQState] = []
    heads = _heads(snap, states)
    entries, bad = _nominate(snap, heads, states)
    if any(e.assignment is not None and e.assignment.deferred for e in entries):
        settle_deferred(snap, entries)  # later-flavors-first: complete the reasons that may be shown
    victims: dict[str, Target] = {}
    reserved: list[tuple[CQState, dict[FR, int]]] = []
    if snap.fair_sharing is None:
        # The classical order is fixed before processing, so the last head is known (fair
        # sharing's tournament reads the tree as it goes: its reservations are always made).
        ordered = _classical_order(entries)
        end = len(ordered) - 1
        for i, e in enumerate(ordered):
            _process(snap, e, victims, reserved, result, last=i == end, first=i == 0)
    else:
        for e in _fair_order(snap, entries):
            _process(snap, e, victims, reserved, result)
    for state, amount in reserved:
        rn.add_usage_map(state.node, amount, -1)
    for e in entries:
        if e.status != "admitted":  # (an admitted workload's reason was dropped by snap.admit)
            snap.reasons[e.wl.key] = entry_reason(snap, e)
            result.parked += _requeue(snap, e)
    for e in bad:
        snap.reasons[e.wl.key] = e.message
        result.parked += _requeue(snap, e)
    if explain_pending:
        result.pending = pending_report(snap)
    return result


def pending_report(snap: Snapshot) -> list[Pending]:
    """Every workload without quota: its ClusterQueue, queue and reason."""
    out = []
    ranks: dict[str, list[tuple[int, float, str]]] = {}
    for wl in snap.pending():
        cq, where = snap.queue_of(wl.key)
        reason = snap.unqueued.get(wl.key) or snap.reason(wl.key) or describe_waiting(snap, wl, ranks)
        out.append(Pending(wl.key, cq or "", where or INADMISSIBLE, reason))
    return out


__all__ = [
    "HEAP",
    "INADMISSIBLE",
    "Admitted",
    "AdmittedPodSet",
    "CycleResult",
    "Pending",
    "Preempted",
    "schedule_cycle",
]
