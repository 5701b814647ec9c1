"""Assignments for one workload: flavors, preemption targets and partial admission.

Mirrors `scheduler.go: getInitialAssignments` and `flavorassigner/podset_reducer.go`: the full
size first; if it neither fits nor can preempt, a binary search over reduced pod counts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gpuplane.kueue import no_victims
from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.cycle_head import Entry
from gpuplane.kueue.fair_preemption import fair_targets
from gpuplane.kueue.flavor_assigner import (
    MODE_FIT,
    MODE_NOFIT,
    MODE_PREEMPT,
    NO_CANDIDATES,
    PREEMPT,
    RECLAIM,
    Assignment,
    FlavorAssigner,
)
from gpuplane.kueue.objects import FR, Workload
from gpuplane.kueue.preemption import PreemptionCtx, Target, classical_targets, remove_workloads
from gpuplane.kueue.snapshot import CQState, Snapshot
from gpuplane.kueue.tas import hook as tas_hook


def get_targets(
    snap: Snapshot,
    wl: Workload,
    state: CQState,
    frs: Iterable[FR],
    requests: dict[FR, int],
    tas_fits: Callable[[], bool] | None = None,
) -> list[Target]:
    """Preemption targets for `wl` (classical or fair sharing, as configured); with `tas_fits`,
    classical victims are chosen until the topology placement fits too."""
    ctx = PreemptionCtx(
        snap, wl, state, frs if isinstance(frs, frozenset) else frozenset(frs), requests, tas_fits
    )
    if snap.fair_sharing is not None:
        return fair_targets(ctx, snap.fair_sharing.preemption_strategies)
    if no_victims.ENABLED:
        # exact: the search would return [] (issue 23); else its own candidates, as computed
        none, own, known = no_victims.cannot_find_victims_or_own(ctx)
        if none:
            no_victims.COUNTS["saved"] += 1
            return []
        no_victims.COUNTS["ran"] += 1
        return classical_targets(ctx, own, known)
    return classical_targets(ctx)


#: frozenset({fr}) per (flavor, resource), made once: the oracle's searches are keyed by it
#: (`candidates.sorted_candidates`, the kept subtree scans), and a kept set's hash is computed once.
_SINGLE: dict[FR, frozenset[FR]] = {}


class _Oracle:
    """The preemption oracle of one workload's nomination; remembers which (fr, quantity) had no
    targets, so that the same search is not run again on the unchanged snapshot (`_targets`)."""

    def __init__(self, snap: Snapshot, wl: Workload, state: CQState) -> None:
        self.snap = snap
        self.wl = wl
        self.state = state
        self.none: list[tuple[FR, int]] = []

    def __call__(self, fr: FR, qty: int) -> tuple[int, int, list[str]]:
        snap, state = self.snap, self.state
        frs = _SINGLE.get(fr)
        if frs is None:
            frs = _SINGLE[fr] = frozenset((fr,))
        targets = get_targets(snap, self.wl, state, frs, {fr: qty})
        if not targets:
            self.none.append((fr, qty))
            return NO_CANDIDATES, rn.lowest_subtree_height(state.node, fr, qty)[0], []
        pairs = [(t.wl, snap.cqs[t.cq]) for t in targets]
        remove_workloads(snap, pairs, -1)
        borrow = rn.lowest_subtree_height(state.node, fr, qty)[0]
        remove_workloads(snap, pairs, 1)
        mode = PREEMPT if any(t.cq == state.name for t in targets) else RECLAIM
        return mode, borrow, [t.wl.key for t in targets]


def _targets(snap: Snapshot, wl: Workload, state: CQState, a: Assignment, oracle: _Oracle) -> list[Target]:
    """Preemption targets for a Preempt assignment `a` (get_targets, with TAS's fit check).

    Without TAS and fair sharing, when `a` needs preemption in one (flavor, resource) only and
    the oracle already searched for exactly that quantity of it and found no target, the answer
    is [] again. With that one request only, it is the same search (`get_targets` with the same
    workload, ClusterQueue, resources and requests) on the same snapshot (nothing changes it
    during a nomination; the oracle undoes what it tries). With more requests (the pod set's
    other resources, which fit: their flavors' modes are not Preempt), `_more_requests_find_none`
    shows the search still finds nothing.
    """
    if snap.tas is None:
        if snap.fair_sharing is None and oracle.none:
            frs = a.frs_need_preemption()
            if len(frs) == 1:
                (fr,) = frs
                qty = a.usage.get(fr, 0)
                if (fr, qty) in oracle.none and (
                    len(a.usage) == 1 or (ORACLE_REUSE and _more_requests_find_none(state, fr, qty, a.usage))
                ):
                    return []
            return get_targets(snap, wl, state, frs, a.usage)
        return get_targets(snap, wl, state, a.frs_need_preemption(), a.usage)
    check = tas_hook.fit_check(snap, wl, state, a)
    return get_targets(snap, wl, state, a.frs_need_preemption(), a.usage, check)


def _more_requests_find_none(state: CQState, fr: FR, qty: int, usage: dict[FR, int]) -> bool:
    """Whether the classical search for `usage` (frs needing preemption {fr}, usage[fr] == qty)
    finds nothing, given that the search for {fr: qty} alone found nothing on this snapshot.

    `preemption.classical_targets` reads the requests in two places only. (a) `workload_fits`,
    the test after each removal, in the bound and in fill_back: it checks every requested
    (flavor, resource) on its own, so with more requests it holds only where it held with
    {fr: qty}: no removal it tries can make the larger request fit when none made the smaller
    one fit. (b) `_collect_hierarchical`'s hierarchical-advantage chain (Kueue's
    `QuantitiesFitInQuota` walk in pkg/scheduler/preemption/classical/hierarchical_preemption.go
    at commit 01c0b27050, `preemption.advantage_chain`), which decides which
    other ClusterQueues' candidates come first, what variant they have and which attempts run.
    The chain is the same with both requests when, at the first ClusterQueue or cohort (below the
    root, where the last candidates are collected) where {fr: qty} fits in quota, every other
    request fits too (its remainder passed up as `quantities_fit_in_quota` does): before it
    neither request fits anywhere, from there on both have the advantage. Then the two searches
    try the same candidates in the same order, and (a) makes the larger one find nothing too.
    The frs, the workload and the policies are the same (the candidates do not depend on the
    requests).
    """
    node = state.node
    if node.parent is None or state.spec.preemption.reclaim_within_cohort in ("", "Never"):
        return True  # no hierarchical collection: only (a) reads the requests
    cur = node
    rem = qty
    depth = 0
    while cur.parent is not None:
        if cur.usage.get(fr, 0) + rem <= cur.subtree.get(fr, 0):
            break
        rem = max(0, rem - rn.local_available(cur, fr))
        cur = cur.parent
        depth += 1
    if cur.parent is None:
        return True  # {fr: qty} has no advantage where candidates are collected: nor has the larger
    for other, v in usage.items():
        if other == fr:
            continue
        at = node
        r = v
        for _ in range(depth):
            r = max(0, r - rn.local_available(at, other))
            assert at.parent is not None
            at = at.parent
        if at.usage.get(other, 0) + r > at.subtree.get(other, 0):
            return False
    return True


#: Whether `_targets` answers a multi-resource search from the oracle's empty single-resource one
#: (`_more_requests_find_none`); off in the reference engine (`kueue.reference`).
ORACLE_REUSE = True


def use_oracle_reuse(on: bool) -> None:
    """Let `_targets` reuse the oracle's empty searches for larger requests (`on`, the default)."""
    global ORACLE_REUSE
    ORACLE_REUSE = on


def assignments(
    snap: Snapshot, wl: Workload, state: CQState, fast: bool | None = None
) -> tuple[Assignment, list[Target]]:
    """getInitialAssignments: full size first, then partial admission (PodSetReducer).

    `fast` False switches later-flavors-first off for this workload (None: the module setting).
    """
    oracle = _Oracle(snap, wl, state)
    assigner = FlavorAssigner(snap, wl, state, oracle, fast)
    full = assigner.assign()
    if snap.tas is not None:
        tas_hook.after_assign(snap, wl, state, full)
    mode = full.mode()
    if mode == MODE_FIT:
        return full, []
    if mode == MODE_PREEMPT:
        targets = _targets(snap, wl, state, full, oracle)
        if snap.tas is not None:
            tas_hook.for_targets(snap, wl, state, full, targets)
        if targets:
            return full, targets
    if wl.can_be_partially_admitted():
        found = _reduce(snap, wl, state, assigner, oracle)
        if found is not None:
            return found
    return full, []


def settle_deferred(snap: Snapshot, entries: list[Entry]) -> None:
    """Recompute, with every preemption simulation, the Fit heads whose reasons could be shown.

    Called after nomination, before any head is processed (the snapshot is as every assignment
    saw it). A Fit head is only ever not admitted when heads processed before it in the cycle
    take the room (`scheduler._fits`); each of them adds at most its own assignment's usage to
    the tree, and available quota only shrinks as usage grows. So when the head still fits with
    every other non-NoFit head of its cohort tree charged, it will be admitted and its reasons are
    never read; otherwise its skipped simulations are run now by assigning it again in full, which
    gives the same flavors and modes (flavor_assigner's docstring) and the complete reasons.
    """
    pending = [e for e in entries if e.assignment is not None and e.assignment.deferred]
    if not pending:
        return
    trees: dict[int, list[Entry]] = {}
    for e in entries:
        if e.mode() != MODE_NOFIT:
            trees.setdefault(id(e.state.node.root()), []).append(e)
    charged_all: dict[int, rn.Shift] = {}
    for e in pending:
        tree = id(e.state.node.root())
        node, usage = e.state.node, e.usage()
        shift = charged_all.get(tree)
        if shift is None:  # every head charged, this one included: a quick sufficient check first
            shift = charged_all[tree] = rn.removal_shift(
                (x.state.node, _negated(x.usage())) for x in trees[tree]
            )
        if all(v <= rn.cq_available(node, fr, shift) for fr, v in usage.items()):
            continue
        others = rn.removal_shift((x.state.node, _negated(x.usage())) for x in trees[tree] if x is not e)
        if all(v <= rn.cq_available(node, fr, others) for fr, v in usage.items()):
            continue
        e.assignment, e.targets = assignments(snap, e.wl, e.state, fast=False)


def _negated(usage: dict[FR, int]) -> dict[FR, int]:
    """A usage map as a `removal_shift` removal that adds it."""
    return {fr: -v for fr, v in usage.items()}


def _reduce(
    snap: Snapshot, wl: Workload, state: CQState, assigner: FlavorAssigner, oracle: _Oracle
) -> tuple[Assignment, list[Target]] | None:
    deltas = [ps.count - (ps.min_count if ps.min_count is not None else ps.count) for ps in wl.pod_sets]
    total = sum(deltas)
    if total <= 0:
        return None

    def attempt(i: int) -> tuple[Assignment, list[Target]] | None:
        counts = [ps.count - (d * i) // total for ps, d in zip(wl.pod_sets, deltas, strict=True)]
        a = assigner.assign(counts)
        if snap.tas is not None:
            tas_hook.after_assign(snap, wl, state, a)
        m = a.mode()
        if m == MODE_FIT:
            return a, []
        if m == MODE_PREEMPT:
            t = _targets(snap, wl, state, a, oracle)
            if t:
                return a, t
        return None

    lo, hi = 0, total + 1
    best: tuple[Assignment, list[Target]] | None = None
    while lo < hi:
        mid = (lo + hi) // 2
        got = attempt(mid)
        if got is not None:
            best, hi = got, mid
        else:
            lo = mid + 1
    return best
