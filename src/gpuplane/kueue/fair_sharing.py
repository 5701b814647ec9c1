"""Fair sharing: dominant resource share, the admission tournament and fair preemption (kueue.md §8).

Mirrors `pkg/cache/scheduler/fair_sharing.go`, `pkg/scheduler/fair_sharing_iterator.go` and
`pkg/scheduler/preemption/fairsharing/*.go`. A share is a tuple (weighted, tiebreak) so that two
infinite shares (weight 0 while borrowing) compare by their unweighted ratio.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping

from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.candidates import source, static_key
from gpuplane.kueue.objects import FR, Workload
from gpuplane.kueue.preemption import (
    IN_CLUSTER_QUEUE,
    IN_COHORT_FAIR_SHARING,
    IN_COHORT_RECLAMATION,
    PreemptionCtx,
    Target,
    candidate_order_key,
    cq_is_borrowing,
    fill_back,
    remove_workloads,
    restore,
    workload_fits,
)
from gpuplane.kueue.snapshot import CQState, Snapshot

Share = tuple[float, int]
ZERO: Share = (0.0, 0)

_LENDABLE: dict[int, tuple[rn.Node, dict[str, int]]] = {}


def lendable(node: rn.Node) -> dict[str, int]:
    """Per resource: Σ potentialAvailable over the node's (flavor, resource) pairs (static)."""
    hit = _LENDABLE.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    out: dict[str, int] = {}
    for fr in node.subtree:
        out[fr[1]] = out.get(fr[1], 0) + rn.potential_available(node, fr)
    _LENDABLE[id(node)] = (node, out)
    return out


def dominant_share(node: rn.Node, extra: Mapping[FR, int] | None = None) -> Share:
    """DominantResourceShare of a node with a parent (0 for roots), optionally with extra usage."""
    parent = node.parent
    if parent is None:
        return ZERO
    if not extra:
        cached = node.drs
        if cached is not None and cached[0] == node.ver:
            return cached[1]
        share = _share(node, parent, None)
        node.drs = (node.ver, share)
        return share
    return _share(node, parent, extra)


def _share(node: rn.Node, parent: rn.Node, extra: Mapping[FR, int] | None) -> Share:
    borrowed: dict[str, int] = {}
    for fr, quota in node.subtree.items():
        b = node.usage.get(fr, 0) + (extra.get(fr, 0) if extra else 0) - quota
        if b > 0:
            borrowed[fr[1]] = borrowed.get(fr[1], 0) + b
    if not borrowed:
        return ZERO
    lend = lendable(parent)
    ratio = 0
    for res in sorted(borrowed):
        total = lend.get(res, 0)
        if total > 0:
            ratio = max(ratio, borrowed[res] * 1000 // total)
    if node.weight == 0:
        return (math.inf, ratio)
    return (ratio / node.weight, 0)


def is_zero(share: Share) -> bool:
    """A share of zero: the node is not borrowing (in a measurable way)."""
    return share[0] == 0


# ------------------------------------------------------------------ admission tournament
class _Ranked:
    __slots__ = ("entry", "values")

    def __init__(self, entry: object) -> None:
        self.entry = entry
        self.values: dict[str, tuple[int, Share]] = {}


def tournament_order(
    snap: Snapshot,
    entries: list[object],
    state_of: Callable[[object], CQState],
    usage_of: Callable[[object], dict[FR, int]],
    wl_of: Callable[[object], Workload],
) -> Iterator[object]:
    """Yield entries in fair-sharing order; shares are recomputed before each pick."""
    standalone = [e for e in entries if state_of(e).node.parent is None]
    trees: dict[str, list[object]] = {}
    for e in entries:
        node = state_of(e).node
        if node.parent is not None:
            trees.setdefault(node.root().name, []).append(e)
    yield from sorted(standalone, key=lambda e: state_of(e).name)
    for root_name in sorted(trees):
        remaining = {state_of(e).name: e for e in trees[root_name]}
        root = snap.cohorts[root_name]
        while remaining:
            ranked = _rank(remaining, state_of, usage_of)
            best = _run(root, ranked, wl_of)
            assert best is not None
            del remaining[state_of(best.entry).name]
            yield best.entry


def _rank(
    remaining: dict[str, object],
    state_of: Callable[[object], CQState],
    usage_of: Callable[[object], dict[FR, int]],
) -> dict[str, _Ranked]:
    ranked: dict[str, _Ranked] = {}
    for cq_name, e in remaining.items():
        node = state_of(e).node
        usage = usage_of(e)
        rn.add_usage_map(node, usage, 1)
        r = _Ranked(e)
        child: rn.Node = node
        for ancestor in node.path_to_root():
            borrowing = 1 if any(rn.is_borrowing(child, fr) for fr in usage) else 0
            r.values[ancestor.name] = (borrowing, dominant_share(child))
            child = ancestor
        rn.add_usage_map(node, usage, -1)
        ranked[cq_name] = r
    return ranked


def _run(cohort: rn.Node, ranked: dict[str, _Ranked], wl_of: Callable[[object], Workload]) -> _Ranked | None:
    cands: list[_Ranked] = []
    for child in cohort.child_cohorts:
        winner = _run(child, ranked, wl_of)
        if winner is not None:
            cands.append(winner)
    for cq in cohort.child_cqs:
        if cq.name in ranked:
            cands.append(ranked[cq.name])
    if not cands:
        return None

    def key(r: _Ranked) -> tuple[int, Share, int, float]:
        borrowing, share = r.values[cohort.name]
        wl = wl_of(r.entry)
        return (borrowing, share, -wl.priority, wl.order_time)

    best = cands[0]
    for cur in cands[1:]:
        if key(cur) < key(best):
            best = cur
    return best


# ------------------------------------------------------------------ fair preemption
def _find_candidates(ctx: PreemptionCtx) -> dict[str, list[Workload]]:
    """Candidates per ClusterQueue, each list in CandidatesOrdering (evicted first)."""
    snap, state = ctx.snap, ctx.state
    pol = state.spec.preemption
    sources = []
    own = source(snap, state, ctx.frs, pol.within_cluster_queue, ctx.wl)
    if own is not None:
        sources.append(own)
    if state.node.parent is not None:
        for cq_node in state.node.root().subtree_cqs():
            other = snap.cqs[cq_node.name]
            if other is state or not cq_is_borrowing(other, ctx.frs):
                continue
            src = source(snap, other, ctx.frs, pol.reclaim_within_cohort, ctx.wl)
            if src is not None:
                sources.append(src)
    out: dict[str, list[Workload]] = {}
    for src in sources:
        lst = sorted(src.evicted(), key=static_key) + list(src.active())
        if lst:
            out[src.state.name] = lst
    return out


class _TargetOrdering:
    """TargetClusterQueueOrdering: descend from the root into the child with the highest share."""

    def __init__(self, ctx: PreemptionCtx, by_cq: dict[str, list[Workload]]) -> None:
        self.ctx = ctx
        self.by_cq = {cq: list(wls) for cq, wls in by_cq.items()}
        self.ancestors = {id(a) for a in ctx.state.node.path_to_root()}
        self.pruned_cqs: set[str] = set()
        self.pruned_cohorts: set[str] = set()

    def has(self, cq: str) -> bool:
        return bool(self.by_cq.get(cq))

    def pop(self, cq: str) -> Workload:
        return self.by_cq[cq].pop(0)

    def drop(self, cq: str) -> None:
        self.pruned_cqs.add(cq)

    def __iter__(self) -> Iterator[str]:
        me = self.ctx.state.node
        if me.parent is None:
            while self.has(me.name):
                yield me.name
            return
        root = me.root()
        while root.name not in self.pruned_cohorts:
            target = self._next(root)
            if target is not None:
                yield target

    def _next(self, cohort: rn.Node) -> str | None:
        me = self.ctx.state.node
        best_cqs: list[rn.Node] = []
        best_cq_share: Share | None = None
        for cq in cohort.child_cqs:
            if cq.name in self.pruned_cqs:
                continue
            share = dominant_share(cq)
            if (is_zero(share) and cq is not me) or not self.has(cq.name):
                self.pruned_cqs.add(cq.name)
            elif best_cq_share is None or share > best_cq_share:
                best_cqs, best_cq_share = [cq], share
            elif share == best_cq_share:
                best_cqs.append(cq)
        best_cohort: rn.Node | None = None
        best_cohort_share: Share | None = None
        for child in cohort.child_cohorts:
            if child.name in self.pruned_cohorts:
                continue
            share = dominant_share(child)
            if is_zero(share) and id(child) not in self.ancestors:
                self.pruned_cohorts.add(child.name)
            elif best_cohort_share is None or share > best_cohort_share:
                best_cohort, best_cohort_share = child, share
        if not best_cqs and best_cohort is None:
            self.pruned_cohorts.add(cohort.name)
            return None
        if best_cohort is not None and (best_cq_share is None or best_cohort_share >= best_cq_share):  # type: ignore[operator]
            return self._next(best_cohort)
        if len(best_cqs) == 1:
            return best_cqs[0].name
        # Ties between ClusterQueues: the one whose next candidate comes first in CandidatesOrdering.
        return min(best_cqs, key=lambda n: candidate_order_key(self.by_cq[n.name][0], n.name, me.name)).name


def _almost_lcas(a: rn.Node, b: rn.Node) -> tuple[rn.Node, rn.Node]:
    """Children of the lowest common ancestor on the paths to `a` and `b`."""
    path_a = [a, *a.path_to_root()]
    ids_b = {id(n): n for n in [b, *b.path_to_root()]}
    for i, node in enumerate(path_a):
        if id(node) in ids_b and i > 0:
            lca = node
            child_a = path_a[i - 1]
            child_b = b
            for n in [b, *b.path_to_root()]:
                if n.parent is lca:
                    child_b = n
                    break
            return child_a, child_b
    return a, b


def _shares(ctx: PreemptionCtx, target: CQState) -> tuple[Share, Share]:
    pa, ta = _almost_lcas(ctx.state.node, target.node)
    return dominant_share(pa), dominant_share(ta)


def _fits_fs(ctx: PreemptionCtx) -> bool:
    rn.add_usage_map(ctx.state.node, ctx.requests, -1)
    ok = workload_fits(ctx, True)
    rn.add_usage_map(ctx.state.node, ctx.requests, 1)
    return ok


def _strategy(name: str) -> Callable[[Share, Share, Share], bool]:
    if name == "LessThanInitialShare":
        return lambda new, old, _after: new < old
    return lambda new, _old, after: new <= after


def _first_pass(
    ctx: PreemptionCtx, cands: dict[str, list[Workload]], strategy: Callable[[Share, Share, Share], bool]
) -> tuple[bool, list[Target], dict[str, list[Workload]]]:
    snap = ctx.snap
    targets: list[Target] = []
    retry: dict[str, list[Workload]] = {}
    ordering = _TargetOrdering(ctx, cands)
    me = ctx.state
    for cq_name in ordering:
        target = snap.cqs[cq_name]
        within = rn.within_nominal(me.node, ctx.frs)
        if target is me or within:
            wl = ordering.pop(cq_name)
            remove_workloads(snap, [(wl, target)])
            reason = IN_CLUSTER_QUEUE if target is me else IN_COHORT_RECLAMATION
            targets.append(Target(wl, cq_name, reason))
            if _fits_fs(ctx):
                return True, targets, {}
            continue
        new_share, old_share = _shares(ctx, target)
        memo: dict[tuple[tuple[FR, int], ...], Share] = {}
        while ordering.has(cq_name):
            wl = ordering.pop(cq_name)
            usage = snap.usage_of.get(wl.key, {})
            sig = tuple(usage.items())
            after = memo.get(sig)
            if after is None:
                rn.add_usage_map(target.node, usage, -1)
                _, after = _shares(ctx, target)
                rn.add_usage_map(target.node, usage, 1)
                memo[sig] = after
            if strategy(new_share, old_share, after):
                remove_workloads(snap, [(wl, target)])
                targets.append(Target(wl, cq_name, IN_COHORT_FAIR_SHARING))
                if _fits_fs(ctx):
                    return True, targets, {}
                break
            retry.setdefault(cq_name, []).append(wl)
    return False, targets, retry


def _second_pass(
    ctx: PreemptionCtx, retry: dict[str, list[Workload]], targets: list[Target]
) -> tuple[bool, list[Target]]:
    snap = ctx.snap
    ordering = _TargetOrdering(ctx, retry)
    for cq_name in ordering:
        target = snap.cqs[cq_name]
        new_share, old_share = _shares(ctx, target)
        if new_share < old_share:
            wl = ordering.pop(cq_name)
            remove_workloads(snap, [(wl, target)])
            targets.append(Target(wl, cq_name, IN_COHORT_FAIR_SHARING))
            if _fits_fs(ctx):
                return True, targets
        ordering.drop(cq_name)
    return False, targets


def fair_targets(ctx: PreemptionCtx, strategies: tuple[str, ...]) -> list[Target]:
    """fairPreemptions: victims chosen by fair-sharing strategies, or [] when it cannot fit."""
    cands = _find_candidates(ctx)
    if not cands:
        return []
    snap = ctx.snap
    rn.add_usage_map(ctx.state.node, ctx.requests, 1)
    fits, targets, retry = _first_pass(ctx, cands, _strategy(strategies[0] if strategies else ""))
    if not fits and len(strategies) > 1:
        fits, targets = _second_pass(ctx, retry, targets)
    rn.add_usage_map(ctx.state.node, ctx.requests, -1)
    if not fits:
        restore(snap, targets)
        return []
    targets = fill_back(ctx, targets, True)
    restore(snap, targets)
    return targets
