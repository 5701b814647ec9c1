"""The mutable snapshot the simulator drives: add, finish, evict, release across cycles."""

from __future__ import annotations

from gpuplane.kueue import LocalQueue, Snapshot, pending_report, schedule_cycle

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


def test_few_heads_cycle_is_cheap_with_many_pending() -> None:
    import time

    snap = _one_queue()
    for i in range(20_000):
        snap.add_workload(wl(f"w{i}", "a", t=i, gpu=8))  # never fits: stays pending
    schedule_cycle(snap)
    start = time.perf_counter()
    for _ in range(50):
        schedule_cycle(snap)
    per_cycle = (time.perf_counter() - start) / 50
    assert per_cycle < 0.05, per_cycle  # independent of the 20k pending workloads
