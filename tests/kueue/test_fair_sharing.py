"""Fair sharing: dominant resource share with weights, and the admission tournament."""

from __future__ import annotations

import math

from gpuplane.kueue import schedule_cycle
from gpuplane.kueue.fair_sharing import dominant_share

from .kueue_builders import admit, admitted_keys, cohort, cq, flavors, group, wl, world


def _pool(weight_a: float, weight_b: float) -> list[object]:
    return [
        *flavors("default"),
        cohort("c", group(("default", {"gpu": 10, "cpu": 100}))),
        cq("a", group(("default", {"gpu": 0, "cpu": 0})), cohort="c", weight=weight_a),
        cq("b", group(("default", {"gpu": 0, "cpu": 0})), cohort="c", weight=weight_b),
    ]


def test_dominant_share_is_the_largest_borrowed_fraction_per_mille() -> None:
    snap = world([*_pool(1, 1), admit(wl("r", "a", ns="x", gpu=2, cpu=50), "a", "default")])
    node = snap.cqs["a"].node
    # gpu: 2 of 10 lendable -> 200; cpu: 50 of 100 -> 500; dominant = cpu
    assert dominant_share(node) == (500.0, 0)


def test_weight_divides_the_share_and_zero_weight_is_infinite_when_borrowing() -> None:
    snap = world(
        [
            *_pool(2, 0),
            admit(wl("r", "a", ns="x", gpu=2), "a", "default"),
            admit(wl("s", "b", ns="x", gpu=1), "b", "default"),
        ]
    )
    assert dominant_share(snap.cqs["a"].node) == (100.0, 0)
    assert dominant_share(snap.cqs["b"].node) == (math.inf, 100)


def test_higher_weight_wins_the_tournament_at_equal_usage() -> None:
    snap = world(
        [
            *_pool(1, 3),
            admit(wl("ra", "a", ns="x", gpu=3), "a", "default"),
            admit(wl("rb", "b", ns="x", gpu=3), "b", "default"),
            wl("wa", "a", priority=100, t=0, gpu=4),
            wl("wb", "b", priority=0, t=1, gpu=4),
        ],
        fair=True,
    )
    r = schedule_cycle(snap)
    assert admitted_keys(r) == ["ns/wb"]  # b's weighted share (7/3) < a's (7), despite priority
    assert snap.where("ns/wa") == "heap"


def test_fair_sharing_from_configuration_object() -> None:
    from gpuplane.kueue import FairSharingConfig, Snapshot

    snap = Snapshot.from_objects([*_pool(1, 1), FairSharingConfig()])
    assert snap.fair_sharing is not None
    assert Snapshot.from_objects(_pool(1, 1)).fair_sharing is None


def test_only_first_strategy_when_configured_alone() -> None:
    # With [LessThanInitialShare] only, S2-a is never tried.
    base = [
        *flavors("default"),
        cohort("c", group(("default", {"gpu": 4}))),
        cq("a", group(("default", {"gpu": 2})), cohort="c", reclaim="Any"),
        cq("b", group(("default", {"gpu": 2})), cohort="c"),
        *[admit(wl(f"b{i}", "b", ns="x", gpu=1), "b", "default", reserved_at=i) for i in range(1, 7)],
        admit(wl("a-run", "a", ns="x", gpu=2), "a", "default", reserved_at=0),
        wl("a-more", "a", gpu=2),
    ]
    r = schedule_cycle(world(base, fair=True, strategies=("LessThanInitialShare",)))
    # 250 < 500 for b6, then 250 < 375 for b5: same victims, chosen by rule S2-b.
    assert {p.workload for p in r.preempted} == {"x/b6", "x/b5"}
