"""Every numbered point of kueue.md section 10 ("counter-intuitive points"), one test each."""

from __future__ import annotations

from gpuplane.kueue import Snapshot, schedule_cycle

from .kueue_builders import admit, admitted_keys, cq, flavors, group, preempted, ps, queues, wl, world


def test_1_only_one_head_per_cluster_queue_per_cycle_and_strict_fifo_head_blocks() -> None:
    strict = cq("strict", group(("default", {"gpu": 4})), strategy="StrictFIFO")
    best = cq("best", group(("default", {"gpu": 4})))
    snap = world(
        [
            *flavors("default"),
            strict,
            best,
            wl("big", "strict", t=0, gpu=8),
            wl("small", "strict", t=1, gpu=1),
            wl("big", "best", ns="b", t=0, gpu=8),
            wl("small", "best", ns="b", t=1, gpu=1),
        ]
    )
    r1 = schedule_cycle(snap)
    assert admitted_keys(r1) == []  # one head per ClusterQueue: the big ones, which never fit
    assert queues(snap) == {"ns/big": "heap", "ns/small": "heap", "b/big": "inadmissible", "b/small": "heap"}
    r2 = schedule_cycle(snap)
    assert admitted_keys(r2) == ["b/small"]  # BestEffortFIFO moved on; StrictFIFO still blocked
    for _ in range(3):
        assert admitted_keys(schedule_cycle(snap)) == []
    assert snap.where("ns/small") == "heap"


def test_2_non_borrowing_entry_beats_higher_priority_borrowing_entry() -> None:
    a = cq("a", group(("default", {"gpu": 4})), cohort="c")
    b = cq("b", group(("default", {"gpu": 4})), cohort="c")
    snap = world(
        [
            *flavors("default"),
            a,
            b,
            wl("vip", "a", priority=9001, gpu=6),  # needs to borrow 3
            wl("low", "b", priority=0, t=5, gpu=4),  # fits in nominal
            admit(wl("held", "a", ns="x", gpu=1), "a", "default"),
        ]
    )
    r = schedule_cycle(snap)
    assert admitted_keys(r) == ["ns/low"]  # low went first; vip no longer fits
    assert snap.where("ns/vip") == "heap"


def test_2_with_fair_sharing_lower_share_beats_priority() -> None:
    a = cq("a", group(("default", {"gpu": 0})), cohort="c")
    b = cq("b", group(("default", {"gpu": 0})), cohort="c")
    from .kueue_builders import cohort

    snap = world(
        [
            *flavors("default"),
            a,
            b,
            cohort("c", group(("default", {"gpu": 10}))),
            admit(wl("running", "a", ns="x", gpu=4), "a", "default"),
            wl("vip", "a", priority=9001, gpu=4),
            wl("low", "b", priority=0, t=5, gpu=4),
        ],
        fair=True,
    )
    r = schedule_cycle(snap)
    assert admitted_keys(r) == ["ns/low"]
    assert snap.where("ns/vip") == "heap"


def test_3_workload_bigger_than_nominal_never_preempts_without_borrow_within_cohort() -> None:
    a = cq("a", group(("default", {"gpu": 4})), cohort="c", within="LowerPriority", reclaim="Any")
    b = cq("b", group(("default", {"gpu": 4})), cohort="c")
    snap = world(
        [
            *flavors("default"),
            a,
            b,
            admit(wl("mine", "a", ns="x", priority=0, gpu=2), "a", "default"),
            admit(wl("borrower", "b", ns="x", priority=0, gpu=6), "b", "default"),
            wl("big", "a", priority=100, gpu=5),
        ]
    )
    r = schedule_cycle(snap)
    assert r.preempted == [] and r.admitted == []
    assert snap.where("ns/big") == "inadmissible"
    # The same workload with a request within nominal does preempt.
    snap2 = world(
        [
            *flavors("default"),
            a,
            b,
            admit(wl("borrower", "b", ns="x", priority=0, gpu=6), "b", "default"),
            wl("fits", "a", priority=100, gpu=4),
        ]
    )
    assert preempted(schedule_cycle(snap2)) == {"x/borrower": "InCohortReclamation"}


def _reservation_world(reclaim: str) -> Snapshot:
    a = cq("a", group(("default", {"gpu": 4})), cohort="c", reclaim=reclaim)
    b = cq("b", group(("default", {"gpu": 4})), cohort="c")
    lender = cq("l", group(("default", {"gpu": 4})), cohort="c")
    return world(
        [
            *flavors("default"),
            a,
            b,
            lender,
            admit(wl("b-borrows", "b", ns="x", priority=5, gpu=6), "b", "default"),
            admit(wl("l-own", "l", ns="x", priority=5, gpu=4), "l", "default"),
            wl("needs", "a", priority=0, t=0, gpu=4),  # 2 free in the cohort: must reclaim, none allowed
            wl("borrower", "l", ns="y", priority=0, t=1, gpu=2),  # would borrow those 2
        ]
    )


def test_4_preempt_without_candidates_reserves_capacity_unless_reclaim_any() -> None:
    snap = _reservation_world("LowerPriority")
    r = schedule_cycle(snap)
    assert admitted_keys(r) == []  # a's reservation kept l's borrower out
    snap_any = _reservation_world("Any")
    r_any = schedule_cycle(snap_any)
    assert "x/b-borrows" in preempted(r_any)


def test_5_preemptor_not_admitted_in_the_same_cycle_and_victims_keep_quota() -> None:
    a = cq("a", group(("default", {"gpu": 4})), within="LowerPriority")
    snap = world(
        [
            *flavors("default"),
            a,
            admit(wl("old", "a", ns="x", gpu=4), "a", "default"),
            wl("new", "a", priority=10, gpu=4),
        ]
    )
    r = schedule_cycle(snap)
    assert admitted_keys(r) == [] and preempted(r) == {"x/old": "InClusterQueue"}
    assert snap.cqs["a"].node.usage[("default", "gpu")] == 4000  # victim still counted
    assert admitted_keys(schedule_cycle(snap)) == []  # not released yet: still waiting, no new victims
    snap.release_preempted()
    assert admitted_keys(schedule_cycle(snap)) == ["ns/new"]


def test_6_candidates_most_recently_admitted_first_and_newer_equal_priority_uses_creation_time() -> None:
    a = cq("a", group(("default", {"gpu": 4})), within="LowerOrNewerEqualPriority")
    snap = world(
        [
            *flavors("default"),
            a,
            admit(wl("early", "a", ns="x", t=10, gpu=2), "a", "default", reserved_at=100),
            admit(wl("late", "a", ns="x", t=11, gpu=2), "a", "default", reserved_at=200),
            wl("new", "a", t=5, gpu=2),  # created before both: may preempt equal priority
        ]
    )
    assert preempted(schedule_cycle(snap)) == {"x/late": "InClusterQueue"}
    snap2 = world(
        [
            *flavors("default"),
            a,
            admit(wl("early", "a", ns="x", t=10, gpu=2), "a", "default", reserved_at=100),
            admit(wl("late", "a", ns="x", t=11, gpu=2), "a", "default", reserved_at=200),
            wl("new", "a", t=10.5, gpu=2),  # created after 'early': only 'late' is newer
        ]
    )
    assert preempted(schedule_cycle(snap2)) == {"x/late": "InClusterQueue"}
    snap3 = world(
        [
            *flavors("default"),
            a,
            admit(wl("early", "a", ns="x", t=10, gpu=2), "a", "default", reserved_at=200),
            admit(wl("late", "a", ns="x", t=11, gpu=2), "a", "default", reserved_at=100),
            wl("new", "a", t=10.5, gpu=2),
        ]
    )
    assert preempted(schedule_cycle(snap3)) == {"x/late": "InClusterQueue"}  # 'early' is older than new


def test_7_minimisation_keeps_last_victim_and_spares_earlier_ones() -> None:
    a = cq("a", group(("default", {"gpu": 4})), cohort="c", within="LowerPriority", reclaim="Any")
    b = cq("b", group(("default", {"gpu": 4})), cohort="c")
    snap = world(
        [
            *flavors("default"),
            a,
            b,
            admit(wl("b-small", "b", ns="x", gpu=5), "b", "default", reserved_at=1),  # b borrows 1
            admit(wl("a-low", "a", ns="x", priority=-1, gpu=3), "a", "default", reserved_at=2),
            wl("new", "a", priority=10, gpu=3),
        ]
    )
    # Greedy order: b-small (other CQ) first, not enough without borrowing (a would use 6 > 4),
    # then a-low; fill-back re-adds b-small: removing a-low alone leaves the 3 needed.
    assert preempted(schedule_cycle(snap)) == {"x/a-low": "InClusterQueue"}


def test_8_borrower_back_within_nominal_stops_being_a_candidate() -> None:
    a = cq("a", group(("default", {"gpu": 4})), cohort="c", reclaim="Any")
    b = cq("b", group(("default", {"gpu": 4})), cohort="c")
    snap = world(
        [
            *flavors("default"),
            a,
            b,
            admit(wl("b1", "b", ns="x", gpu=3), "b", "default", reserved_at=1),
            admit(wl("b2", "b", ns="x", gpu=3), "b", "default", reserved_at=2),
            admit(wl("a-own", "a", ns="x", gpu=1), "a", "default", reserved_at=3),
            wl("new", "a", gpu=3),
        ]
    )
    # b uses 6 of nominal 4. Removing b2 (most recent) brings b to 3 ≤ 4: b1 is no longer a candidate.
    assert preempted(schedule_cycle(snap)) == {"x/b2": "InCohortReclamation"}


def test_9_partial_admission_prefers_largest_count_even_if_it_needs_preemption() -> None:
    a = cq("a", group(("default", {"gpu": 8})), within="LowerPriority")
    snap = world(
        [
            *flavors("default"),
            a,
            admit(wl("low", "a", ns="x", priority=-1, gpu=4), "a", "default"),
            wl("elastic", "a", ps("main", 8, min_count=2, gpu=1), priority=5),
        ]
    )
    r = schedule_cycle(snap)
    assert preempted(r) == {"x/low": "InClusterQueue"}  # full size (8) with preemption, not 4 without
    snap.release_preempted()
    r2 = schedule_cycle(snap)
    assert [(p.name, p.count) for p in r2.admitted[0].pod_sets] == [("main", 8)]


def test_10_default_flavor_search_stops_at_first_flavor_that_fits_even_by_borrowing() -> None:
    a = cq("a", group(("reserved", {"gpu": 2}), ("spot", {"gpu": 8})), cohort="c")
    lender = cq("lender", group(("reserved", {"gpu": 8})), cohort="c")
    snap = world([*flavors("reserved", "spot"), a, lender, wl("w", "a", gpu=4)])
    r = schedule_cycle(snap)
    assert r.admitted[0].pod_sets[0].flavors == {"gpu": "reserved"}  # borrows rather than use spot
    tnf = cq(
        "a",
        group(("reserved", {"gpu": 2}), ("spot", {"gpu": 8})),
        cohort="c",
        when_can_borrow="TryNextFlavor",
    )
    snap2 = world([*flavors("reserved", "spot"), tnf, lender, wl("w", "a", gpu=4)])
    assert schedule_cycle(snap2).admitted[0].pod_sets[0].flavors == {"gpu": "spot"}


def test_11_empty_preemption_policies_behave_as_never() -> None:
    a = cq("a", group(("default", {"gpu": 4})), within="", reclaim="", bwc="")
    snap = world(
        [
            *flavors("default"),
            a,
            admit(wl("old", "a", ns="x", gpu=4), "a", "default"),
            wl("new", "a", priority=100, gpu=4),
        ]
    )
    r = schedule_cycle(snap)
    assert r.preempted == [] and r.admitted == []


def test_12_borrowing_limit_zero_without_cohort_has_no_effect() -> None:
    a = cq("a", group(("default", {"gpu": (4, 0)})))
    snap = world([*flavors("default"), a, wl("w", "a", gpu=4)])
    assert admitted_keys(schedule_cycle(snap)) == ["ns/w"]
