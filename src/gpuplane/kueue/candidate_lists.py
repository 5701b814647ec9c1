"""One ClusterQueue's admitted workloads in the static part of Kueue's CandidatesOrdering.

Kept per ClusterQueue and per set of (flavor, resource) pairs by the snapshot (`CQState.cand_cache`)
and used by `candidates` to select preemption candidates; this module depends on the API objects
only, so the snapshot can hold these lists without importing the candidate selection.

`SubtreeScan` is the same kind of memo one level up: which ClusterQueues of a cohort's subtree are
above nominal (the only ones a reclaim in the cohort may take from), kept per (cohort, skipped
child, frs) by the snapshot (`Snapshot.subtree_scans`) and checked against the quota tree's usage
versions before each use.
"""

from __future__ import annotations

import math
from typing import Any

from gpuplane.kueue.objects import FR, Workload
from gpuplane.kueue.resource_node import Node

StaticKey = tuple[int, float, str, str]


def static_key(wl: Workload) -> StaticKey:
    """Priority ascending, most recently admitted first, then UID and name."""
    reserved = wl.quota_reserved_time if wl.quota_reserved_time is not None else math.inf
    return (wl.priority, -reserved, wl.uid, wl.key)


Item = tuple[Workload, dict[FR, int], tuple[tuple[FR, int], ...]]
"""A candidate with its usage and that usage as a hashable shape (equal shapes, equal effect)."""


class SortedCandidates:
    """One ClusterQueue's admitted workloads holding some of a set of frs, in static order.

    Built on first use: `items` pairs each workload with its usage and usage shape, and
    `prefix(i)` is the summed usage of the first `i` workloads (cached per `i`: a policy
    selects the same prefix again and again), so the total a policy could free is one lookup.
    """

    __slots__ = ("_items", "_prefix", "_usage_of", "prios", "workloads", "wver")

    def __init__(self, wver: int, workloads: list[Workload], usage_of: dict[str, dict[FR, int]]) -> None:
        self.wver = wver
        self.workloads = workloads
        self.prios = [w.priority for w in workloads]
        self._usage_of = usage_of
        self._items: list[Item] | None = None
        self._prefix: dict[int, dict[FR, int]] = {}

    def items(self) -> list[Item]:
        """(workload, usage, shape) for every workload, in order."""
        if self._items is None:
            usage_of = self._usage_of
            shapes: dict[tuple[tuple[FR, int], ...], tuple[tuple[FR, int], ...]] = {}
            items = []
            for w in self.workloads:
                u = usage_of.get(w.key, {})
                shape = tuple(u.items())
                items.append((w, u, shapes.setdefault(shape, shape)))  # equal shapes: one tuple kept
            self._items = items
        return self._items

    def prefix(self, end: int) -> dict[FR, int]:
        """Summed usage of `workloads[:end]`, cached per `end` (do not modify the returned map)."""
        total = self._prefix.get(end)
        if total is None:
            total = {}
            usage_of = self._usage_of
            for w in self.workloads[:end]:
                for fr, v in usage_of.get(w.key, {}).items():
                    total[fr] = total.get(fr, 0) + v
            self._prefix[end] = total
        return total


class SubtreeScan:
    """The ClusterQueues of a cohort's subtree above nominal in some of a set of frs (the ones a
    reclaim may take from), found by Kueue's walk, with the usage versions it read.

    `checked` and `vers` are every node whose usage the walk looked at and its `ver` then
    (`resource_node.add_usage` bumps a node's `ver` on every usage change), so the scan stays
    exact for as long as `valid()`: nothing it read has changed since.
    """

    __slots__ = ("checked", "cqs", "sources", "vers")

    def __init__(self, checked: list[Node], cqs: list[Node]) -> None:
        self.checked = checked
        self.vers = [n.ver for n in checked]
        self.cqs = cqs
        #: `candidates.cohort_sources` per (policy, incoming priority, advantage): the workload
        #: versions of `cqs`' ClusterQueues it was built at, and the sources (typed there).
        self.sources: dict[tuple[str, int, bool], tuple[list[int], Any]] = {}

    def refresh(self, checked: list[Node]) -> None:
        """Take a new walk's nodes and their versions, when it found the same `cqs` (the kept
        `sources` depend on `cqs` and their ClusterQueues' workload versions only)."""
        self.checked = checked
        self.vers = [n.ver for n in checked]

    def valid(self) -> bool:
        """Whether no node the scan read has changed its usage since."""
        vers = self.vers
        for i, n in enumerate(self.checked):  # noqa: SIM110 (a plain loop: no generator on this hot path)
            if n.ver != vers[i]:
                return False
        return True
