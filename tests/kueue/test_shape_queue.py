"""`ShapeQueue` against the reference `ClusterQueueQueue`: any sequence of queue operations gives
the same heads, the same places (heap or inadmissible) and the same counts.

Operations are those the scheduler and the snapshot make: push (new or again), pop a head, park
it alone or with its shape (SchedulingEquivalenceHashing: `park` then `park_equivalent`, or
`park_shape` in one step), push it straight back (a head requeued to the heap), mark a workload
sticky (a preemptor waiting for its victims) or clear that, delete, and wake everything set aside.
After every operation the fast queue's own invariants are checked (`_check`).
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gpuplane.kueue.objects import PodSet, Workload
from gpuplane.kueue.queues import ClusterQueueQueue, shape_of
from gpuplane.kueue.shape_queue import ShapeQueue

Op = tuple[str, int]


def _workloads(n: int) -> list[Workload]:
    out = []
    for i in range(n):
        gpus = (1, 2, 4)[i % 3]
        w = Workload("ns", f"w{i}", "lq", priority=(0, 5)[i % 2], creation_time=float(i // 2))
        w.pod_sets = [PodSet("main", 1, {"nvidia.com/gpu": gpus * 1000})]
        out.append(w)
    return out


def _check(q: ShapeQueue | ClusterQueueQueue) -> None:
    """ShapeQueue's invariants (its class docstring); nothing for the reference."""
    if not isinstance(q, ShapeQueue):
        return
    live_heap = {k: g for g in q._heap_groups.values() for k in g.live}
    live_parked = {k: g for g in q._park_groups.values() for k in g.live}
    assert not set(live_heap) & set(live_parked)
    assert set(q._members) == set(live_heap) | set(live_parked)
    assert q._n_heap == len(live_heap) and q._n_parked == len(live_parked)
    assert (q.name in q.active) == (q._n_heap > 0)
    assert (q.name in q.parked) == (q._n_parked > 0)
    assert all(g.live for g in q._heap_groups.values()) and all(g.live for g in q._park_groups.values())
    offered = {(seq, shape) for _, seq, shape in q._top}
    for shape, group in q._heap_groups.items():
        for key, seq in group.live.items():  # every live entry is physically in its group's heap
            assert any(e[1] == seq and e[2].key == key for e in group.heap)
        top = min(group.entries())
        assert (top[1], shape) in offered or q._deferred is group
    if q._popped is not None:
        assert q._popped[2].key not in q._members  # stale, and still where it can be put back
        assert q._popped_group is not None and q._popped in q._popped_group.heap


def _apply(q: ShapeQueue | ClusterQueueQueue, ops: list[Op], wls: list[Workload]) -> list[object]:
    trace: list[object] = []
    for op, i in ops:
        wl = wls[i % len(wls)]
        if op == "push":
            q.push(wl)
        elif op == "pop":
            head = q.pop()
            trace.append(head.key if head else None)
            _check(q)
            if head is not None and i % 6 == 0:
                q.park(head)
            elif head is not None and i % 6 == 1:
                q.park(head)
                trace.append(q.park_equivalent(head))
            elif head is not None and i % 6 == 2:
                trace.append(q.park_shape(head))
            elif head is not None and i % 6 == 3:
                q.push(head)  # straight back (FailedAfterNomination, untried flavors, StrictFIFO)
            elif head is not None and i % 6 == 4:
                q.sticky = head.key  # PendingPreemption: sticky, then back into the heap
                q.push(head)
        elif op == "park":
            if q.where(wl.key) is not None:
                q.park(wl)
        elif op == "sticky":
            q.sticky = wl.key if i % 4 else None
        elif op == "delete":
            q.delete(wl.key)
        elif op == "wake":
            q.requeue_inadmissible()
        trace.append((len(q), len(q.inadmissible), bool(q.inadmissible), q.sticky))
        _check(q)
    trace.append([q.where(w.key) for w in wls])
    trace.append([w.key for w in q.heap_workloads()])
    while (head := q.pop()) is not None:
        trace.append(head.key)
    return trace


_OPS = st.lists(
    st.tuples(
        st.sampled_from(["push", "push", "pop", "pop", "park", "sticky", "delete", "wake"]),
        st.integers(0, 40),
    ),
    max_size=120,
)


@settings(max_examples=500, deadline=None)
@given(ops=_OPS)
@example(  # a sticky preemptor set aside with its shape, then unmarked: waking must re-key it
    ops=[
        ("push", 6),
        ("push", 3),
        ("sticky", 6),
        ("push", 6),
        ("pop", 1),
        ("sticky", 0),
        ("wake", 0),
        ("pop", 2),
    ]
)
@example(  # a head popped, marked sticky while out, then set aside with its shape: a new key
    ops=[("push", 0), ("push", 6), ("push", 3), ("sticky", 0), ("pop", 2), ("wake", 0), ("pop", 0)]
)
@example(  # the last of its shape popped (its group emptied) and pushed straight back
    ops=[("push", 0), ("push", 1), ("pop", 3), ("pop", 3), ("pop", 9), ("pop", 3)]
)
def test_same_decisions_as_the_reference_queue(ops: list[Op]) -> None:
    active_a: set[str] = set()
    active_b: set[str] = set()
    parked_a: set[str] = set()
    parked_b: set[str] = set()
    fast = _apply(ShapeQueue("BestEffortFIFO", "cq", active_a, parked_a), ops, _workloads(12))
    reference = _apply(ClusterQueueQueue("BestEffortFIFO", "cq", active_b, parked_b), ops, _workloads(12))
    assert fast == reference
    assert active_a == active_b
    assert parked_a == parked_b


def test_waking_a_thousand_set_aside_workloads_moves_their_groups_not_each_one() -> None:
    """Same-shape workloads set aside and woken cost per group (counted in heap pushes, not timed)."""
    q = ShapeQueue("BestEffortFIFO", "cq")
    wls = _workloads(3000)
    for w in wls:
        q.push(w)
    head = q.pop()
    assert head is not None
    q.park(head)
    assert q.park_equivalent(head) == 999  # the other 999 of its shape (every third workload)
    groups_before = len(q._heap_groups)
    q.requeue_inadmissible()
    assert len(q._heap_groups) == groups_before + 1 == 3
    assert len(q._top) <= 64  # candidates of the ClusterQueue's heap: one per group, plus a few stale
    assert q.pop() is head


def test_a_failed_head_goes_aside_with_its_shape_without_a_new_entry() -> None:
    """`park_shape` right after `pop` puts the head's own entry back (no new sequence number, no
    push onto its group's heap): the group moves aside as one object, its heap untouched."""
    q = ShapeQueue("BestEffortFIFO", "cq")
    wls = _workloads(9)  # shapes: 1, 2, 4 GPUs, three workloads each
    for w in wls:
        q.push(w)
    head = q.pop()
    assert head is not None and head.key == "ns/w1"  # priority 5 first; then creation time, UID
    group = q._heap_groups[shape_of(head)]
    heap_before = list(group.heap)
    seq = next(e[1] for e in heap_before if e[2] is head)
    assert q.park_shape(head) == 3
    assert q._park_groups[shape_of(head)] is group
    assert group.heap == heap_before and group.live[head.key] == seq
    assert q.where(head.key) == "inadmissible" and len(q.inadmissible) == 3
    q.requeue_inadmissible()
    assert q.pop() is head


def test_a_head_marked_sticky_while_popped_gets_its_new_key() -> None:
    """The entry is put back only while the key it carries is still the workload's: a head made
    the sticky preemptor between pop and requeue is keyed anew (it goes first in the heap)."""
    q = ShapeQueue("BestEffortFIFO", "cq")
    wls = _workloads(6)
    for w in wls:
        q.push(w)
    head = q.pop()
    assert head is not None
    q.sticky = head.key
    q.push(head)
    assert head.key in q._sticky_keyed
    entry = next(e for g in q._heap_groups.values() for e in g.entries() if e[2] is head)
    assert entry[0][0] == 0  # the sticky flag sorts first
    assert q.pop() is head
