"""Per-ClusterQueue pending queues: an active heap plus an inadmissible set (kueue.md §3).

Heap order (`baseCompareFunc`): the sticky preemptor first (BestEffortFIFO), then higher
priority, earlier queue-order timestamp, then UID. Entries are removed lazily, so pushing,
popping and deleting are all O(log n).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator

from gpuplane.kueue.objects import Workload

HEAP = "heap"
INADMISSIBLE = "inadmissible"

_SEQ = itertools.count()

Shape = tuple[object, ...]


def shape_of(wl: Workload) -> Shape:
    """Scheduling-equivalence hash: pod sets' names, counts, requests, selectors, tolerations."""
    shape = wl.shape
    if shape is None:
        shape = wl.shape = tuple(
            (
                ps.name,
                ps.count,
                ps.min_count,
                tuple(sorted(ps.per_pod.items())),
                tuple(sorted(ps.node_selector.items())),
                ps.tolerations,
                ps.affinity_terms,
            )
            for ps in wl.pod_sets
        )
    return shape


def queue_order_key(wl: Workload, sticky: bool = False) -> tuple[int, int, float, str, str]:
    """Sort key of a pending workload inside its ClusterQueue."""
    return (0 if sticky else 1, -wl.priority, wl.order_time, wl.uid, wl.key)


class ClusterQueueQueue:
    """The pending workloads of one ClusterQueue.

    `active`, when given, is a set shared by all queues of a snapshot that holds the `name` of
    every queue whose heap is not empty, so a cycle finds its heads without looking at idle
    queues.
    """

    __slots__ = (
        "_by_shape",
        "_heap",
        "_live",
        "_shape",
        "active",
        "inadmissible",
        "name",
        "sticky",
        "strategy",
    )

    def __init__(self, strategy: str, name: str = "", active: set[str] | None = None) -> None:
        self.strategy = strategy
        self.name = name
        self.active: set[str] = active if active is not None else set()
        self._heap: list[tuple[tuple[int, int, float, str, str], int, Workload]] = []
        self._live: dict[str, int] = {}
        self._shape: dict[str, Shape] = {}
        self._by_shape: dict[Shape, dict[str, Workload]] = {}
        self.inadmissible: dict[str, Workload] = {}
        self.sticky: str | None = None

    def _dropped(self, key: str) -> None:
        """`key` left the heap: forget its live entry, and leave the active set when empty."""
        live = self._live
        if live.pop(key, None) is not None and not live:
            self.active.discard(self.name)

    def _unindex(self, key: str) -> None:
        shape = self._shape.pop(key, None)
        if shape is not None:
            group = self._by_shape.get(shape)
            if group is not None:
                group.pop(key, None)
                if not group:
                    del self._by_shape[shape]

    def __len__(self) -> int:
        return len(self._live) + len(self.inadmissible)

    def push(self, wl: Workload) -> None:
        """Put a workload into the active heap (replacing any older entry for it)."""
        self.inadmissible.pop(wl.key, None)
        seq = next(_SEQ)
        if not self._live:
            self.active.add(self.name)
        self._live[wl.key] = seq
        shape = shape_of(wl)
        self._unindex(wl.key)
        self._shape[wl.key] = shape
        self._by_shape.setdefault(shape, {})[wl.key] = wl
        heapq.heappush(self._heap, (queue_order_key(wl, wl.key == self.sticky), seq, wl))
        if len(self._heap) > 64 and len(self._heap) > 3 * len(self._live):
            self._heap = [e for e in self._heap if self._live.get(e[2].key) == e[1]]
            heapq.heapify(self._heap)

    def park(self, wl: Workload) -> None:
        """Put a workload into the inadmissible set."""
        self._dropped(wl.key)
        self._unindex(wl.key)
        self.inadmissible[wl.key] = wl

    def delete(self, key: str) -> None:
        """Forget a workload (admitted, finished or deleted)."""
        self._dropped(key)
        self._unindex(key)
        self.inadmissible.pop(key, None)
        if self.sticky == key:
            self.sticky = None

    def pop(self) -> Workload | None:
        """Remove and return the head of the active heap."""
        heap = self._heap
        while heap:
            _, seq, wl = heapq.heappop(heap)
            if self._live.get(wl.key) == seq:
                self._dropped(wl.key)
                self._unindex(wl.key)
                return wl
        return None

    def requeue_inadmissible(self) -> None:
        """Move every inadmissible workload back to the heap (capacity may have been freed)."""
        if not self.inadmissible:
            return
        parked = list(self.inadmissible.values())
        self.inadmissible.clear()
        for wl in parked:
            self.push(wl)

    def where(self, key: str) -> str | None:
        """`heap`, `inadmissible`, or None when the workload is not queued here."""
        if key in self._live:
            return HEAP
        if key in self.inadmissible:
            return INADMISSIBLE
        return None

    def park_equivalent(self, wl: Workload) -> int:
        """SchedulingEquivalenceHashing: park heap workloads shaped like `wl` (same fate); how many."""
        others = list(self._by_shape.get(shape_of(wl), {}).values())
        for other in others:
            self.park(other)
        return len(others)

    def heap_workloads(self) -> Iterator[Workload]:
        """Workloads in the active heap, in queue order."""
        live = [(k, s, w) for k, s, w in self._heap if self._live.get(w.key) == s]
        live.sort(key=lambda item: (item[0], item[1]))
        for _, _, wl in live:
            yield wl
