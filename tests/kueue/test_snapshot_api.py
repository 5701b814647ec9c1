"""The mutable snapshot the simulator drives: add, finish, evict, release across cycles."""

from __future__ import annotations

from gpuplane.kueue import LocalQueue, Snapshot, pending_report, schedule_cycle
from tests.support.steps import python_steps

from .kueue_builders import admitted_keys, cq, flavors, group, wl, world


def _one_queue() -> Snapshot:
    lq = LocalQueue("ns", "a", "a")
    return world([*flavors("default"), lq, cq("a", group(("default", {"gpu": 4})), within="LowerPriority")])


def test_workloads_added_between_cycles_are_scheduled() -> None:
    snap = _one_queue()
    snap.add_workload(wl("w1", "a", t=1, gpu=2))
    assert admitted_keys(schedule_cycle(snap)) == ["ns/w1"]
    snap.add_workload(wl("w2", "a", t=2, gpu=2))
    snap.add_workload(wl("w3", "a", t=3, gpu=2))
    assert admitted_keys(schedule_cycle(snap)) == ["ns/w2"]
    assert admitted_keys(schedule_cycle(snap)) == []
    snap.finish("ns/w1")
    assert admitted_keys(schedule_cycle(snap)) == ["ns/w3"]


def test_evicted_by_timeout_goes_behind_newer_workloads() -> None:
    snap = _one_queue()
    snap.add_workload(wl("old", "a", t=1, gpu=4))
    schedule_cycle(snap)
    snap.add_workload(wl("newer", "a", t=5, gpu=4))
    snap.now = 10.0
    snap.evict("ns/old", "PodsReadyTimeout")
    assert snap.where("ns/old") == "heap"
    assert admitted_keys(schedule_cycle(snap)) == ["ns/newer"]  # old is requeued at t=10


def test_preempted_workload_keeps_its_place_in_the_queue() -> None:
    snap = _one_queue()
    snap.add_workload(wl("old", "a", t=1, gpu=4))
    schedule_cycle(snap)
    snap.add_workload(wl("newer", "a", t=5, gpu=4))
    snap.evict("ns/old", "Preempted")
    assert admitted_keys(schedule_cycle(snap)) == ["ns/old"]


def test_pending_report_explains_every_waiting_workload() -> None:
    snap = _one_queue()
    for i in range(3):
        snap.add_workload(wl(f"w{i}", "a", t=i, gpu=4))
    schedule_cycle(snap)
    report = {p.workload: p for p in pending_report(snap)}
    assert set(report) == {"ns/w1", "ns/w2"}
    assert "1 ahead of it" in report["ns/w2"].reason
    assert all(p.cluster_queue == "a" and p.queue == "heap" for p in report.values())


def _many_pending(n: int) -> Snapshot:
    """`n` pending workloads of one ClusterQueue, each its own shape (so SchedulingEquivalenceHashing
    parks only the head itself) and none fitting the quota of 4; one cycle already ran."""
    snap = _one_queue()
    for i in range(n):
        snap.add_workload(wl(f"w{i}", "a", t=i, gpu=5 + i))
    schedule_cycle(snap)
    return snap


def test_a_cycle_with_one_head_costs_the_same_with_1k_or_20k_pending() -> None:
    results: dict[int, list[int]] = {}

    def cycles(snap: Snapshot, n: int) -> None:
        results[n] = [schedule_cycle(snap).parked for _ in range(50)]

    small, big = _many_pending(1_000), _many_pending(20_000)
    steps_small = python_steps(lambda: cycles(small, 1_000))
    steps_big = python_steps(lambda: cycles(big, 20_000))
    # each cycle pops one head and parks it: the cycles did the same work on both snapshots
    assert results == {1_000: [1] * 50, 20_000: [1] * 50}
    assert [small.where(f"ns/w{i}") for i in (50, 51)] == ["inadmissible", "heap"]
    assert [big.where(f"ns/w{i}") for i in (50, 51)] == ["inadmissible", "heap"]
    # Python steps (calls + lines, not time): 20x the pending workloads, the same cost per cycle;
    # a cycle that looked at every pending workload would take > 19,000 more steps per cycle
    assert steps_small > 50
    assert steps_big <= steps_small * 1.05, (steps_small, steps_big)
