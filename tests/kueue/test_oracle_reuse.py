"""The oracle's searches reused (issue 23): an empty single-resource search answering the same
search with the pod set's other requests (`assignment._more_requests_find_none`), and a cohort
subtree's candidate lists kept when a rescan finds the same ClusterQueues
(`candidates.use_scan_reuse`). Hand cases from Kueue's QuantitiesFitInQuota walk
(pkg/scheduler/preemption/classical/hierarchical_preemption.go), invalidation cases for the kept
lists, and the `explain --eta` estimates with each reuse on and off compared byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gpuplane.kueue import assignment, candidates
from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.assignment import _more_requests_find_none
from gpuplane.kueue.candidates import cohort_sources
from gpuplane.kueue.objects import FR
from gpuplane.kueue.snapshot import Snapshot
from tests.support import differential as diff
from tests.support.kueue_clusters import build_cluster

from .kueue_builders import admit, cohort, cq, flavors, group, wl, world

GPU: FR = ("a", "gpu")
CPU: FR = ("a", "cpu")
K = 1000  # quantities are kept in thousandths


@pytest.fixture(autouse=True)
def _switches_back() -> Iterator[None]:
    yield
    assignment.use_oracle_reuse(True)
    candidates.use_scan_reuse(True)


def _team(reclaim: str = "Any", cpu_used: int = 3) -> Snapshot:
    """Cohort c (root) with t1 (4 GPUs, 4 cpus nominal; holds a 0-GPU job using `cpu_used` cpus)
    and t2 (the same quota, empty)."""
    return world(
        [
            *flavors("a"),
            cohort("c"),
            cq("t1", group(("a", {"gpu": 4, "cpu": 4})), cohort="c", within="LowerPriority", reclaim=reclaim),
            cq("t2", group(("a", {"gpu": 4, "cpu": 4})), cohort="c"),
            admit(wl("cpu-job", "t1", gpu=0, cpu=cpu_used), "t1", "a", reserved_at=1.0),
        ]
    )


def test_the_other_request_not_fitting_where_the_gpus_do_changes_the_advantage() -> None:
    # 4 GPUs fit in t1's quota (the advantage holds from t1 up); 2 more cpus do not (3 + 2 > 4):
    # with both requests the chain differs, so the empty GPU search cannot answer.
    snap = _team()
    t1 = snap.cqs["t1"]
    assert t1.node.usage.get(CPU, 0) == 3 * K
    assert not _more_requests_find_none(t1, GPU, 4 * K, {GPU: 4 * K, CPU: 2 * K})
    # 1 more cpu fits (3 + 1 <= 4): the same chain, the answer stands.
    assert _more_requests_find_none(t1, GPU, 4 * K, {GPU: 4 * K, CPU: 1 * K})


def test_no_advantage_below_the_root_or_no_reclaim_keeps_the_answer() -> None:
    snap = _team()
    t1 = snap.cqs["t1"]
    # 6 GPUs do not fit in t1 (4); the cohort is the root, where no candidates are collected after
    # its own check: neither request has the advantage anywhere, whatever the cpus.
    assert _more_requests_find_none(t1, GPU, 6 * K, {GPU: 6 * K, CPU: 2 * K})
    # reclaimWithinCohort Never: no hierarchical collection at all.
    never = _team(reclaim="Never").cqs["t1"]
    assert _more_requests_find_none(never, GPU, 4 * K, {GPU: 4 * K, CPU: 2 * K})


def test_the_chain_is_read_at_the_first_level_where_the_gpus_fit() -> None:
    # Nested: root { sub { t1, t2 } }; t1 uses 4 of its 4 GPUs, so 2 GPUs fit first at sub (8).
    snap = world(
        [
            *flavors("a"),
            cohort("root"),
            cohort("sub", parent="root"),
            cq("t1", group(("a", {"gpu": 4, "cpu": 4})), cohort="sub", within="LowerPriority", reclaim="Any"),
            cq("t2", group(("a", {"gpu": 4, "cpu": 4})), cohort="sub"),
            admit(wl("run", "t1", gpu=4, cpu=4), "t1", "a", reserved_at=1.0),
            admit(wl("other", "t2", gpu=0, cpu=3), "t2", "a", reserved_at=1.0),
        ]
    )
    t1 = snap.cqs["t1"]
    # cpus: t1 is full (4 + 1 > 4) but that level does not count (the GPUs do not fit there);
    # at sub 4 + 3 + 1 = 8 <= 8 fits: the same chain.
    assert _more_requests_find_none(t1, GPU, 2 * K, {GPU: 2 * K, CPU: 1 * K})
    # 2 cpus: 4 + 3 + 2 = 9 > 8 at sub, where the GPUs first fit: the chain differs.
    assert not _more_requests_find_none(t1, GPU, 2 * K, {GPU: 2 * K, CPU: 2 * K})


def _scan_world() -> Snapshot:
    """Cohort c with t1 (the preemptor side) and t2, t3 (2 GPUs nominal each); t2 borrows 1, t3
    uses 1 of its 2."""
    return world(
        [
            *flavors("a"),
            cohort("c"),
            cq("t1", group(("a", {"gpu": 2})), cohort="c", reclaim="Any"),
            cq("t2", group(("a", {"gpu": 2})), cohort="c"),
            cq("t3", group(("a", {"gpu": 2})), cohort="c"),
            admit(wl("b1", "t2", gpu=2), "t2", "a", reserved_at=1.0),
            admit(wl("b2", "t2", gpu=1), "t2", "a", reserved_at=2.0),
            admit(wl("c1", "t3", gpu=1), "t3", "a", reserved_at=2.0),
            wl("w", "t1", priority=5, t=3.0, gpu=2),
        ]
    )


def _keys(snap: Snapshot) -> list[list[str]]:
    c = snap.cohorts["c"]
    incoming = snap.workloads["ns/w"]
    srcs = cohort_sources(snap, c, None, frozenset({GPU}), "Any", incoming, False, snap.cqs["t1"].node)
    return [[w.key for w in s.workloads[: s.end]] for s in srcs]


def test_kept_candidate_lists_follow_usage_and_workload_changes() -> None:
    snap = _scan_world()
    assert _keys(snap) == [["ns/b2", "ns/b1"]]  # t2 borrows: its two workloads, newest first
    t2, t3 = snap.cqs["t2"].node, snap.cqs["t3"].node
    rn.add_usage(t2, GPU, -1 * K)  # a search's removal...
    rn.add_usage(t2, GPU, 1 * K)  # ...undone: rescanned, the same ClusterQueues, the lists kept
    assert _keys(snap) == [["ns/b2", "ns/b1"]]
    rn.add_usage(t3, GPU, 2 * K)  # t3 now above nominal too (3 of 2): a different scan, new lists
    assert _keys(snap) == [["ns/b2", "ns/b1"], ["ns/c1"]]
    rn.add_usage(t3, GPU, -2 * K)
    assert _keys(snap) == [["ns/b2", "ns/b1"]]
    # A workload admitted to t2 (its workload version changes): the kept list is built again.
    snap.add_workload(admit(wl("b3", "t2", gpu=1), "t2", "a", reserved_at=5.0))
    assert _keys(snap) == [["ns/b3", "ns/b2", "ns/b1"]]
    rn.add_usage(t2, GPU, -2 * K)  # t2 back within nominal (2 + 1 + 1 - 2 = 2): no candidates
    assert _keys(snap) == []


_SNAPSHOT = "bench_explain's build_cluster, 60 CQs / 20 cohorts"


@pytest.mark.parametrize("switch", ["oracle", "scan"])
def test_eta_estimates_are_the_same_with_the_reuse_off(switch: str) -> None:
    run = diff.eta_json(diff.eta_objects(lambda: build_cluster(60, 20, 1500, 600), False))
    off = assignment.use_oracle_reuse if switch == "oracle" else candidates.use_scan_reuse
    off(False)
    try:
        without = run()
    finally:
        off(True)
    assert diff.first_difference(without, run()) is None, _SNAPSHOT
    assert diff.eta_count(without) > 400
