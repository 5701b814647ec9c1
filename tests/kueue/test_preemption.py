"""Preemption: each reason Kueue records, borrowWithinCohort thresholds, hierarchical reclaim."""

from __future__ import annotations

from gpuplane.kueue import schedule_cycle

from .kueue_builders import admit, cohort, cq, flavors, group, preempted, wl, world


def test_in_cluster_queue_reason_for_lower_priority_victim() -> None:
    a = cq("a", group(("default", {"gpu": 4})), within="LowerPriority")
    snap = world(
        [
            *flavors("default"),
            a,
            admit(wl("low", "a", ns="x", priority=1, gpu=4), "a", "default"),
            wl("high", "a", priority=2, gpu=2),
        ]
    )
    r = schedule_cycle(snap)
    assert [(p.workload, p.preemptor, p.reason) for p in r.preempted] == [
        ("x/low", "ns/high", "InClusterQueue")
    ]


def test_equal_priority_is_not_preempted_with_lower_priority_policy() -> None:
    a = cq("a", group(("default", {"gpu": 4})), within="LowerPriority")
    snap = world(
        [
            *flavors("default"),
            a,
            admit(wl("same", "a", ns="x", priority=2, gpu=4), "a", "default"),
            wl("new", "a", priority=2, gpu=2),
        ]
    )
    r = schedule_cycle(snap)
    assert r.preempted == []
    assert snap.where("ns/new") == "inadmissible"


def test_in_cohort_reclamation_reason_when_reclaiming_nominal_quota() -> None:
    a = cq("a", group(("default", {"gpu": 4})), cohort="c", reclaim="Any")
    b = cq("b", group(("default", {"gpu": 4})), cohort="c")
    snap = world(
        [
            *flavors("default"),
            a,
            b,
            admit(wl("borrower", "b", ns="x", priority=100, gpu=8), "b", "default"),
            wl("mine", "a", gpu=4),
        ]
    )
    assert preempted(schedule_cycle(snap)) == {"x/borrower": "InCohortReclamation"}


def test_reclaim_lower_priority_protects_higher_priority_borrowers() -> None:
    a = cq("a", group(("default", {"gpu": 4})), cohort="c", reclaim="LowerPriority")
    b = cq("b", group(("default", {"gpu": 4})), cohort="c")
    snap = world(
        [
            *flavors("default"),
            a,
            b,
            admit(wl("borrower", "b", ns="x", priority=100, gpu=8), "b", "default"),
            wl("mine", "a", gpu=4),
        ]
    )
    assert schedule_cycle(snap).preempted == []


def test_in_cohort_reclaim_while_borrowing_reason_with_borrow_within_cohort() -> None:
    a = cq("a", group(("default", {"gpu": 4})), cohort="c", reclaim="LowerPriority", bwc="LowerPriority")
    b = cq("b", group(("default", {"gpu": 4})), cohort="c")
    snap = world(
        [
            *flavors("default"),
            a,
            b,
            admit(wl("b-low", "b", ns="x", priority=0, gpu=6), "b", "default"),
            wl("big", "a", priority=10, gpu=6),  # bigger than a's nominal: must borrow while reclaiming
        ]
    )
    assert preempted(schedule_cycle(snap)) == {"x/b-low": "InCohortReclaimWhileBorrowing"}


def test_max_priority_threshold_protects_candidates_above_it() -> None:
    a = cq(
        "a",
        group(("default", {"gpu": 4})),
        cohort="c",
        reclaim="LowerPriority",
        bwc="LowerPriority",
        threshold=5,
    )
    b = cq("b", group(("default", {"gpu": 4})), cohort="c")
    snap = world(
        [
            *flavors("default"),
            a,
            b,
            admit(wl("b-mid", "b", ns="x", priority=7, gpu=6), "b", "default"),
            wl("big", "a", priority=10, gpu=6),
        ]
    )
    assert schedule_cycle(snap).preempted == []


def test_in_cohort_fair_sharing_reason_with_fair_sharing() -> None:
    # Shared pool of 4 in the cohort; a and b have 2 each. b borrows 4, a will borrow 2.
    root = cohort("c", group(("default", {"gpu": 4})))
    a = cq("a", group(("default", {"gpu": 2})), cohort="c", reclaim="Any")
    b = cq("b", group(("default", {"gpu": 2})), cohort="c")
    b_runs = [admit(wl(f"b{i}", "b", ns="x", gpu=1), "b", "default", reserved_at=i) for i in range(1, 7)]
    snap = world(
        [
            *flavors("default"),
            root,
            a,
            b,
            *b_runs,
            admit(wl("a-run", "a", ns="x", gpu=2), "a", "default", reserved_at=0),
            wl("a-more", "a", gpu=2),
        ],
        fair=True,
    )
    r = schedule_cycle(snap)
    # b's share drops 500 -> 375 -> 250 while a's share with the workload is 250 (rule S2-a).
    assert preempted(r) == {"x/b6": "InCohortFairSharing", "x/b5": "InCohortFairSharing"}


def test_fair_sharing_within_nominal_reclaims_without_share_comparison() -> None:
    a = cq("a", group(("default", {"gpu": 4})), cohort="c", reclaim="Any")
    b = cq("b", group(("default", {"gpu": 4})), cohort="c")
    snap = world(
        [
            *flavors("default"),
            a,
            b,
            admit(wl("b-all", "b", ns="x", gpu=8), "b", "default"),
            wl("a-nominal", "a", gpu=4),
        ],
        fair=True,
    )
    assert preempted(schedule_cycle(snap)) == {"x/b-all": "InCohortReclamation"}


def test_hierarchical_reclaim_from_sibling_subtree() -> None:
    # root(0) -> left(4 via cq a), right(4 via cq b); b borrows from the left subtree.
    objs = [
        *flavors("default"),
        cohort("root"),
        cohort("left", parent="root"),
        cohort("right", parent="root"),
        cq("a", group(("default", {"gpu": 4})), cohort="left", reclaim="Any"),
        cq("b", group(("default", {"gpu": 4})), cohort="right"),
        admit(wl("b-big", "b", ns="x", priority=50, gpu=8), "b", "default"),
        wl("a-job", "a", gpu=4),
    ]
    r = schedule_cycle(world(objs))
    assert preempted(r) == {"x/b-big": "InCohortReclamation"}


def test_victims_are_released_by_release_preempted_and_requeued() -> None:
    a = cq("a", group(("default", {"gpu": 4})), within="LowerPriority")
    snap = world(
        [
            *flavors("default"),
            a,
            admit(wl("low", "a", ns="x", priority=0, gpu=4), "a", "default"),
            wl("high", "a", priority=9, gpu=4),
        ]
    )
    schedule_cycle(snap)
    assert snap.release_preempted() == ["x/low"]
    assert snap.where("x/low") in ("heap", "inadmissible")
    r = schedule_cycle(snap)
    assert [a.workload for a in r.admitted] == ["ns/high"]
