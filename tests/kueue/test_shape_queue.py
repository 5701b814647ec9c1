"""`ShapeQueue` against the reference `ClusterQueueQueue`: any sequence of queue operations gives
the same heads, the same places (heap or inadmissible) and the same counts.

Operations are those the scheduler and the snapshot make: push (new or again), pop a head, park
it alone or with its shape (SchedulingEquivalenceHashing), mark a workload sticky (a preemptor
waiting for its victims) or clear that, delete, and wake everything set aside.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gpuplane.kueue.objects import PodSet, Workload
from gpuplane.kueue.queues import ClusterQueueQueue
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


def _apply(q: ShapeQueue | ClusterQueueQueue, ops: list[Op], wls: list[Workload]) -> list[object]:
    trace: list[object] = []
    for op, i in ops:
        wl = wls[i % len(wls)]
        if op == "push":
            q.push(wl)
        elif op == "pop":
            head = q.pop()
            trace.append(head.key if head else None)
            if head is not None and i % 3 == 0:
                q.park(head)
            elif head is not None and i % 3 == 1:
                q.park(head)
                trace.append(q.park_equivalent(head))
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


@settings(max_examples=300, deadline=None)
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
def test_same_decisions_as_the_reference_queue(ops: list[Op]) -> None:
    active_a: set[str] = set()
    active_b: set[str] = set()
    fast = _apply(ShapeQueue("BestEffortFIFO", "cq", active_a), ops, _workloads(12))
    reference = _apply(ClusterQueueQueue("BestEffortFIFO", "cq", active_b), ops, _workloads(12))
    assert fast == reference
    assert active_a == active_b


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
