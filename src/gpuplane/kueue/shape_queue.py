"""A ClusterQueue's pending workloads grouped by request shape: parking and waking cost per group.

Same contract and same decisions as `queues.ClusterQueueQueue` (the reference, kept for the
differential tests): the head is the workload with the smallest queue-order key; a failed head's
whole shape group is set aside at once (SchedulingEquivalenceHashing, `park_equivalent`); a
release in the cohort tree moves every set-aside workload back (`requeue_inadmissible`).

What changes is the cost. Kueue's queue manager (`pkg/queue/cluster_queue.go`:
`QueueInadmissibleWorkloads` moves each inadmissible workload back into the heap one by one)
costs O(parked) per release; with a backlog of thousands behind a small cluster, that made each
finishing job cost as much as the backlog (issue 23: 6.6 million requeues for 82k jobs). Here the
workloads of one shape live in one group (its own heap); the ClusterQueue's heap orders the groups
by their smallest key, so setting a shape aside or bringing it back moves one object (merging two
groups of a shape moves the smaller into the larger), and popping a head costs O(log n).

Keys are the reference's: `queues.queue_order_key` (sticky flag, priority, queue-order time, UID,
key). The reference recomputes a workload's key whenever it is pushed back; of its parts only the
sticky flag can change while a workload is set aside (priority is fixed, the queue-order time
changes only on an eviction, which pushes anew), so waking re-keys just the workloads whose
sticky flag differs (at most two).

Why a release wakes every set-aside group, even one whose shortfall it cannot cover (issue 23,
Deliver 1 asked to requeue a group only when a release covers its shortfall). Kueue moves every
inadmissible workload of the cohort tree back on any release (v0.13.4 `pkg/queue/cluster_queue.go`
`QueueInadmissibleWorkloads`; v0.19.2 `pkg/cache/queue/inadmissible_workloads.go`
`queueInadmissibleWorkloads`), and the scheduler pops one head per ClusterQueue per cycle
(v0.19.2 `pkg/scheduler/scheduler.go` `schedule`). A woken head that fails again is not free of
consequence: it takes its ClusterQueue's turn in that cycle, so the workload behind it meets the
other ClusterQueues' heads one cycle later. Counter-example: one cohort of 4 GPUs, ClusterQueues
A and B with 2 nominal each, all 4 in use, no preemption, BestEffortFIFO. A has set aside a1 (8
GPUs, created t=1) and a2 (1 GPU, t=3); B has set aside b1 (1 GPU, t=2).
One of A's workloads ends: 1 GPU of A's nominal is free. Kueue: all three are woken; cycle 1's
heads are a1 (A's first) and b1; a1 can never fit (more than the cohort), b1 is admitted, borrowing A's free
GPU; cycle 2: a2 would fit A's nominal but the cohort is full and nothing may be preempted: it
waits. Waking only what the release covers: a2 and b1 are woken, a1 stays aside (8 GPUs are never
covered), so cycle 1's heads are a2 and b1, and the classical order puts the head that does not borrow first: a2 is
admitted and b1 waits, a different admission at the same instant
(tests/kueue/test_no_victims.py replays both). The cycle in which a failed head is looked at is
part of Kueue's decision, so a skip cannot be exact. What is exact is to let the head take its turn and spend less on its failure:
`kueue/no_victims.py` settles its preemption search without walking a candidate when none can
exist; its flavor assignment still runs (cheap) because the reasons it records quote live usage.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from typing import Any

from gpuplane.kueue.objects import Workload
from gpuplane.kueue.queues import HEAP, INADMISSIBLE, PendingQueue, Shape, queue_order_key, shape_of

Key = tuple[int, int, float, str, str]
#: (Key, sequence number, Workload) in a group's heap, and (Key, sequence number, Shape) in a
#: ClusterQueue's `_top`. Typed as variable-length tuples on purpose: the compiled twin (mypyc)
#: unboxes a fixed-length tuple type into its fields wherever one is read and boxes a new tuple
#: wherever one is passed on or stored (measured: a group's `peek` 88 vs 53 ns); a
#: variable-length one stays the one object the heap holds.
_Entry = tuple[Any, ...]
_Offer = tuple[Any, ...]


class _Group:
    """Workloads of one shape: a heap of entries with lazy deletion (`live` maps key -> entry seq)."""

    __slots__ = ("heap", "live")

    def __init__(self) -> None:
        self.heap: list[_Entry] = []
        self.live: dict[str, int] = {}

    def add(self, entry: _Entry) -> None:
        self.live[entry[2].key] = entry[1]
        heapq.heappush(self.heap, entry)

    def peek(self) -> _Entry | None:
        """The valid entry with the smallest key (stale ones on top are dropped)."""
        heap, live = self.heap, self.live
        while heap:
            top = heap[0]
            if live.get(top[2].key) == top[1]:
                return top
            heapq.heappop(heap)
        return None

    def remove(self, key: str) -> None:
        del self.live[key]
        heap, live = self.heap, self.live
        if len(heap) > 32 and len(heap) > 2 * len(live):
            self.heap = [e for e in heap if live.get(e[2].key) == e[1]]
            heapq.heapify(self.heap)

    def entries(self) -> Iterator[_Entry]:
        live = self.live
        return (e for e in self.heap if live.get(e[2].key) == e[1])

    def absorb(self, other: _Group) -> None:
        """Move every valid entry of `other` into this group (`other` is left as it was)."""
        live, heap = self.live, self.heap
        other_live = other.live
        for entry in other.heap:
            key = entry[2].key
            if other_live.get(key) == entry[1]:
                live[key] = entry[1]
                heapq.heappush(heap, entry)


class _ParkedView:
    """`len()` and truth of the set-aside workloads (what `Snapshot` and `eta` ask of `inadmissible`)."""

    __slots__ = ("_q",)

    def __init__(self, q: ShapeQueue) -> None:
        self._q = q

    def __len__(self) -> int:
        return self._q._n_parked

    def __bool__(self) -> bool:
        return self._q._n_parked > 0

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._q.where(key) == INADMISSIBLE


class ShapeQueue(PendingQueue):
    """The pending workloads of one ClusterQueue, grouped by shape (see the module docstring).

    `active` and `parked` are shared by all queues of a snapshot (`queues.PendingQueue`).

    Invariants (tests/kueue/test_shape_queue.py checks them after every operation):
    - every group of `_heap_groups` has its smallest valid entry in `_top`, except the one group
      `_deferred` names (the group a head was just popped from: its new smallest entry is offered
      only when a pop needs it, so a head that fails and takes its group aside costs no offer);
    - `_popped`, when set, is the entry of the last head popped, still physically at the top of
      its group's heap (stale: its key is not in `live`); any other operation clears it first.
      `park_shape` or `push` of that head right after the pop put that entry back (`live`) instead
      of a new one: same key (only the sticky flag can change a pending workload's key, and it is
      checked), so the same place in queue order (keys are unique: they end with the workload's key).
    """

    __slots__ = (
        "_deferred",
        "_deferred_shape",
        "_heap_groups",
        "_members",
        "_n_heap",
        "_n_parked",
        "_park_groups",
        "_popped",
        "_popped_group",
        "_popped_shape",
        "_seq",
        "_sticky_keyed",
        "_top",
    )

    def __init__(
        self, strategy: str, name: str = "", active: set[str] | None = None, parked: set[str] | None = None
    ) -> None:
        self.strategy = strategy
        self.name = name
        self.active = active if active is not None else set()
        self.parked = parked if parked is not None else set()
        self.sticky = None
        self._members: dict[str, Workload] = {}
        self._heap_groups: dict[Shape, _Group] = {}
        self._park_groups: dict[Shape, _Group] = {}
        self._top: list[_Offer] = []  # (group's smallest key, its seq, shape)
        self._n_heap = 0
        self._n_parked = 0
        self._sticky_keyed: set[str] = set()  # workloads whose entry carries the sticky flag
        self._seq = itertools.count()
        self._deferred: _Group | None = None
        self._deferred_shape: Shape = ()
        self._popped: _Entry | None = None
        self._popped_group: _Group | None = None
        self._popped_shape: Shape = ()
        self.inadmissible = _ParkedView(self)

    def __len__(self) -> int:
        return len(self._members)

    # ---- bookkeeping -------------------------------------------------------------------------
    def _entry(self, wl: Workload) -> _Entry:
        sticky = wl.key == self.sticky
        if sticky:
            self._sticky_keyed.add(wl.key)
        elif self._sticky_keyed:
            self._sticky_keyed.discard(wl.key)
        return (queue_order_key(wl, sticky), next(self._seq), wl)

    def _offer_top(self, shape: Shape, group: _Group) -> None:
        """Put the group's current smallest entry among the ClusterQueue's candidates."""
        top = group.peek()
        if top is not None:
            heapq.heappush(self._top, (top[0], top[1], shape))
            if len(self._top) > 64 and len(self._top) > 4 * len(self._heap_groups):
                self._rebuild_top()

    def _rebuild_top(self) -> None:
        fresh = []
        for shape, group in self._heap_groups.items():
            top = group.peek()
            if top is not None:
                fresh.append((top[0], top[1], shape))
        heapq.heapify(fresh)
        self._top = fresh
        self._deferred = None

    def _flush(self) -> None:
        """Offer the deferred group's smallest entry (if the group is still in the heap)."""
        group = self._deferred
        self._deferred = None
        shape = self._deferred_shape
        if group is not None and self._heap_groups.get(shape) is group:
            self._offer_top(shape, group)

    def _heap_count(self, delta: int) -> None:
        before = self._n_heap
        self._n_heap = before + delta
        if before == 0 and self._n_heap > 0:
            self.active.add(self.name)
        elif before > 0 and self._n_heap == 0:
            self.active.discard(self.name)

    def _parked_count(self, delta: int) -> None:
        before = self._n_parked
        self._n_parked = before + delta
        if before == 0 and self._n_parked > 0:
            self.parked.add(self.name)
        elif before > 0 and self._n_parked == 0:
            self.parked.discard(self.name)

    def _take(self, key: str) -> Workload | None:
        """Take `key` out of whichever group holds it; the workload, or None when it is not queued."""
        wl = self._members.pop(key, None)
        if wl is None:
            return None
        if self._sticky_keyed:
            self._sticky_keyed.discard(key)
        shape = shape_of(wl)
        group = self._heap_groups.get(shape)
        if group is not None and key in group.live:
            top = group.peek()
            group.remove(key)
            self._heap_count(-1)
            if not group.live:
                del self._heap_groups[shape]
            elif top is not None and top[2].key == key:
                self._offer_top(shape, group)
            return wl
        parked = self._park_groups[shape]
        parked.remove(key)
        self._parked_count(-1)
        if not parked.live:
            del self._park_groups[shape]
        return wl

    def _restorable(self, wl: Workload) -> _Entry | None:
        """The entry of `wl` popped just before (see the class docstring), when its key is unchanged."""
        popped = self._popped
        self._popped = None
        if popped is None or popped[2] is not wl:
            return None
        if (popped[0][0] == 0) != (wl.key == self.sticky):
            return None
        return popped

    # ---- the queue's contract (as queues.ClusterQueueQueue) -----------------------------------
    def push(self, wl: Workload) -> None:
        """Put a workload into the active heap (replacing any older entry for it)."""
        popped = self._restorable(wl)
        if popped is not None:
            group = self._popped_group
            assert group is not None
            key = wl.key
            group.live[key] = popped[1]
            if popped[0][0] == 0:
                self._sticky_keyed.add(key)
            self._members[key] = wl
            shape = self._popped_shape
            if self._heap_groups.get(shape) is not group:  # the pop emptied it
                self._heap_groups[shape] = group
                if self._deferred is not None:
                    self._flush()
                self._deferred = group  # (its smallest entry is the head's: offered when needed)
                self._deferred_shape = shape
            self._heap_count(1)
            return
        self._take(wl.key)
        self._insert(wl, self._entry(wl))

    def _insert(self, wl: Workload, entry: _Entry) -> None:
        self._members[wl.key] = wl
        shape = shape_of(wl)
        group = self._heap_groups.get(shape)
        if group is None:
            group = self._heap_groups[shape] = _Group()
            group.add(entry)
            heapq.heappush(self._top, (entry[0], entry[1], shape))
        else:
            top = group.peek()
            group.add(entry)
            if top is None or entry[0] < top[0]:
                heapq.heappush(self._top, (entry[0], entry[1], shape))
        self._heap_count(1)

    def park(self, wl: Workload) -> None:
        """Put a workload into the inadmissible set."""
        self._popped = None
        self._take(wl.key)
        self._members[wl.key] = wl
        shape = shape_of(wl)
        group = self._park_groups.get(shape)
        if group is None:
            group = self._park_groups[shape] = _Group()
        group.add(self._entry(wl))
        self._parked_count(1)

    def park_shape(self, wl: Workload) -> int:
        """`park(wl)` then `park_equivalent(wl)` (a failed head and its shape set aside); how many.

        Right after `pop` returned `wl`, its entry is put back into its group (see the class
        docstring) and the whole group moves aside as one object."""
        popped = self._restorable(wl)
        if popped is None:
            self.park(wl)
            return 1 + self.park_equivalent(wl)
        group = self._popped_group
        assert group is not None
        key = wl.key
        shape = self._popped_shape
        group.live[key] = popped[1]
        if popped[0][0] == 0:
            self._sticky_keyed.add(key)
        self._members[key] = wl
        n = len(group.live)
        if self._heap_groups.get(shape) is group:
            del self._heap_groups[shape]
            if self._deferred is group:
                self._deferred = None
            self._heap_count(1 - n)  # the others were in the heap; the head was not
        self._stash(shape, group, n)
        return n

    def _stash(self, shape: Shape, group: _Group, n: int) -> None:
        """Set aside `group` (`n` workloads, out of the heap already), merged with its shape's."""
        parked = self._park_groups.get(shape)
        if parked is None:
            self._park_groups[shape] = group
        elif len(parked.live) >= n:
            parked.absorb(group)
        else:
            group.absorb(parked)
            self._park_groups[shape] = group
        self._parked_count(n)

    def delete(self, key: str) -> None:
        """Forget a workload (admitted, finished or deleted)."""
        self._popped = None
        self._take(key)
        if self.sticky == key:
            self.sticky = None

    def pop(self) -> Workload | None:
        """Remove and return the head of the active heap."""
        self._popped = None
        if self._deferred is not None:
            self._flush()
        top, groups = self._top, self._heap_groups
        while top:
            offer = heapq.heappop(top)
            seq, shape = offer[1], offer[2]
            group = groups.get(shape)
            if group is None:
                continue
            head = group.peek()
            if head is None or head[1] != seq:
                continue
            wl: Workload = head[2]
            key = wl.key
            del group.live[key]  # (the entry stays on top of the group's heap, stale: `_popped`)
            del self._members[key]
            if self._sticky_keyed:
                self._sticky_keyed.discard(key)
            self._heap_count(-1)
            if group.live:
                self._deferred = group
                self._deferred_shape = shape
            else:
                del groups[shape]
            self._popped = head
            self._popped_group = group
            self._popped_shape = shape
            return wl
        return None

    def requeue_inadmissible(self) -> None:
        """Move every inadmissible workload back to the heap (capacity may have been freed)."""
        if not self._n_parked:
            return
        self._popped = None
        if self._sticky_keyed or self.sticky is not None:
            self._rekey()
        n_total = 0
        heap_groups = self._heap_groups
        for shape, parked in self._park_groups.items():
            n = len(parked.live)
            n_total += n
            group = heap_groups.get(shape)
            if group is None:
                group = heap_groups[shape] = parked
            elif len(group.live) >= n:
                group.absorb(parked)
            else:
                parked.absorb(group)
                group = heap_groups[shape] = parked
            self._offer_top(shape, group)
        self._park_groups.clear()
        self._parked_count(-self._n_parked)
        self._heap_count(n_total)

    def _rekey(self) -> None:
        """The reference pushes each set-aside workload anew, recomputing its key: re-key those whose
        sticky flag changed while they were set aside (the flag is the only part of the key that can)."""
        sticky = self.sticky
        suspects = set(self._sticky_keyed)
        if sticky is not None:
            suspects.add(sticky)
        rekey = []
        for key in sorted(suspects):
            wl = self._members.get(key)
            if wl is None or self.where(key) != INADMISSIBLE:
                continue
            if (key in self._sticky_keyed) != (key == sticky):
                rekey.append(wl)
        for wl in rekey:
            self._take(wl.key)
            self._insert(wl, self._entry(wl))

    def where(self, key: str) -> str | None:
        """`heap`, `inadmissible`, or None when the workload is not queued here."""
        wl = self._members.get(key)
        if wl is None:
            return None
        group = self._heap_groups.get(shape_of(wl))
        return HEAP if group is not None and key in group.live else INADMISSIBLE

    def park_equivalent(self, wl: Workload) -> int:
        """SchedulingEquivalenceHashing: park heap workloads shaped like `wl` (same fate); how many."""
        self._popped = None
        shape = shape_of(wl)
        group = self._heap_groups.pop(shape, None)
        if group is None:
            return 0
        if self._deferred is group:
            self._deferred = None
        n = len(group.live)
        self._heap_count(-n)
        self._stash(shape, group, n)
        return n

    def heap_workloads(self) -> Iterator[Workload]:
        """Workloads in the active heap, in queue order."""
        entries = [e for group in self._heap_groups.values() for e in group.entries()]
        entries.sort(key=lambda item: (item[0], item[1]))
        for _, _, wl in entries:
            yield wl
