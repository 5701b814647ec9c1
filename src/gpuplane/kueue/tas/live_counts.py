"""Incremental TAS placement for the common case: an unconstrained pod set on the live usage.

`FlavorTopology.find` (Kueue's `findTopologyAssignment`) counts the pods that fit in every leaf of
the flavor and adds them up the tree on each placement. For a pod set placed at the lowest level
with LeastFreeCapacity (`unconstrained`, or TAS implied by a TAS-only ClusterQueue) and no slices,
the answer depends on the leaves only:

- some leaf holds every pod: the first in ascending (count, values) order with count >= pods
  (`findLevelWithFitDomains`' LeastFreeCapacity pick), that leaf gets all pods;
- otherwise the leaves are taken in the same ascending order until they hold the pods (Kueue's
  greedy spread at the lowest level, `updateCountsToMinimumGeneric`), the last one gets the rest.

`LeafCounts` keeps, per pod shape, each feasible leaf's count on the live usage and the leaves in
that order, updated only for the leaves `TASState.changes` names since its last use (admissions,
finishes, a preemption search's what-ifs). When the flavor's leaves together cannot hold the pods
(a cheap exact bound: the sum of counts) it answers None and `FlavorTopology.find` runs the full
algorithm, which fails with Kueue's message and its arithmetic. The assignments are the full
algorithm's, exactly: `tests/kueue/test_tas_incremental.py` compares the two on random trees and
sequences of usage changes.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpuplane.kueue.tas.placement import Domain, LeafKey

_BIG = 1 << 31

Entry = tuple[int, tuple[str, ...], "Domain"]


def leaf_count(
    free: Mapping[str, int], used: Mapping[str, int] | None, items: Sequence[tuple[str, int]]
) -> int:
    """How many pods of per-pod requests `items` fit in `free` minus `used` (`_fill`'s arithmetic)."""
    best = -1
    for res, q in items:
        if q == 0:
            n = _BIG
        else:
            have = free.get(res, 0)
            if used:
                have -= used.get(res, 0)
            n = have // q if have > 0 else 0
        if best < 0 or n < best:
            best = n
    return best if best > 0 else 0


class LeafCounts:
    """Pods of one shape that fit in each feasible leaf, on the live usage, kept in placement order."""

    __slots__ = ("by_key", "count", "entries", "items", "pos", "total")

    def __init__(
        self,
        leaves: Sequence[Domain],
        items: tuple[tuple[str, int], ...],
        usage: Mapping[LeafKey, Mapping[str, int]],
        changes: Sequence[LeafKey],
    ) -> None:
        self.items = items
        self.by_key: dict[LeafKey, Domain] = {leaf.key: leaf for leaf in leaves}
        self.count: dict[LeafKey, int] = {}
        #: (count, values, leaf) of every leaf with room for a pod, ascending: LeastFreeCapacity order.
        self.entries: list[Entry] = []
        self.total = 0
        self.pos = len(changes)
        for leaf in leaves:
            self._set(leaf, leaf_count(leaf.free, usage.get(leaf.key), items))

    def _set(self, leaf: Domain, n: int) -> None:
        old = self.count.get(leaf.key, 0)
        if old == n and leaf.key in self.count:
            return
        entries = self.entries
        if old > 0:
            i = bisect_left(entries, (old, leaf.values))
            del entries[i]
        self.count[leaf.key] = n
        self.total += n - old
        if n > 0:
            insort(entries, (n, leaf.values, leaf))

    def sync(self, usage: Mapping[LeafKey, Mapping[str, int]], changes: Sequence[LeafKey]) -> None:
        """Recount the leaves whose usage changed since the last call."""
        end = len(changes)
        if self.pos == end:
            return
        keys = set(changes[self.pos : end]) if end - self.pos <= len(self.by_key) else set(self.by_key)
        self.pos = end
        by_key, items = self.by_key, self.items
        for key in keys:
            leaf = by_key.get(key)
            if leaf is not None:
                self._set(leaf, leaf_count(leaf.free, usage.get(key), items))

    def pick(self, pods: int) -> list[tuple[Domain, int]] | None:
        """The leaves and pods per leaf of Kueue's lowest-level LeastFreeCapacity placement, or None
        when the leaves cannot hold `pods` together (the full algorithm then says why)."""
        if pods <= 0 or self.total < pods:
            return None
        entries = self.entries
        i = bisect_left(entries, (pods,))
        if i < len(entries):
            return [(entries[i][2], pods)]
        out: list[tuple[Domain, int]] = []
        remaining = pods
        for n, _, leaf in entries:
            if n >= remaining:
                out.append((leaf, remaining))
                return out
            out.append((leaf, n))
            remaining -= n
        return None
