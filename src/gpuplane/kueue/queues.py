"""Per-ClusterQueue pending queues: an active heap plus an inadmissible set (kueue.md §3).

Heap order (`baseCompareFunc`): the sticky preemptor first (BestEffortFIFO), then higher
priority, earlier queue-order timestamp, then UID. Entries are removed lazily, so pushing,
popping and deleting are all O(log n).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator, Sized

from gpuplane.kueue.objects import Workload

HEAP = "heap"
INADMISSIBLE = "inadmissible"

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


class PendingQueue:
    """What the scheduler and the snapshot ask of a ClusterQueue's pending queue: the interface of
    `ClusterQueueQueue` (the reference) and `shape_queue.ShapeQueue` (the engine's).

    One base class (not a union of the two) so the compiled twin calls its methods through a
    vtable instead of a generic attribute lookup. `active` and `parked` are sets shared by all
    queues of a snapshot: the `name` of every queue whose heap is not empty, and of every queue
    with workloads set aside as inadmissible (what a release wakes: `Snapshot._notify`).
    """

    __slots__ = ("active", "inadmissible", "name", "parked", "sticky", "strategy")

    strategy: str
    name: str
    sticky: str | None
    active: set[str]
    parked: set[str]
    #: The set-aside workloads: `len()` and truth (what `Snapshot` and `eta` ask of it).
    inadmissible: Sized

    def __len__(self) -> int:
        raise NotImplementedError

    def push(self, wl: Workload) -> None:
        """Put a workload into the active heap (replacing any older entry for it)."""
        raise NotImplementedError

    def park(self, wl: Workload) -> None:
        """Put a workload into the inadmissible set."""
        raise NotImplementedError

    def park_equivalent(self, wl: Workload) -> int:
        """SchedulingEquivalenceHashing: park heap workloads shaped like `wl` (same fate); how many."""
        raise NotImplementedError

    def park_shape(self, wl: Workload) -> int:
        """`park(wl)` then `park_equivalent(wl)`: a head that failed, set aside with every heap
        workload of its shape; how many were set aside (the head included)."""
        self.park(wl)
        return 1 + self.park_equivalent(wl)

    def delete(self, key: str) -> None:
        """Forget a workload (admitted, finished or deleted)."""
        raise NotImplementedError

    def pop(self) -> Workload | None:
        """Remove and return the head of the active heap."""
        raise NotImplementedError

    def requeue_inadmissible(self) -> None:
        """Move every inadmissible workload back to the heap (capacity may have been freed)."""
        raise NotImplementedError

    def where(self, key: str) -> str | None:
        """`heap`, `inadmissible`, or None when the workload is not queued here."""
        raise NotImplementedError

    def heap_workloads(self) -> Iterator[Workload]:
        """Workloads in the active heap, in queue order."""
        raise NotImplementedError


class ClusterQueueQueue(PendingQueue):
    """The pending workloads of one ClusterQueue (the reference: Kueue's one-by-one requeue).

    `active`, when given, is a set shared by all queues of a snapshot that holds the `name` of
    every queue whose heap is not empty, so a cycle finds its heads without looking at idle
    queues; `parked`, likewise, of every queue with workloads set aside. `_live` maps each
    workload in the heap to its current entry (sequence number) and its shape; `_by_shape` groups
    those workloads by shape (for SchedulingEquivalenceHashing).
    """

    __slots__ = ("_by_shape", "_heap", "_live", "_parked", "_seq")

    def __init__(
        self, strategy: str, name: str = "", active: set[str] | None = None, parked: set[str] | None = None
    ) -> None:
        self.strategy = strategy
        self.name = name
        self.active = active if active is not None else set()
        self.parked = parked if parked is not None else set()
        self._heap: list[tuple[tuple[int, int, float, str, str], int, Workload]] = []
        self._live: dict[str, tuple[int, Shape]] = {}
        self._by_shape: dict[Shape, dict[str, Workload]] = {}
        self._parked: dict[str, Workload] = {}
        self.inadmissible = self._parked
        self.sticky = None
        self._seq = itertools.count()  # entry numbers: only ever compared within this heap

    def _drop(self, key: str) -> bool:
        """Take `key` out of the heap's live entries and its shape group; False when it was not there."""
        live = self._live
        entry = live.pop(key, None)
        if entry is None:
            return False
        if not live:
            self.active.discard(self.name)
        group = self._by_shape[entry[1]]
        del group[key]
        if not group:
            del self._by_shape[entry[1]]
        return True

    def _unpark(self, key: str) -> None:
        parked = self._parked
        if parked and parked.pop(key, None) is not None and not parked:
            self.parked.discard(self.name)

    def __len__(self) -> int:
        return len(self._live) + len(self._parked)

    def push(self, wl: Workload) -> None:
        """Put a workload into the active heap (replacing any older entry for it)."""
        key = wl.key
        self._unpark(key)
        live = self._live
        if key in live:
            self._drop(key)
        elif not live:
            self.active.add(self.name)
        seq = next(self._seq)
        shape = shape_of(wl)
        live[key] = (seq, shape)
        group = self._by_shape.get(shape)
        if group is None:
            self._by_shape[shape] = {key: wl}
        else:
            group[key] = wl
        heap = self._heap
        heapq.heappush(heap, (queue_order_key(wl, key == self.sticky), seq, wl))
        if len(heap) > 64 and len(heap) > 3 * len(live):
            self._heap = [e for e in heap if (live.get(e[2].key) or _NO_ENTRY)[0] == e[1]]
            heapq.heapify(self._heap)

    def park(self, wl: Workload) -> None:
        """Put a workload into the inadmissible set."""
        self._drop(wl.key)
        if not self._parked:
            self.parked.add(self.name)
        self._parked[wl.key] = wl

    def delete(self, key: str) -> None:
        """Forget a workload (admitted, finished or deleted)."""
        self._drop(key)
        self._unpark(key)
        if self.sticky == key:
            self.sticky = None

    def pop(self) -> Workload | None:
        """Remove and return the head of the active heap."""
        heap, live = self._heap, self._live
        while heap:
            _, seq, wl = heapq.heappop(heap)
            entry = live.get(wl.key)
            if entry is not None and entry[0] == seq:
                self._drop(wl.key)
                return wl
        return None

    def requeue_inadmissible(self) -> None:
        """Move every inadmissible workload back to the heap (capacity may have been freed)."""
        if not self._parked:
            return
        parked = list(self._parked.values())
        self._parked.clear()
        self.parked.discard(self.name)
        for wl in parked:
            self.push(wl)

    def where(self, key: str) -> str | None:
        """`heap`, `inadmissible`, or None when the workload is not queued here."""
        if key in self._live:
            return HEAP
        if key in self._parked:
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
        live = self._live
        entries = [(k, s, w) for k, s, w in self._heap if (live.get(w.key) or _NO_ENTRY)[0] == s]
        entries.sort(key=lambda item: (item[0], item[1]))
        for _, _, wl in entries:
            yield wl


_NO_ENTRY: tuple[int, Shape] = (-1, ())
