"""The quota tree: borrowing and lending limits, hierarchical cohorts, incremental usage."""

from __future__ import annotations

from gpuplane.kueue import Snapshot, schedule_cycle
from gpuplane.kueue import resource_node as rn

from .kueue_builders import admit, admitted_keys, cohort, cq, flavors, group, wl, world

FR = ("default", "gpu")


def _tree(*objs: object) -> Snapshot:
    return world([*flavors("default"), *objs])


def test_borrowing_limit_caps_what_a_cluster_queue_may_take_from_the_cohort() -> None:
    snap = _tree(
        cq("a", group(("default", {"gpu": (4, 2)})), cohort="c"),
        cq("b", group(("default", {"gpu": 8})), cohort="c"),
    )
    node = snap.cqs["a"].node
    assert rn.available(node, FR) == 6_000
    assert rn.potential_available(node, FR) == 6_000


def test_lending_limit_keeps_the_rest_of_nominal_guaranteed() -> None:
    snap = _tree(
        cq("a", group(("default", {"gpu": (4, None, 1)})), cohort="c"),
        cq("b", group(("default", {"gpu": 4})), cohort="c"),
    )
    a, b = snap.cqs["a"].node, snap.cqs["b"].node
    assert a.local[FR] == 3_000
    assert snap.cohorts["c"].subtree[FR] == 5_000  # 1 lent by a + 4 by b
    assert rn.available(b, FR) == 5_000
    assert rn.available(a, FR) == 8_000


def test_lending_limit_blocks_a_borrower_from_the_guaranteed_part() -> None:
    snap = _tree(
        cq("a", group(("default", {"gpu": (4, None, 1)})), cohort="c"),
        cq("b", group(("default", {"gpu": 4})), cohort="c"),
        wl("wants6", "b", gpu=6),
    )
    r = schedule_cycle(snap)
    assert r.admitted == []
    assert snap.where("ns/wants6") == "inadmissible"


def test_usage_bubbles_only_the_part_above_guaranteed_quota() -> None:
    snap = _tree(
        cq("a", group(("default", {"gpu": (4, None, 1)})), cohort="c"),
        cq("b", group(("default", {"gpu": 4})), cohort="c"),
    )
    a = snap.cqs["a"].node
    rn.add_usage(a, FR, 2_000)
    assert snap.cohorts["c"].usage.get(FR, 0) == 0
    rn.add_usage(a, FR, 2_000)
    assert snap.cohorts["c"].usage[FR] == 1_000
    rn.add_usage(a, FR, -3_000)
    assert snap.cohorts["c"].usage[FR] == 0 and a.usage[FR] == 1_000


def test_hierarchical_cohort_quota_is_shared_by_the_subtree() -> None:
    snap = _tree(
        cohort("root", group(("default", {"gpu": 10}))),
        cohort("team", group(("default", {"gpu": 2})), parent="root"),
        cq("a", group(("default", {"gpu": 1})), cohort="team"),
        cq("b", group(("default", {"gpu": 1})), cohort="root"),
    )
    a = snap.cqs["a"].node
    assert snap.cohorts["team"].subtree[FR] == 3_000
    assert snap.cohorts["root"].subtree[FR] == 14_000
    assert rn.available(a, FR) == 14_000
    # Borrowing level: fits in a (0), in team (1 = team's height), in root (2).
    assert rn.lowest_subtree_height(a, FR, 1_000)[0] == 0
    assert rn.lowest_subtree_height(a, FR, 3_000)[0] == 1
    assert rn.lowest_subtree_height(a, FR, 5_000)[0] == 2


def test_cohort_borrowing_limit_caps_the_subtree() -> None:
    from gpuplane.kueue import Cohort, FlavorQuotas, ResourceGroup, ResourceQuota

    team = Cohort(
        "team",
        "root",
        (ResourceGroup(("gpu",), (FlavorQuotas("default", (ResourceQuota("gpu", 0, 1_000),)),)),),
    )
    snap = _tree(
        cohort("root", group(("default", {"gpu": 10}))),
        team,
        cq("a", group(("default", {"gpu": 2})), cohort="team"),
        wl("w", "a", gpu=4),
        wl("ok", "a", ns="z", gpu=3, t=1),
    )
    assert rn.available(snap.cqs["a"].node, FR) == 3_000
    r = schedule_cycle(snap)
    assert admitted_keys(r) == []  # w (4) exceeds 2 + 1 borrowable: ExceedsMaxQuota
    assert "maximum capacity" in (snap.reason("ns/w") or "")


def test_cohort_cycle_makes_its_cluster_queues_inactive() -> None:
    snap = _tree(
        cohort("x", parent="y"),
        cohort("y", parent="x"),
        cq("a", group(("default", {"gpu": 1})), cohort="x"),
        wl("w", "a", gpu=1),
    )
    r = schedule_cycle(snap, explain_pending=True)
    assert r.admitted == []
    assert "cycle" in r.pending[0].reason


def test_admission_and_release_keep_usage_exact() -> None:
    snap = _tree(
        cq("a", group(("default", {"gpu": 4})), cohort="c"),
        cq("b", group(("default", {"gpu": 4})), cohort="c"),
        wl("w", "a", gpu=6),
    )
    schedule_cycle(snap)
    assert snap.cohorts["c"].usage[FR] == 6_000
    snap.finish("ns/w")
    assert snap.cohorts["c"].usage[FR] == 0 and snap.cqs["a"].node.usage[FR] == 0


def test_admitted_workloads_from_status_count_against_quota() -> None:
    snap = _tree(
        cq("a", group(("default", {"gpu": 4}))),
        admit(wl("run", "a", ns="x", gpu=3), "a", "default"),
        wl("w", "a", gpu=2),
    )
    r = schedule_cycle(snap)
    assert r.admitted == []
    assert "needs 2 gpu in flavor default" in (snap.reason("ns/w") or "")
    assert "uses 3" in (snap.reason("ns/w") or "")
