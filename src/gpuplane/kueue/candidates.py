"""Preemption candidates without scanning every admitted workload.

Each ClusterQueue keeps, per set of (flavor, resource) pairs, its admitted workloads sorted by
the static part of Kueue's CandidatesOrdering (lower priority first, then most recently
admitted). A preemption policy then selects a prefix (bisect on priority), and the candidates
of many ClusterQueues are merged lazily, so a preemption attempt only touches the candidates
it actually tries. Caches are invalidated by the ClusterQueue's workload version.

`borrowing_cqs` answers the other question of a classical search, which ClusterQueues of a cohort's
subtree are above nominal (Kueue's hierarchical candidate walk), from a scan kept while the usage
it read is unchanged: a scheduling cycle nominates every head against the same quota tree, and
the searches of heads in one cohort walk the same subtrees.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.candidate_lists import Item, SortedCandidates, SubtreeScan, static_key
from gpuplane.kueue.objects import FR, Workload
from gpuplane.kueue.snapshot import CQState, Snapshot


def sorted_candidates(snap: Snapshot, state: CQState, frs: frozenset[FR]) -> SortedCandidates:
    """The cached `SortedCandidates` of `state` for `frs` (rebuilt when its workloads change)."""
    hit = state.cand_cache.get(frs)
    if hit is not None and hit.wver == state.wver:
        return hit
    usage = snap.usage_of
    lst = [w for w in state.workloads.values() if not frs.isdisjoint(usage.get(w.key, ()))]
    lst.sort(key=static_key)
    hit = SortedCandidates(state.wver, lst, usage)
    state.cand_cache[frs] = hit
    return hit


@dataclass
class Source:
    """Candidates of one ClusterQueue allowed by a policy: a prefix of its sorted list."""

    state: CQState
    lca: rn.Node | None
    advantage: bool
    workloads: list[Workload]
    end: int
    incoming: Workload
    check_equal: bool
    sorted_: SortedCandidates

    # Written out: mypyc compiles this one; the one `dataclass` generates runs interpreted.
    def __init__(
        self,
        state: CQState,
        lca: rn.Node | None,
        advantage: bool,
        workloads: list[Workload],
        end: int,
        incoming: Workload,
        check_equal: bool,
        sorted_: SortedCandidates,
    ) -> None:
        self.state = state
        self.lca = lca
        self.advantage = advantage
        self.workloads = workloads
        self.end = end
        self.incoming = incoming
        self.check_equal = check_equal
        self.sorted_ = sorted_

    def allowed(self, wl: Workload) -> bool:
        """LowerOrNewerEqualPriority: equal priority only when the incoming one is older."""
        if self.check_equal and wl.priority == self.incoming.priority:
            return self.incoming.order_time < wl.order_time
        return True

    def any(self) -> bool:
        """Whether at least one candidate exists (evicted or not)."""
        if not self.check_equal:
            return self.end > 0
        return any(self.allowed(w) for w in self.workloads[: self.end])

    def total_usage(self, usage_of: dict[str, dict[FR, int]]) -> dict[FR, int]:
        """Summed usage of every candidate (evicted or not): the most this source can free."""
        if not self.check_equal:
            return self.sorted_.prefix(self.end)
        lo = bisect_left(self.sorted_.prios, self.incoming.priority, 0, self.end)
        total = dict(self.sorted_.prefix(lo))
        for w in self.workloads[lo : self.end]:
            if self.allowed(w):
                for fr, v in usage_of.get(w.key, {}).items():
                    total[fr] = total.get(fr, 0) + v
        return total

    def ordered_items(self) -> list[Item]:
        """Every candidate in CandidatesOrdering within this ClusterQueue: evicted ones first."""
        items = self.sorted_.items()[: self.end]
        if self.check_equal:
            items = [it for it in items if self.allowed(it[0])]
        if not self.state.evicted:  # no workload of this ClusterQueue is marked evicted
            return items
        active = [it for it in items if not it[0].evicted]
        return [it for it in items if it[0].evicted] + active

    def evicted(self) -> list[Workload]:
        """Evicted candidates (already told to leave, still holding quota)."""
        if not self.state.evicted:
            return []
        return [w for w in self.workloads[: self.end] if w.evicted and self.allowed(w)]

    def active(self) -> Iterator[Workload]:
        """Non-evicted candidates in order."""
        wls = self.workloads
        for i in range(self.end):
            w = wls[i]
            if not w.evicted and (not self.check_equal or self.allowed(w)):
                yield w


def source(
    snap: Snapshot,
    state: CQState,
    frs: frozenset[FR],
    policy: str,
    incoming: Workload,
    lca: rn.Node | None = None,
    advantage: bool = False,
) -> Source | None:
    """The candidates of `state` that `policy` lets `incoming` preempt, or None."""
    if policy not in ("LowerPriority", "LowerOrNewerEqualPriority", "Any"):
        return None
    hit = sorted_candidates(snap, state, frs)
    lst, prios = hit.workloads, hit.prios
    if policy == "LowerPriority":
        end = bisect_left(prios, incoming.priority)
    elif policy == "LowerOrNewerEqualPriority":
        end = bisect_right(prios, incoming.priority)
    else:
        end = len(lst)
    if end == 0:
        return None
    return Source(state, lca, advantage, lst, end, incoming, policy == "LowerOrNewerEqualPriority", hit)


def merged(sources: list[Source]) -> Iterator[tuple[Workload, Source]]:
    """Non-evicted candidates of several ClusterQueues, lazily merged in static order."""
    iters = [_tagged(s) for s in sources]
    if len(iters) == 1:
        return iters[0]
    return heapq.merge(*iters, key=lambda pair: static_key(pair[0]))


def _tagged(src: Source) -> Iterator[tuple[Workload, Source]]:
    for w in src.active():
        yield w, src


def evicted_sorted(sources: list[Source]) -> list[tuple[Workload, Source]]:
    """Evicted candidates of several ClusterQueues in static order."""
    out = [(w, s) for s in sources for w in s.evicted()]
    out.sort(key=lambda pair: static_key(pair[0]))
    return out


def borrowing_cqs(snap: Snapshot, cur: rn.Node, skip: rn.Node | None, frs: frozenset[FR]) -> list[rn.Node]:
    """The ClusterQueues of `cur`'s subtree (not under its child `skip`) that Kueue's hierarchical
    walk takes candidates from: above nominal in some of `frs`, reached through cohorts above their
    subtree quota in some of `frs`; child cohorts' ClusterQueues first (depth first), then `cur`'s
    own, in tree order (`preemption._collect_in_subtree` without the per-ClusterQueue policy; Kueue:
    `pkg/scheduler/preemption/classical/hierarchical_preemption.go: collectCandidatesInSubtree`,
    read at commit 01c0b27050, which checks `IsWithinNominalInResources` on the same usage).

    The preemptor's own ClusterQueue may be in the list (the caller leaves it out). Kept per
    (cur, skip, frs) in `snap.subtree_scans` and used again while every node it read still has
    the same usage version.
    """
    return _kept_scan(snap, cur, skip, frs).cqs


def _kept_scan(snap: Snapshot, cur: rn.Node, skip: rn.Node | None, frs: frozenset[FR]) -> SubtreeScan:
    key = (cur, skip, frs)
    hit = snap.subtree_scans.get(key)
    if hit is not None and hit.valid():
        return hit
    checked: list[rn.Node] = []
    cqs: list[rn.Node] = []
    _scan(cur, skip, frs, checked, cqs)
    if hit is not None and SCAN_REUSE and _same_nodes(hit.cqs, cqs):
        # Usage changed (often a search's removals, undone since) but the walk found the same
        # ClusterQueues: the kept sources stay (each checks its ClusterQueues' `wver` before use).
        hit.refresh(checked)
        return hit
    hit = SubtreeScan(checked, cqs)
    snap.subtree_scans[key] = hit
    return hit


#: Whether a subtree scan whose usage versions changed but whose walk finds the same ClusterQueues
#: again keeps its `cohort_sources` lists (off in the reference engine, `kueue.reference`).
SCAN_REUSE = True


def use_scan_reuse(on: bool) -> None:
    """Keep a rescanned subtree's sources when its ClusterQueues are the same (`on`, the default)."""
    global SCAN_REUSE
    SCAN_REUSE = on


def _same_nodes(a: list[rn.Node], b: list[rn.Node]) -> bool:
    if len(a) != len(b):
        return False
    for i, n in enumerate(a):  # noqa: SIM110 (a plain loop: no generator on this hot path)
        if n is not b[i]:
            return False
    return True


def cohort_sources(
    snap: Snapshot,
    cur: rn.Node,
    skip: rn.Node | None,
    frs: frozenset[FR],
    policy: str,
    incoming: Workload,
    advantage: bool,
    exclude: rn.Node,
) -> list[Source]:
    """`source(..., policy, incoming, cur, advantage)` for each of `borrowing_cqs(snap, cur, skip,
    frs)` but `exclude` (the preemptor's ClusterQueue), the ones with candidates, in that order.

    With policy LowerPriority or Any the sources depend on the incoming workload's priority only
    (Kueue's `priorityTooHighToPreempt` in hierarchical_preemption.go reads the queue timestamp for
    LowerOrNewerEqualPriority alone), so they are kept with the scan per (policy, priority,
    advantage) while no ClusterQueue of the scan changed its workloads (its `wver`); the returned
    list is shared, not to be changed.
    """
    scan = _kept_scan(snap, cur, skip, frs)
    nodes = scan.cqs
    if not nodes:
        return []
    cqs = snap.cqs
    if policy not in ("LowerPriority", "Any"):  # (LowerOrNewerEqualPriority reads the queue time too)
        out: list[Source] = []
        for n in nodes:
            if n is not exclude:
                src = source(snap, cqs[n.name], frs, policy, incoming, cur, advantage)
                if src is not None:
                    out.append(src)
        return out
    key = (policy, incoming.priority, advantage)
    kept = scan.sources.get(key)
    lst: list[Source] | None = None
    if kept is not None:
        wvers = kept[0]
        lst = kept[1]
        for i, n in enumerate(nodes):
            if cqs[n.name].wver != wvers[i]:
                lst = None
                break
    if lst is None:
        lst = []
        wvers = []
        for n in nodes:
            state = cqs[n.name]
            wvers.append(state.wver)
            src = source(snap, state, frs, policy, incoming, cur, advantage)
            if src is not None:
                lst.append(src)
        scan.sources[key] = (wvers, lst)
    for src in lst:
        if src.state.node is exclude:
            return [s for s in lst if s.state.node is not exclude]
    return lst


def _scan(
    current: rn.Node, skip: rn.Node | None, frs: frozenset[FR], checked: list[rn.Node], out: list[rn.Node]
) -> None:
    for child in current.child_cohorts:
        if child is skip:
            continue
        checked.append(child)
        if not rn.within_nominal(child, frs):
            _scan(child, skip, frs, checked, out)
    for child_cq in current.child_cqs:
        checked.append(child_cq)
        if not rn.within_nominal(child_cq, frs):
            out.append(child_cq)
