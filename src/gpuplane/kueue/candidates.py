"""Preemption candidates without scanning every admitted workload.

Each ClusterQueue keeps, per set of (flavor, resource) pairs, its admitted workloads sorted by
the static part of Kueue's CandidatesOrdering (lower priority first, then most recently
admitted). A preemption policy then selects a prefix (bisect on priority), and the candidates
of many ClusterQueues are merged lazily, so a preemption attempt only touches the candidates
it actually tries. Caches are invalidated by the ClusterQueue's workload version.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.objects import FR, Workload
from gpuplane.kueue.snapshot import CQState, Snapshot

StaticKey = tuple[int, float, str, str]


def static_key(wl: Workload) -> StaticKey:
    """Priority ascending, most recently admitted first, then UID and name."""
    reserved = wl.quota_reserved_time if wl.quota_reserved_time is not None else math.inf
    return (wl.priority, -reserved, wl.uid, wl.key)


def admitted_using(snap: Snapshot, state: CQState, frs: frozenset[FR]) -> tuple[list[Workload], list[int]]:
    """Admitted workloads of `state` holding some fr in `frs`, sorted by `static_key`."""
    hit = state.cand_cache.get(frs)
    if hit is not None and hit[0] == state.wver:
        return hit[1], hit[2]
    usage = snap.usage_of
    lst = [w for w in state.workloads.values() if not frs.isdisjoint(usage.get(w.key, ()))]
    lst.sort(key=static_key)
    prios = [w.priority for w in lst]
    state.cand_cache[frs] = (state.wver, lst, prios)
    return lst, prios


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
    snap: Snapshot, state: CQState, frs: frozenset[FR], policy: str, incoming: Workload,
    lca: rn.Node | None = None, advantage: bool = False,
) -> Source | None:
    """The candidates of `state` that `policy` lets `incoming` preempt, or None."""
    if policy not in ("LowerPriority", "LowerOrNewerEqualPriority", "Any"):
        return None
    lst, prios = admitted_using(snap, state, frs)
    if policy == "LowerPriority":
        end = bisect_left(prios, incoming.priority)
    elif policy == "LowerOrNewerEqualPriority":
        end = bisect_right(prios, incoming.priority)
    else:
        end = len(lst)
    if end == 0:
        return None
    return Source(state, lca, advantage, lst, end, incoming, policy == "LowerOrNewerEqualPriority")


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
