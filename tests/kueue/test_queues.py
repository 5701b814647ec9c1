"""Queueing: heap order, StrictFIFO vs BestEffortFIFO, the inadmissible set and its requeue."""

from __future__ import annotations

from gpuplane.kueue import schedule_cycle

from .kueue_builders import admit, admitted_keys, cq, flavors, group, wl, world


def test_heap_orders_by_priority_then_creation_time() -> None:
    a = cq("a", group(("default", {"gpu": 1})))
    snap = world(
        [
            *flavors("default"),
            a,
            wl("old-low", "a", priority=0, t=0, gpu=1),
            wl("new-high", "a", priority=5, t=9, gpu=1),
            wl("old-high", "a", priority=5, t=1, gpu=1),
        ]
    )
    assert admitted_keys(schedule_cycle(snap)) == ["ns/old-high"]


def test_best_effort_fifo_parks_unfit_head_and_tries_next() -> None:
    a = cq("a", group(("default", {"gpu": 4})))
    snap = world(
        [
            *flavors("default"),
            a,
            admit(wl("run", "a", ns="x", gpu=3), "a", "default"),
            wl("big", "a", t=0, gpu=2),
            wl("small", "a", t=1, gpu=1),
        ]
    )
    schedule_cycle(snap)
    assert snap.where("ns/big") == "inadmissible"
    assert admitted_keys(schedule_cycle(snap)) == ["ns/small"]


def test_inadmissible_workloads_return_to_heap_when_quota_is_released() -> None:
    a = cq("a", group(("default", {"gpu": 4})))
    snap = world(
        [*flavors("default"), a, admit(wl("run", "a", ns="x", gpu=3), "a", "default"), wl("big", "a", gpu=2)]
    )
    schedule_cycle(snap)
    assert snap.where("ns/big") == "inadmissible"
    snap.finish("x/run")
    assert snap.where("ns/big") == "heap"
    assert admitted_keys(schedule_cycle(snap)) == ["ns/big"]


def test_release_in_cohort_requeues_inadmissible_of_every_cluster_queue_in_the_tree() -> None:
    a = cq("a", group(("default", {"gpu": 2})), cohort="c")
    b = cq("b", group(("default", {"gpu": 2})), cohort="c")
    snap = world(
        [*flavors("default"), a, b, admit(wl("run", "b", ns="x", gpu=4), "b", "default"), wl("w", "a", gpu=2)]
    )
    schedule_cycle(snap)
    assert snap.where("ns/w") == "inadmissible"
    snap.finish("x/run")
    assert snap.where("ns/w") == "heap"


def test_strict_fifo_requeues_head_immediately_and_it_blocks() -> None:
    a = cq("a", group(("default", {"gpu": 4})), strategy="StrictFIFO")
    snap = world(
        [
            *flavors("default"),
            a,
            admit(wl("run", "a", ns="x", gpu=3), "a", "default"),
            wl("big", "a", t=0, gpu=2),
            wl("small", "a", t=1, gpu=1),
        ]
    )
    for _ in range(3):
        assert admitted_keys(schedule_cycle(snap)) == []
        assert snap.where("ns/big") == "heap"


def test_equivalent_workloads_are_parked_together() -> None:
    a = cq("a", group(("default", {"gpu": 4})))
    snap = world(
        [
            *flavors("default"),
            a,
            admit(wl("run", "a", ns="x", gpu=4), "a", "default"),
            wl("w1", "a", t=0, gpu=2),
            wl("w2", "a", t=1, gpu=2),
            wl("other", "a", t=2, gpu=1),
        ]
    )
    schedule_cycle(snap)
    assert snap.where("ns/w1") == "inadmissible"
    assert snap.where("ns/w2") == "inadmissible"  # same shape: moved along (SchedulingEquivalenceHashing)
    assert snap.where("ns/other") == "heap"


def test_preemptor_becomes_sticky_head_of_best_effort_queue() -> None:
    a = cq("a", group(("default", {"gpu": 4})), within="LowerPriority")
    snap = world(
        [
            *flavors("default"),
            a,
            admit(wl("low", "a", ns="x", priority=0, gpu=4), "a", "default"),
            wl("preemptor", "a", priority=5, t=5, gpu=4),
            wl("urgent", "a", priority=9, t=6, gpu=4),
        ]
    )
    r = schedule_cycle(snap)  # urgent is the head: it preempts low
    assert [p.preemptor for p in r.preempted] == ["ns/urgent"]
    schedule_cycle(snap)
    assert snap.cqs["a"].queue.sticky == "ns/urgent"


def test_missing_local_queue_is_reported_not_crashing() -> None:
    from gpuplane.kueue import Snapshot
    from gpuplane.kueue.scheduler import pending_report

    snap = Snapshot.from_objects(
        [*flavors("default"), cq("a", group(("default", {"gpu": 1}))), wl("lost", "nope", gpu=1)]
    )
    schedule_cycle(snap)
    (p,) = pending_report(snap)
    assert p.queue == "inadmissible" and "LocalQueue ns/nope doesn't exist" in p.reason
