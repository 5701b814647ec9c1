"""Classical preemption: which admitted workloads to evict for an incoming one (kueue.md §7).

Mirrors `pkg/scheduler/preemption/preemption.go` and `classical/*.go`: candidates by policy
(same ClusterQueue, reclaim in cohort, hierarchical advantage), ordered by CandidatesOrdering,
removed greedily until the workload fits, then minimised by filling back in reverse order.
Removals are simulated on the live quota tree and always undone before returning.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.candidates import Source, cohort_sources, evicted_sorted, merged, source
from gpuplane.kueue.objects import FR, Workload
from gpuplane.kueue.snapshot import CQState, Snapshot

#: Whether classical searches take their shortcuts: the bound `_attempt_can_fit` first, and the
#: above-nominal ClusterQueues of each cohort subtree kept while usage is unchanged
#: (`candidates.borrowing_cqs`). Off only in the reference engine the differential tests compare
#: with (see `kueue.reference`).
ATTEMPT_BOUND = True

IN_CLUSTER_QUEUE = "InClusterQueue"
IN_COHORT_RECLAMATION = "InCohortReclamation"
IN_COHORT_FAIR_SHARING = "InCohortFairSharing"
IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"

# Candidate variants (classical/hierarchical_preemption.go).
NEVER, WITHIN_CQ, HIERARCHICAL, RECLAIM_WITHOUT_BORROWING, RECLAIM_WHILE_BORROWING = range(5)
_VARIANT_REASON = {
    WITHIN_CQ: IN_CLUSTER_QUEUE,
    HIERARCHICAL: IN_COHORT_RECLAMATION,
    RECLAIM_WITHOUT_BORROWING: IN_COHORT_RECLAMATION,
    RECLAIM_WHILE_BORROWING: IN_COHORT_RECLAIM_WHILE_BORROWING,
}


@dataclass(slots=True)
class Target:
    """A workload to evict, with its ClusterQueue and the preemption reason."""

    wl: Workload
    cq: str
    reason: str

    # Written out: mypyc compiles this one; the one `dataclass` generates runs interpreted.
    def __init__(self, wl: Workload, cq: str, reason: str) -> None:
        self.wl = wl
        self.cq = cq
        self.reason = reason


@dataclass
class _Cand:
    wl: Workload
    cq: CQState
    lca: rn.Node | None
    variant: int

    def __init__(self, wl: Workload, cq: CQState, lca: rn.Node | None, variant: int) -> None:
        self.wl = wl
        self.cq = cq
        self.lca = lca
        self.variant = variant


@dataclass
class PreemptionCtx:
    """The incoming workload, its ClusterQueue, the frs needing preemption and its full usage."""

    snap: Snapshot
    wl: Workload
    state: CQState
    frs: frozenset[FR]
    requests: dict[FR, int]
    #: With TAS: does the workload's topology placement fit now (`tas.hook.fit_check`)? None otherwise.
    tas_fits: Callable[[], bool] | None = None

    def __init__(
        self,
        snap: Snapshot,
        wl: Workload,
        state: CQState,
        frs: frozenset[FR],
        requests: dict[FR, int],
        tas_fits: Callable[[], bool] | None = None,
    ) -> None:
        self.snap = snap
        self.wl = wl
        self.state = state
        self.frs = frs
        self.requests = requests
        self.tas_fits = tas_fits


def policy_allows(policy: str, incoming: Workload, cand: Workload) -> bool:
    """LowerPriority / LowerOrNewerEqualPriority / Any; anything else is Never."""
    if policy == "LowerPriority":
        return cand.priority < incoming.priority
    if policy == "LowerOrNewerEqualPriority":
        if cand.priority < incoming.priority:
            return True
        return cand.priority == incoming.priority and incoming.order_time < cand.order_time
    return policy == "Any"


def candidate_order_key(
    wl: Workload, cq_name: str, preemptor_cq: str
) -> tuple[int, int, int, float, str, str]:
    """CandidatesOrdering: evicted first, other CQs first, lower priority, most recently admitted."""
    reserved = wl.quota_reserved_time if wl.quota_reserved_time is not None else math.inf
    return (
        0 if wl.evicted else 1,
        1 if cq_name == preemptor_cq else 0,
        wl.priority,
        -reserved,
        wl.uid,
        wl.key,
    )


def remove_workloads(snap: Snapshot, workloads: Iterable[tuple[Workload, CQState]], sign: int = -1) -> None:
    """Simulate removing (sign=-1) or re-adding (sign=1) admitted workloads' usage.

    Applied as one summed usage per ClusterQueue: a cohort's usage is a function of its
    children's usage only, so the tree ends up exactly as with one change per workload.
    """
    totals: dict[int, tuple[CQState, dict[FR, int]]] = {}
    for wl, state in workloads:
        acc = totals.setdefault(id(state), (state, {}))[1]
        for fr, v in snap.usage_of.get(wl.key, {}).items():
            acc[fr] = acc.get(fr, 0) + v
    for state, total in totals.values():
        rn.add_usage_map(state.node, total, sign)
    if snap.tas is not None:
        snap.tas.shift_workloads((wl.key for wl, _ in workloads), sign)


def workload_fits(ctx: PreemptionCtx, allow_borrowing: bool, shift: rn.Shift | None = None) -> bool:
    """workloadFits: every requested fr fits the ClusterQueue's available capacity.

    With `shift`, as if those usage changes had been made (see `resource_node.usage_deltas`).
    """
    node = ctx.state.node
    own = shift.get(node) if shift else None
    for fr, v in ctx.requests.items():
        if not allow_borrowing:
            used = node.usage.get(fr, 0) + (own.get(fr, 0) if own else 0)
            if node.subtree.get(fr, 0) < used + v:  # borrowing_with
                return False
        if v > rn.cq_available(node, fr, shift):
            return False
    if ctx.tas_fits is not None and shift is None:
        return ctx.tas_fits()  # workloadFits: the topology placement, after the quota
    return True


def fits_if_all_evicted(ctx: PreemptionCtx, sources: Iterable[Source]) -> bool:
    """Would the workload fit (borrowing allowed) with every candidate of `sources` evicted?

    Available capacity never shrinks when usage drops, so when even this fails no subset of
    these candidates can make room and a search can be skipped: the same (empty) result
    without walking the candidates. Computed from each ClusterQueue's summed candidate usage
    without writing to the tree. (Fair sharing only: classical searches filter candidates
    further, so there the bound rarely fails and costs more than it saves.)
    """
    shift = rn.removal_shift((src.state.node, src.total_usage(ctx.snap.usage_of)) for src in sources)
    node = ctx.state.node
    return all(v <= rn.cq_available(node, fr, shift) for fr, v in ctx.requests.items())


def cq_is_borrowing(state: CQState, frs: Iterable[FR]) -> bool:
    """cqIsBorrowing: has a cohort and uses more than nominal in some fr."""
    if state.node.parent is None:
        return False
    return any(rn.is_borrowing(state.node, fr) for fr in frs)


def _collect_in_subtree(
    ctx: PreemptionCtx, current: rn.Node, root: rn.Node, skip: rn.Node | None, adv: bool, out: list[Source]
) -> None:
    for child in current.child_cohorts:
        if child is skip or rn.within_nominal(child, ctx.frs):
            continue
        _collect_in_subtree(ctx, child, root, skip, adv, out)
    policy = ctx.state.spec.preemption.reclaim_within_cohort
    for child_cq in current.child_cqs:
        if child_cq is ctx.state.node or rn.within_nominal(child_cq, ctx.frs):
            continue
        src = source(ctx.snap, ctx.snap.cqs[child_cq.name], ctx.frs, policy, ctx.wl, root, adv)
        if src is not None:
            out.append(src)


def advantage_chain(node: rn.Node, requests: dict[FR, int]) -> list[bool]:
    """Whether the request has hierarchical advantage at each ancestor of ClusterQueue `node`, from
    its parent up (Kueue's `collectCandidatesForHierarchicalReclaim` in
    pkg/scheduler/preemption/classical/hierarchical_preemption.go, read at commit 01c0b27050:
    `QuantitiesFitInQuota` at the ClusterQueue, then at each cohort after collecting there, with
    what remains; the advantage, once it holds, holds above, so the walk stops computing there).
    A single request is followed without a map per level (the same figures)."""
    out: list[bool] = []
    if len(requests) == 1:
        ((fr, v),) = requests.items()
        adv = node.usage.get(fr, 0) + v <= node.subtree.get(fr, 0)
        rem = max(0, v - rn.local_available(node, fr))
        cur = node.parent
        while cur is not None:
            out.append(adv)
            if not adv:
                adv = cur.usage.get(fr, 0) + rem <= cur.subtree.get(fr, 0)
                rem = max(0, rem - rn.local_available(cur, fr))
            cur = cur.parent
        return out
    adv, remaining = rn.quantities_fit_in_quota(node, requests)
    for cur in node.path_to_root():
        out.append(adv)
        if not adv:
            adv, remaining = rn.quantities_fit_in_quota(cur, remaining)
    return out


def _collect_hierarchical(ctx: PreemptionCtx) -> tuple[list[Source], list[Source]]:
    """Other-CQ candidates: with hierarchical advantage, and priority-based ones."""
    hier: list[Source] = []
    prio: list[Source] = []
    node = ctx.state.node
    if node.parent is None or ctx.state.spec.preemption.reclaim_within_cohort in ("", "Never"):
        return hier, prio
    chain = advantage_chain(node, ctx.requests)
    prev: rn.Node | None = None
    snap, frs, wl = ctx.snap, ctx.frs, ctx.wl
    policy = ctx.state.spec.preemption.reclaim_within_cohort
    for i, cur in enumerate(node.path_to_root()):
        adv = chain[i]
        if ATTEMPT_BOUND:  # the same walk, its above-nominal ClusterQueues kept while usage is unchanged
            (hier if adv else prio).extend(cohort_sources(snap, cur, prev, frs, policy, wl, adv, node))
        else:
            _collect_in_subtree(ctx, cur, cur, prev, adv, hier if adv else prio)
        prev = cur
    return hier, prio


def _variant(ctx: PreemptionCtx, wl: Workload, src: Source) -> int:
    if src.state is ctx.state:
        return WITHIN_CQ
    if src.advantage:
        return HIERARCHICAL
    pol = ctx.state.spec.preemption
    if pol.borrow_within_cohort in ("", "Never") or wl.priority >= ctx.wl.priority:
        return RECLAIM_WITHOUT_BORROWING
    if pol.max_priority_threshold is not None and wl.priority > pol.max_priority_threshold:
        return RECLAIM_WITHOUT_BORROWING
    return RECLAIM_WHILE_BORROWING


def _prio_cap(ctx: PreemptionCtx, borrow: bool) -> float:
    """Priority from which priority-based candidates are ReclaimWithoutBorrowing (skipped when borrowing)."""
    if not borrow:
        return math.inf
    pol = ctx.state.spec.preemption
    if pol.borrow_within_cohort in ("", "Never"):
        return -math.inf
    cap = float(ctx.wl.priority)
    if pol.max_priority_threshold is not None:
        cap = min(cap, pol.max_priority_threshold + 1)
    return cap


def _candidates(
    ctx: PreemptionCtx, hier: list[Source], prio: list[Source], same: list[Source], borrow: bool
) -> Iterator[_Cand]:
    """The ordered candidate sequence: evicted (hier, prio, same), then the rest, lazily.

    Priority candidates come in ascending priority, so when the attempt allows borrowing the
    ones at or above the cap (never valid then) end that group early.
    """
    cap = _prio_cap(ctx, borrow)
    for group in (hier, prio, same):
        for wl, src in evicted_sorted(group):
            if group is prio and wl.priority >= cap:
                continue
            yield _Cand(wl, src.state, src.lca, _variant(ctx, wl, src))
    for group in (hier, prio, same):
        for wl, src in merged(group):
            if group is prio and wl.priority >= cap:
                break
            yield _Cand(wl, src.state, src.lca, _variant(ctx, wl, src))


def _valid(ctx: PreemptionCtx, cand: _Cand, borrow: bool) -> bool:
    if cand.cq is ctx.state:
        return True
    if borrow and cand.variant == RECLAIM_WITHOUT_BORROWING:
        return False
    if rn.within_nominal(cand.cq.node, ctx.frs):
        return False
    for node in cand.cq.node.path_to_root():
        if node is cand.lca:
            break
        if rn.within_nominal(node, ctx.frs):
            return False
    return True


def _under_nominal(ctx: PreemptionCtx) -> bool:
    node = ctx.state.node
    return all(node.usage.get(fr, 0) < node.nominal.get(fr, 0) for fr in ctx.frs)


def fill_back(ctx: PreemptionCtx, targets: list[Target], allow_borrowing: bool) -> list[Target]:
    """Minimise: re-add earlier targets in reverse order while the workload still fits."""
    snap = ctx.snap
    i = len(targets) - 2
    while i >= 0:
        t = targets[i]
        node = snap.cqs[t.cq].node
        usage = snap.usage_of.get(t.wl.key, {})
        # Ask first (no writes); only a target that is given back changes the tree.
        if workload_fits(ctx, allow_borrowing, dict(rn.usage_deltas(node, usage, 1))) and _tas_back(ctx, t):
            rn.add_usage_map(node, usage, 1)
            targets[i] = targets[-1]
            targets.pop()
        i -= 1
    return targets


def _tas_back(ctx: PreemptionCtx, t: Target) -> bool:
    """With TAS: give a target's domains back and keep them there only if the placement still fits."""
    if ctx.tas_fits is None or ctx.snap.tas is None:
        return True
    ctx.snap.tas.shift_workloads([t.wl.key], 1)
    if ctx.tas_fits():
        return True
    ctx.snap.tas.shift_workloads([t.wl.key], -1)
    return False


def restore(snap: Snapshot, targets: list[Target]) -> None:
    """Undo simulated removals."""
    remove_workloads(snap, ((t.wl, snap.cqs[t.cq]) for t in targets), 1)


def classical_targets(ctx: PreemptionCtx, own: Source | None = None, own_known: bool = False) -> list[Target]:
    """classicalPreemptions: the victims for `ctx.wl`, or [] when it cannot fit.

    With `own_known`, `own` is `source(ctx.snap, ctx.state, ctx.frs, withinClusterQueue, ctx.wl)`
    computed already on this snapshot (`no_victims.cannot_find_victims_or_own`).
    """
    pol = ctx.state.spec.preemption
    same_src = own if own_known else source(ctx.snap, ctx.state, ctx.frs, pol.within_cluster_queue, ctx.wl)
    same = [same_src] if same_src is not None and same_src.any() else []
    hier, prio = _collect_hierarchical(ctx)
    hier = [s for s in hier if s.any()]
    prio = [s for s in prio if s.any()]
    if not (same or hier or prio):
        return []
    bwc_forbidden = pol.borrow_within_cohort in ("", "Never")
    if (not hier and not prio) or (bwc_forbidden and not _under_nominal(ctx)):
        attempts = [True]
    elif bwc_forbidden and not hier:
        attempts = [False, True]
    else:
        attempts = [True, False]
    snap = ctx.snap
    for borrow in attempts:
        if ATTEMPT_BOUND and not _attempt_can_fit(ctx, hier, prio, same, borrow):
            continue  # no subset of this attempt's candidates can make room: same [] as the walk
        targets: list[Target] = []
        for cand in _candidates(ctx, hier, prio, same, borrow):
            if not _valid(ctx, cand, borrow):
                continue
            remove_workloads(snap, [(cand.wl, cand.cq)])
            targets.append(Target(cand.wl, cand.cq.name, _VARIANT_REASON[cand.variant]))
            if workload_fits(ctx, borrow):
                targets = fill_back(ctx, targets, borrow)
                restore(snap, targets)
                return targets
        restore(snap, targets)
    return []


def _attempt_can_fit(
    ctx: PreemptionCtx, hier: list[Source], prio: list[Source], same: list[Source], borrow: bool
) -> bool:
    """An exact bound before a classical search: would the workload fit with every candidate this
    attempt may take evicted at once?

    The walk only removes candidates `_candidates` yields for the attempt (priority-based ones not
    at all when borrowing with borrowWithinCohort Never), available capacity never shrinks when
    usage drops, and `workload_fits` is monotone in the removals; so when even removing all of
    them does not fit, the walk returns nothing and can be skipped. Costs one pass over the
    sources' cached usage sums (`Source.total_usage`), not over their workloads.
    """
    sources = [*hier, *same] if _prio_cap(ctx, borrow) == -math.inf else [*hier, *prio, *same]
    if not sources:
        return False
    shift = rn.removal_shift((src.state.node, src.total_usage(ctx.snap.usage_of)) for src in sources)
    return workload_fits(ctx, borrow, shift)


def use_attempt_bound(on: bool) -> None:
    """Take the classical search's shortcuts (`on`, the default: the exact bound before each attempt
    and the kept subtree scans) or not (the reference engine)."""
    global ATTEMPT_BOUND
    ATTEMPT_BOUND = on


def can_always_reclaim(state: CQState) -> bool:
    """CanAlwaysReclaim: reclaimWithinCohort Any means capacity can be taken back later."""
    return state.spec.preemption.reclaim_within_cohort == "Any"
