"""Fair-sharing preemption: which workloads to evict so that shares even out (kueue.md §8).

Mirrors `pkg/scheduler/preemption/preemption.go: fairPreemptions` and
`pkg/scheduler/preemption/fairsharing/*.go`. Removals are simulated on the live quota tree and
always undone before returning. For speed (decisions are unchanged):

* when evicting every candidate at once still would not make the workload fit, nothing can,
  so the search is skipped (fit is monotone in usage; see `fits_if_all_evicted`);
* a target's share after removing one candidate is computed from the usage deltas the removal
  would make (`resource_node.usage_deltas`), without writing to the tree, and memoised per
  usage shape; when that candidate is taken, the share is kept as the node's cached share;
* the preemptor-side and target-side children of the lowest common ancestor are computed once
  per target ClusterQueue; the fit check is computed, not simulated with writes;
* the ordering scans only ClusterQueues that still have candidates, reading cached shares;
* when a target ClusterQueue's current share already fails the strategy, all its candidates are
  set aside at once (a candidate's removal can only lower that share);
* when even removing every candidate of the ClusterQueues the strategies could take from would
  not make room, the passes are skipped (`_reachable`);
* when every ClusterQueue with candidates is the preemptor's or a sibling of it (`_siblings_only`),
  a removal changes only its own ClusterQueue's share, so the first pass takes its next target
  from a heap and checks fit at doubling checkpoints (replaying from the last failed one), and the
  second pass visits its targets in the order of their shares before it.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Mapping

from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.candidate_lists import Item
from gpuplane.kueue.candidates import Source, source
from gpuplane.kueue.fair_sharing import Share, dominant_share, is_zero, remember_share, share_without
from gpuplane.kueue.objects import FR
from gpuplane.kueue.preemption import (
    IN_CLUSTER_QUEUE,
    IN_COHORT_FAIR_SHARING,
    IN_COHORT_RECLAMATION,
    PreemptionCtx,
    Target,
    candidate_order_key,
    cq_is_borrowing,
    fill_back,
    fits_if_all_evicted,
    restore,
)
from gpuplane.kueue.snapshot import CQState

#: Whether `fair_targets` first tries `_fits_with_whole_sources_gone`. Off by default: measured
#: compiled on 2026-12-04 (same process, alternated, identical outputs) it cost more than it saved:
#: `explain --eta` with fair sharing on 100 CQs / 5k pending 14.1-14.6 s CPU with it, 13.5 s
#: without; the contended fair cycle 543-552 ms against 516-529 ms; the fair cycle of
#: bench_kueue 79-86 ms against 82-86 ms. Kept, exact, behind this switch for a cluster where it
#: pays (tests/kueue/test_fair_preemption_fast_paths.py holds it to the search's answers).
WHOLE_SOURCE_BOUND = False


def use_whole_source_bound(on: bool) -> None:
    """Switch the quota-tree bound before fair preemption searches on or off."""
    global WHOLE_SOURCE_BOUND
    WHOLE_SOURCE_BOUND = on


_POLICIES_WITH_CANDIDATES = ("LowerPriority", "LowerOrNewerEqualPriority", "Any")
"""The policies under which `candidates.source` can return candidates (any other: none)."""


def _fits_with_whole_sources_gone(ctx: PreemptionCtx) -> bool:
    """Would the workload fit with all the usage of every ClusterQueue `_sources` could draw on gone?

    Those are the preemptor's own ClusterQueue (when withinClusterQueue allows candidates) and
    the borrowing ClusterQueues of its cohort tree (when reclaimWithinCohort does). Their
    candidates use at most what the ClusterQueue uses, and capacity only grows as usage drops,
    so when even this fails, `fits_if_all_evicted` fails too and the search finds nothing:
    answered from the quota tree alone, without building a candidate list.
    """
    state, snap = ctx.state, ctx.snap
    pol = state.spec.preemption
    frs = ctx.requests
    removals: list[tuple[rn.Node, Mapping[FR, int]]] = []
    if pol.within_cluster_queue in _POLICIES_WITH_CANDIDATES:
        removals.append((state.node, {fr: state.node.usage.get(fr, 0) for fr in frs}))
    if state.node.parent is not None and pol.reclaim_within_cohort in _POLICIES_WITH_CANDIDATES:
        for cq_node in state.node.root().subtree_cqs():
            other = snap.cqs[cq_node.name]
            if other is not state and cq_is_borrowing(other, ctx.frs):
                removals.append((cq_node, {fr: cq_node.usage.get(fr, 0) for fr in frs}))
    if not removals:
        return False
    shift = rn.removal_shift(removals)
    node = state.node
    return all(v <= rn.cq_available(node, fr, shift) for fr, v in frs.items())


def _sources(ctx: PreemptionCtx) -> list[Source]:
    """findCandidates: the preemptor's own ClusterQueue, then borrowing ones in its cohort tree."""
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
    return sources


def _candidates(sources: list[Source]) -> dict[str, list[Item]]:
    """Candidates per ClusterQueue, each list in CandidatesOrdering (evicted first)."""
    out: dict[str, list[Item]] = {}
    for src in sources:
        lst = src.ordered_items()
        if lst:
            out[src.state.name] = lst
    return out


class _TargetOrdering:
    """TargetClusterQueueOrdering: descend from the root into the child with the highest share.

    Candidate lists are kept reversed so that taking the next candidate is a `pop()`.
    ClusterQueues without candidates are never chosen; they are left out of the per-cohort
    lists up front, and pruned ones are dropped from them (Kueue skips both, same outcome).
    """

    def __init__(self, ctx: PreemptionCtx, by_cq: dict[str, list[Item]]) -> None:
        self.me = ctx.state.node
        self.stacks = {cq: items[::-1] for cq, items in by_cq.items() if items}
        self.ancestors = {id(a) for a in self.me.path_to_root()}
        self.pruned_cqs: set[str] = set()
        self.pruned_cohorts: set[str] = set()
        self._live: dict[int, tuple[int, list[rn.Node]]] = {}
        self._tie_keys: dict[str, tuple[int, tuple[int, int, int, float, str, str]]] = {}

    def has(self, cq: str) -> bool:
        return bool(self.stacks.get(cq))

    def pop(self, cq: str) -> Item:
        return self.stacks[cq].pop()

    def drop(self, cq: str) -> None:
        self.pruned_cqs.add(cq)

    def __iter__(self) -> Iterator[str]:
        me = self.me
        if me.parent is None:
            while self.has(me.name):
                yield me.name
            return
        root = me.root()
        while root.name not in self.pruned_cohorts:
            target = self._next(root)
            if target is not None:
                yield target

    def _live_cqs(self, cohort: rn.Node) -> list[rn.Node]:
        """Child ClusterQueues of `cohort` that have candidates and are not pruned."""
        hit = self._live.get(id(cohort))
        pruned = self.pruned_cqs
        if hit is not None and hit[0] == len(pruned):
            return hit[1]
        live = hit[1] if hit is not None else [cq for cq in cohort.child_cqs if cq.name in self.stacks]
        live = [cq for cq in live if cq.name not in pruned]
        self._live[id(cohort)] = (len(pruned), live)
        return live

    def _next(self, cohort: rn.Node) -> str | None:
        me = self.me
        best_cqs: list[rn.Node] = []
        best_cq_share: Share | None = None
        stacks = self.stacks
        for cq in self._live_cqs(cohort):
            cached = cq.drs  # dominant_share's own cache, read inline: this loop is the hot spot
            share = cached[1] if cached is not None and cached[0] == cq.ver else dominant_share(cq)
            if (share[0] == 0 and cq is not me) or not stacks[cq.name]:
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
        return min(best_cqs, key=self._tie_key).name

    def _tie_key(self, cq: rn.Node) -> tuple[int, int, int, float, str, str]:
        """CandidatesOrdering key of the ClusterQueue's next candidate (cached per stack height)."""
        stack = self.stacks[cq.name]
        hit = self._tie_keys.get(cq.name)
        if hit is None or hit[0] != len(stack):
            hit = self._tie_keys[cq.name] = (
                len(stack),
                candidate_order_key(stack[-1][0], cq.name, self.me.name),
            )
        return hit[1]


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


class _Shares:
    """Preemptor-side and target-side shares, with the LCA children cached per target."""

    def __init__(self, ctx: PreemptionCtx) -> None:
        self.me = ctx.state.node
        self._lcas: dict[str, tuple[rn.Node, rn.Node]] = {}

    def lcas(self, target: CQState) -> tuple[rn.Node, rn.Node]:
        got = self._lcas.get(target.name)
        if got is None:
            got = self._lcas[target.name] = _almost_lcas(self.me, target.node)
        return got

    def now(self, target: CQState) -> tuple[Share, Share]:
        """(preemptor-side share, target-side share) as the tree is now."""
        pa, ta = self.lcas(target)
        return dominant_share(pa), dominant_share(ta)

    def target_after(self, target: CQState, usage: dict[FR, int]) -> Share:
        """Target-side share if `usage` left `target` (the tree is not touched)."""
        ta = self.lcas(target)[1]
        for node, delta in rn.usage_deltas(target.node, usage, -1):
            if node is ta:
                return dominant_share(ta, delta)
        return dominant_share(ta)


def _fits_fs(ctx: PreemptionCtx) -> bool:
    """workloadFitsForFairSharing: fits once its own (simulated) usage is taken out again."""
    node = ctx.state.node
    shift = dict(rn.usage_deltas(node, ctx.requests, -1))
    return all(v <= rn.cq_available(node, fr, shift) for fr, v in ctx.requests.items())


def _less_than_initial_share(new: Share, old: Share, _after: Share) -> bool:
    return new < old


def _less_than_or_equal_to_final_share(new: Share, _old: Share, after: Share) -> bool:
    return new <= after


def _strategy(name: str) -> Callable[[Share, Share, Share], bool]:
    if name == "LessThanInitialShare":
        return _less_than_initial_share
    return _less_than_or_equal_to_final_share


def _remove(ctx: PreemptionCtx, item: Item, target: CQState, reason: str, targets: list[Target]) -> bool:
    """Simulate evicting one candidate; True when the preemptor fits now."""
    rn.add_usage_map(target.node, item[1], -1)
    targets.append(Target(item[0], target.name, reason))
    return _fits_fs(ctx)


def _first_pass(
    ctx: PreemptionCtx, cands: dict[str, list[Item]], strategy: Callable[[Share, Share, Share], bool]
) -> tuple[bool, list[Target], dict[str, list[Item]]]:
    if _siblings_only(ctx, cands):
        return _first_pass_siblings(ctx, cands, strategy)
    snap = ctx.snap
    targets: list[Target] = []
    retry: dict[str, list[Item]] = {}
    ordering = _TargetOrdering(ctx, cands)
    shares = _Shares(ctx)
    me = ctx.state
    for cq_name in ordering:
        target = snap.cqs[cq_name]
        if target is me or rn.within_nominal(me.node, ctx.frs):
            reason = IN_CLUSTER_QUEUE if target is me else IN_COHORT_RECLAMATION
            if _remove(ctx, ordering.pop(cq_name), target, reason, targets):
                return True, targets, {}
            continue
        new_share, old_share = shares.now(target)
        stack = ordering.stacks[cq_name]
        skipped = retry.setdefault(cq_name, [])
        if not strategy(new_share, old_share, old_share):
            # Taking a candidate never raises the target side's share (after <= old), and both
            # strategies only get stricter as it falls: when even the current share fails, every
            # candidate of this ClusterQueue would be skipped, in this order.
            skipped.extend(reversed(stack))
            stack.clear()
            continue
        # Nothing changes until a candidate is taken, so the verdict depends only on its usage shape.
        afters: dict[tuple[tuple[FR, int], ...], Share] = {}
        while stack:
            item = stack.pop()
            after = afters.get(item[2])
            if after is None:
                after = afters[item[2]] = shares.target_after(target, item[1])
            if strategy(new_share, old_share, after):
                if _remove(ctx, item, target, IN_COHORT_FAIR_SHARING, targets):
                    return True, targets, {}
                remember_share(shares.lcas(target)[1], after)  # the target side's share from now on
                break
            skipped.append(item)
    return False, targets, {cq: items for cq, items in retry.items() if items}


def _siblings_only(ctx: PreemptionCtx, cands: dict[str, list[Item]]) -> bool:
    """Whether every ClusterQueue with candidates is the preemptor's or a sibling of it.

    Then `_TargetOrdering` always ends up at their common parent and picks the one with the
    highest share there (cohorts elsewhere have no candidates and are pruned when visited), and
    a removal changes the share of the ClusterQueue it is taken from only.
    """
    parent = ctx.state.node.parent
    if parent is None:
        return False
    cqs = ctx.snap.cqs
    return all(cqs[name].node.parent is parent for name in cands)


_TieKey = tuple[int, int, int, float, str, str]


def _first_pass_siblings(
    ctx: PreemptionCtx, cands: dict[str, list[Item]], strategy: Callable[[Share, Share, Share], bool]
) -> tuple[bool, list[Target], dict[str, list[Item]]]:
    """`_first_pass` when `_siblings_only` holds: the same answer with less work per step.

    * The next target is taken from a heap keyed by (share, next candidate's tie key) rather
      than by scanning every ClusterQueue: only the target's own key changes after a step, and
      a ClusterQueue leaves the heap exactly when `_TargetOrdering` would prune it.
    * Fit is not checked after every removal: the choices never depend on it (it only ends the
      pass), and fit only grows as usage drops. It is checked after 1, 2, 4, ... removals and at
      the end; from the last checkpoint that did not fit, the removals after it are undone and
      made again one at a time until the workload fits, which is where the pass would have stopped.
    """
    snap = ctx.snap
    me = ctx.state
    me_node = me.node
    frs = ctx.frs
    stacks = {cq: items[::-1] for cq, items in cands.items() if items}

    def entry(cq_name: str) -> tuple[float, int, _TieKey, str] | None:
        stack = stacks[cq_name]
        if not stack:
            return None
        node = snap.cqs[cq_name].node
        share = dominant_share(node)
        if share[0] == 0 and node is not me_node:
            return None
        return (-share[0], -share[1], candidate_order_key(stack[-1][0], cq_name, me.name), cq_name)

    heap = [e for e in map(entry, stacks) if e is not None]
    heapq.heapify(heap)
    targets: list[Target] = []
    taken: list[Item] = []
    retry: dict[str, list[Item]] = {}
    checked = 0  # removals when fit was last checked (and failed)
    due = 1  # removals at the next check
    reclaim = rn.within_nominal(me_node, frs)
    while heap:
        cq_name = heapq.heappop(heap)[3]
        target = snap.cqs[cq_name]
        stack = stacks[cq_name]
        if target is me or reclaim:
            item = stack.pop()
            rn.add_usage_map(target.node, item[1], -1)
            targets.append(
                Target(item[0], cq_name, IN_CLUSTER_QUEUE if target is me else IN_COHORT_RECLAMATION)
            )
            taken.append(item)
            if target is me:
                reclaim = rn.within_nominal(me_node, frs)
        else:
            # The preemptor side is its own ClusterQueue, the target side the target ClusterQueue.
            new_share, old_share = dominant_share(me_node), dominant_share(target.node)
            skipped = retry.setdefault(cq_name, [])
            if not strategy(new_share, old_share, old_share):
                skipped.extend(reversed(stack))
                stack.clear()
                continue
            afters: dict[tuple[tuple[FR, int], ...], Share] = {}
            final = strategy is _less_than_or_equal_to_final_share  # (inlined below)
            while stack:
                item = stack.pop()
                after = afters.get(item[2])
                if after is None:  # (as `_Shares.target_after`: the change at a ClusterQueue is -usage)
                    after = afters[item[2]] = share_without(target.node, item[1])
                if (new_share <= after) if final else strategy(new_share, old_share, after):
                    rn.add_usage_map(target.node, item[1], -1)
                    targets.append(Target(item[0], cq_name, IN_COHORT_FAIR_SHARING))
                    taken.append(item)
                    remember_share(target.node, after)
                    break
                skipped.append(item)
        if len(targets) >= due:
            if _fits_fs(ctx):
                return True, _first_fit(ctx, targets, taken, checked), {}
            checked, due = len(targets), 2 * len(targets)
        again = entry(cq_name)
        if again is not None:
            heapq.heappush(heap, again)
    if len(targets) > checked and _fits_fs(ctx):
        return True, _first_fit(ctx, targets, taken, checked), {}
    return False, targets, {cq: items for cq, items in retry.items() if items}


def _first_fit(ctx: PreemptionCtx, targets: list[Target], taken: list[Item], start: int) -> list[Target]:
    """Undo removals after `start` (where it did not fit), redo them one by one until it fits."""
    snap = ctx.snap
    for t, item in zip(targets[start:], taken[start:], strict=True):
        rn.add_usage_map(snap.cqs[t.cq].node, item[1], 1)
    for k in range(start, len(targets)):
        rn.add_usage_map(snap.cqs[targets[k].cq].node, taken[k][1], -1)
        if _fits_fs(ctx):
            return targets[: k + 1]
    raise AssertionError("the workload fitted after all removals but not after the same removals again")


def _second_pass(
    ctx: PreemptionCtx, retry: dict[str, list[Item]], targets: list[Target]
) -> tuple[bool, list[Target]]:
    snap = ctx.snap
    if _siblings_only(ctx, retry):
        return _second_pass_siblings(ctx, retry, targets)
    ordering = _TargetOrdering(ctx, retry)
    shares = _Shares(ctx)
    for cq_name in ordering:
        target = snap.cqs[cq_name]
        new_share, old_share = shares.now(target)
        if new_share < old_share and _remove(
            ctx, ordering.pop(cq_name), target, IN_COHORT_FAIR_SHARING, targets
        ):
            return True, targets
        ordering.drop(cq_name)
    return False, targets


def _second_pass_siblings(
    ctx: PreemptionCtx, retry: dict[str, list[Item]], targets: list[Target]
) -> tuple[bool, list[Target]]:
    """`_second_pass` when `_siblings_only` holds, without `_TargetOrdering`.

    Each ClusterQueue is visited once (it is dropped after its turn), and a removal changes only
    the share of the ClusterQueue it is taken from, so the turns come in the order of the shares
    before the pass: highest first, ties by the first candidate's CandidatesOrdering key.
    ClusterQueues `_TargetOrdering` would prune (share zero, unless the preemptor's) get no turn.
    """
    snap = ctx.snap
    me = ctx.state
    turns = []
    for cq_name, items in retry.items():
        if not items:
            continue
        node = snap.cqs[cq_name].node
        share = dominant_share(node)
        if share[0] == 0 and node is not me.node:
            continue
        turns.append((-share[0], -share[1], candidate_order_key(items[0][0], cq_name, me.name), cq_name))
    turns.sort()
    new_share = dominant_share(me.node)
    for neg0, neg1, _, cq_name in turns:
        if new_share < (-neg0, -neg1) and _remove(
            ctx, retry[cq_name][0], snap.cqs[cq_name], IN_COHORT_FAIR_SHARING, targets
        ):
            return True, targets
    return False, targets


def _reachable(ctx: PreemptionCtx, sources: list[Source]) -> bool:
    """Could the two passes make room at all? (The incoming workload's usage is in the tree.)

    Unless the preemptor reclaims (its ClusterQueue is within nominal, or it has candidates of its
    own that could bring it there), a target ClusterQueue gives up candidates only while its side's
    share is at least the preemptor side's (both strategies require that, and taking candidates
    only lowers the target side's share). So when the workload would not fit even with every
    candidate of those ClusterQueues gone, both passes end without room: the same empty answer,
    without taking candidates one by one.
    """
    me = ctx.state
    if rn.within_nominal(me.node, ctx.frs) or any(src.state is me for src in sources):
        return True
    shares = _Shares(ctx)
    usage_of = ctx.snap.usage_of
    removals: list[tuple[rn.Node, Mapping[FR, int]]] = [(me.node, ctx.requests)]
    for src in sources:
        new_share, old_share = shares.now(src.state)
        if new_share <= old_share:
            removals.append((src.state.node, src.total_usage(usage_of)))
    shift = rn.removal_shift(removals)
    return all(v <= rn.cq_available(me.node, fr, shift) for fr, v in ctx.requests.items())


def fair_targets(ctx: PreemptionCtx, strategies: tuple[str, ...]) -> list[Target]:
    """fairPreemptions: victims chosen by fair-sharing strategies, or [] when it cannot fit."""
    if WHOLE_SOURCE_BOUND and not _fits_with_whole_sources_gone(ctx):
        return []
    sources = _sources(ctx)
    if not fits_if_all_evicted(ctx, sources):
        return []
    snap = ctx.snap
    rn.add_usage_map(ctx.state.node, ctx.requests, 1)
    if not _reachable(ctx, sources):  # (before the candidate lists are built: the same [] either way)
        rn.add_usage_map(ctx.state.node, ctx.requests, -1)
        return []
    cands = _candidates(sources)
    if not cands:
        rn.add_usage_map(ctx.state.node, ctx.requests, -1)
        return []
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
