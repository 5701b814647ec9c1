"""Cases transcribed from Kueue's pkg/scheduler/preemption/preemption_fair_test.go (fair sharing)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from gpuplane.kueue import schedule_cycle

from .kueue_builders import admit, cq, flavors, group, preempted, wl, world

# A cpu request: a number of cores or a quantity ("0.5").
Cpu = int | str
# (name, ClusterQueue, cpu, priority) of each admitted workload; (name, ClusterQueue, cpu) incoming.
Admitted = list[tuple[str, str, Cpu, int]]
Incoming = tuple[str, str, Cpu]
Case = tuple[Admitted, Incoming, dict[str, str]]


def base() -> list[object]:
    return [
        *flavors("default"),
        *[
            cq(
                n,
                group(("default", {"cpu": 3})),
                cohort="all",
                within="LowerPriority",
                reclaim="Any",
                bwc="LowerPriority",
                threshold=-3,
            )
            for n in ("a", "b", "c")
        ],
        cq("preemptible", group(("default", {"cpu": 0})), cohort="all"),
    ]


def run(admitted: Admitted, incoming: Incoming) -> dict[str, str]:
    objs = base()
    for name, cq_name, cpu, prio in admitted:
        objs.append(
            admit(wl(name, cq_name, ns="", priority=prio, cpu=cpu), cq_name, "default", reserved_at=100.0)
        )
    name, cq_name, cpu = incoming
    objs.append(wl(name, cq_name, ns="", cpu=cpu))
    return preempted(schedule_cycle(world(objs, fair=True)))


def units(spec: str) -> Admitted:
    """'a3 b5 c1' -> a1..a3 in a, b1..b5 in b, c1 in c, each 1 cpu."""
    out: Admitted = []
    for part in spec.split():
        for i in range(1, int(part[1:]) + 1):
            out.append((f"{part[0]}{i}", part[0], 1, 0))
    return out


CASES: dict[str, Case] = {
    "reclaim nominal from user using the most": (
        units("a3 b5 c1"),
        ("c_incoming", "c", 1),
        {"/b1": "InCohortReclamation"},
    ),
    "reclaim from queue using less if the most is not enough": (
        [("a1", "a", 3, 0), ("a2", "a", 1, 0), ("b1", "b", 2, 0), ("b2", "b", 3, 0)],
        ("c_incoming", "c", 3),
        {"/a1": "InCohortReclamation"},
    ),
    "reclaim borrowable quota from user using the most": (
        units("a3 b5 c1"),
        ("a_incoming", "a", 1),
        {"/b1": "InCohortFairSharing"},
    ),
    "preempt one from each CQ borrowing": (
        [
            ("a1", "a", "0.5", 0),
            ("a2", "a", "0.5", 0),
            ("a3", "a", 3, 0),
            ("b1", "b", "0.5", 0),
            ("b2", "b", "0.5", 0),
            ("b3", "b", 3, 0),
        ],
        ("c_incoming", "c", 2),
        {"/a1": "InCohortReclamation", "/b1": "InCohortReclamation"},
    ),
    "cannot preempt when everyone under nominal": (units("a3 b3 c3"), ("c_incoming", "c", 1), {}),
    "cannot preempt when it would switch the imbalance": (units("a3 b5"), ("a_incoming", "a", 2), {}),
    "preempt lower priority workloads from same CQ": (
        [("a1_low", "a", 1, -1), ("a2_low", "a", 1, -1), ("a3", "a", 1, 0), ("a4", "a", 1, 0), *units("b5")],
        ("a_incoming", "a", 2),
        {"/a1_low": "InClusterQueue", "/a2_low": "InClusterQueue"},
    ),
    "combination of same CQ and highest user": (
        [("a_low", "a", 1, -1), ("a2", "a", 1, 0), ("a3", "a", 1, 0), *units("b6")],
        ("a_incoming", "a", 2),
        {"/a_low": "InClusterQueue", "/b1": "InCohortFairSharing"},
    ),
    "preempt huge workload if the target gets a lower share": (
        [("b1", "b", 9, 0)],
        ("a_incoming", "a", 2),
        {"/b1": "InCohortReclamation"},
    ),
    "cannot preempt huge workload if the incoming is also huge": (
        [("a1", "a", 2, 0), ("b1", "b", 7, 0)],
        ("a_incoming", "a", 5),
        {},
    ),
    "cannot preempt 2 smaller workloads if the incoming is huge": (
        [("b1", "b", 2, 0), ("b2", "b", 2, 0), ("b3", "b", 3, 0)],
        ("a_incoming", "a", 6),
        {},
    ),
    "preempt from target and others even if over nominal": (
        [("a1_low", "a", 2, -1), ("a2_low", "a", 1, -1), ("b1", "b", 3, 0), ("b2", "b", 3, 0)],
        ("a_incoming", "a", 4),
        {"/a1_low": "InClusterQueue", "/b1": "InCohortFairSharing"},
    ),
    "prefer workloads that do not make the target have the biggest share": (
        [("b1", "b", 2, 0), ("b2", "b", 1, 0), ("b3", "b", 2, 0), ("c1", "c", 1, 0)],
        ("a_incoming", "a", "3.5"),
        {"/b2": "InCohortFairSharing"},
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_kueue_fair_preemption_case(name: str) -> None:
    admitted, incoming, want = CASES[name]
    assert run(admitted, incoming) == want


MORE: dict[str, Case] = {
    "preempt from different cluster queues if the end result has a smaller max share": (
        [("b1", "b", 2, 0), ("b2", "b", "2.5", 0), ("c1", "c", 2, 0), ("c2", "c", "2.5", 0)],
        ("a_incoming", "a", "3.5"),
        {"/b1": "InCohortFairSharing", "/c1": "InCohortFairSharing"},
    ),
    "scenario above does not flap": (
        [("a1", "a", "3.5", 0), ("b2", "b", "2.5", 0), ("c2", "c", "2.5", 0)],
        ("b_incoming", "b", 2),
        {},
    ),
    "cannot preempt if the candidate CQ would go under nominal after one preemption": (
        [("b1", "b", 3, 0), ("b2", "b", 3, 0), ("c1", "c", 3, 0)],
        ("a_incoming", "a", 4),
        {},
    ),
    "workloads under priority threshold are not capriciously preempted": (
        [
            *units("a3 b3"),
            ("preemptible1", "preemptible", 1, -3),
            ("preemptible2", "preemptible", 1, -3),
            ("preemptible3", "preemptible", 1, -3),
        ],
        ("a_incoming", "a", 2),
        {},
    ),
}


@pytest.mark.parametrize("name", sorted(MORE))
def test_kueue_fair_preemption_more(name: str) -> None:
    admitted, incoming, want = MORE[name]
    assert run(admitted, incoming) == want


def _strategy_case(strategies: tuple[str, ...]) -> dict[str, str]:
    objs = base()
    for name, cpu, prio in (("a1", 3, 0), ("b_low", 5, 0), ("b_high", 1, 1)):
        cq_name = name[0]
        objs.append(
            admit(wl(name, cq_name, ns="", priority=prio, cpu=cpu), cq_name, "default", reserved_at=100.0)
        )
    objs.append(wl("a_incoming", "a", ns="", cpu=1))
    return preempted(schedule_cycle(world(objs, fair=True, strategies=strategies)))


def test_less_than_initial_share_preempts_lower_priority_first_even_if_big() -> None:
    assert _strategy_case(("LessThanInitialShare",)) == {"/b_low": "InCohortFairSharing"}


def test_less_than_or_equal_to_final_share_preempts_what_does_not_transfer_imbalance() -> None:
    assert _strategy_case(("LessThanOrEqualToFinalShare",)) == {"/b_high": "InCohortFairSharing"}


def _weighted(
    weight_a: float, weight_b: float, b_count: int, incoming: int, with_c: bool = True
) -> dict[str, str]:
    objs: list[object] = [*flavors("default")]
    for name, weight in (("a", weight_a), ("b", weight_b), ("c", 1.0))[: 3 if with_c else 2]:
        quota = group(("default", {"cpu": 3}))
        objs.append(cq(name, quota, cohort="all", weight=weight, within="LowerPriority", reclaim="Any"))
    for name, cq_name, cpu, prio in units(f"a3 b{b_count}"):
        objs.append(
            admit(wl(name, cq_name, ns="", priority=prio, cpu=cpu), cq_name, "default", reserved_at=100.0)
        )
    objs.append(wl("a_incoming", "a", ns="", cpu=incoming))
    return preempted(schedule_cycle(world(objs, fair=True)))


def test_cluster_queue_with_higher_weight_can_preempt_more() -> None:
    assert _weighted(2, 1, 6, 2) == {"/b1": "InCohortFairSharing", "/b2": "InCohortFairSharing"}


def test_can_preempt_anything_borrowing_from_zero_weight_queue() -> None:
    assert _weighted(1, 0, 6, 3) == {f"/b{i}": "InCohortFairSharing" for i in (1, 2, 3)}


def test_cannot_preempt_nominal_quota_of_zero_weight_queue() -> None:
    assert _weighted(1, 0, 3, 1, with_c=False) == {}


def _run_objs(
    objs: list[object], admitted: Sequence[tuple[str, str, Cpu, int, str]], incoming: Incoming
) -> dict[str, str]:
    for name, cq_name, cpu, prio, flavor in admitted:
        objs.append(
            admit(wl(name, cq_name, ns="", priority=prio, cpu=cpu), cq_name, flavor, reserved_at=100.0)
        )
    name, cq_name, cpu = incoming
    objs.append(wl(name, cq_name, ns="", cpu=cpu))
    return preempted(schedule_cycle(world(objs, fair=True)))


def test_hierarchical_fair_preemption_across_subtrees() -> None:
    from .kueue_builders import cohort

    one = group(("default", {"cpu": 1}))
    objs: list[object] = [
        *flavors("default"),
        cohort("ROOT", group(("default", {"cpu": 5}))),
        cohort("LEFT", group(("default", {"cpu": 5})), parent="ROOT", weight=2),
        cohort("RIGHT", group(("default", {"cpu": 5})), parent="ROOT"),
        cq("a", one, cohort="LEFT", weight=2, reclaim="Any"),
        cq("b", one, cohort="LEFT"),
        cq("c", one, cohort="ROOT"),
        cq("d", one, cohort="RIGHT"),
        cq("e", one, cohort="RIGHT", weight=0.99),
    ]
    admitted = [(f"{q}{i}", q, 1, i, "default") for q in "bcde" for i in range(1, 6)]
    got = _run_objs(objs, admitted, ("unit", "a", 5))
    assert got == {f"/{k}": "InCohortFairSharing" for k in ("b1", "b2", "c1", "c2", "e1")}


def test_borrowing_cluster_queue_in_non_borrowing_cohort_is_protected() -> None:
    from .kueue_builders import cohort

    objs: list[object] = [
        *flavors("default"),
        cohort("ROOT"),
        cohort("RIGHT", group(("default", {"cpu": 1})), parent="ROOT", weight=0.1),
        cq(
            "a",
            group(("default", {"cpu": 5})),
            cohort="ROOT",
            weight=10,
            reclaim="Any",
            within="LowerPriority",
        ),
        cq("b", cohort="RIGHT", weight=0.1),
    ]
    admitted = [
        ("a1", "a", 1, -1, "default"),
        ("a2", "a", 1, -1, "default"),
        ("a3", "a", 1, -1, "default"),
        ("b1", "b", 1, -1, "default"),
    ]
    assert _run_objs(objs, admitted, ("unit", "a", 5)) == {f"/a{i}": "InClusterQueue" for i in (1, 2, 3)}


def test_forced_to_preempt_within_cluster_queue_when_borrower_is_too_important() -> None:
    from .kueue_builders import cohort

    objs: list[object] = [
        *flavors("default"),
        cohort("ROOT"),
        cohort("RIGHT", group(("default", {"cpu": 3})), parent="ROOT", weight=0.1),
        cq(
            "a",
            group(("default", {"cpu": 5})),
            cohort="ROOT",
            weight=10,
            reclaim="LowerPriority",
            within="LowerPriority",
        ),
        cq("b", cohort="RIGHT", weight=0.1),
    ]
    admitted = [
        ("a1", "a", 1, -1, "default"),
        ("a2", "a", 1, -1, "default"),
        ("a3", "a", 1, -1, "default"),
        ("b1", "b", 4, 100, "default"),
    ]
    assert _run_objs(objs, admitted, ("unit", "a", 4)) == {f"/a{i}": "InClusterQueue" for i in (1, 2, 3)}


def test_deep_preemption_compares_almost_lowest_common_ancestors() -> None:
    from .kueue_builders import cohort

    objs: list[object] = [
        *flavors("default"),
        cohort("ROOT"),
        cohort("A", parent="ROOT", weight=1.01),
        cohort("AA", parent="A"),
        cohort("AAA", parent="AA"),
        cohort("B", parent="ROOT", weight=0.99),
        cohort("BB", parent="B"),
        cohort("BBB", parent="BB"),
        cohort("C", parent="ROOT"),
        cohort("CC", parent="C"),
        cohort("CCC", parent="CC"),
        cohort("CCCC", group(("default", {"cpu": 1})), parent="CCC"),
        cq("a", group(("default", {"cpu": 0})), cohort="AAA", reclaim="Any"),
        cq("b", group(("default", {"cpu": 0})), cohort="BBB"),
    ]
    assert _run_objs(objs, [("b1", "b", 1, 0, "default")], ("a1", "a", 1)) == {"/b1": "InCohortFairSharing"}


def test_zero_weight_cluster_queue_can_reclaim_nominal_quota() -> None:
    objs: list[object] = [
        *flavors("default"),
        cq("a", group(("default", {"cpu": 1})), cohort="ROOT", weight=0, reclaim="Any"),
        cq("b", group(("default", {"cpu": 0})), cohort="ROOT"),
    ]
    assert _run_objs(objs, [("b1", "b", 1, 0, "default")], ("a1", "a", 1)) == {"/b1": "InCohortReclamation"}


def test_zero_weight_cohort_can_reclaim_nominal_quota() -> None:
    from .kueue_builders import cohort

    objs: list[object] = [
        *flavors("default"),
        cohort("A", group(("default", {"cpu": 1})), parent="ROOT", weight=0),
        cq("a", group(("default", {"cpu": 0})), cohort="A", weight=0, reclaim="Any"),
        cq("b", group(("default", {"cpu": 0})), cohort="ROOT"),
    ]
    assert _run_objs(objs, [("b1", "b", 1, 0, "default")], ("a1", "a", 1)) == {"/b1": "InCohortFairSharing"}


def test_within_nominal_workload_preempts_despite_high_aggregate_share() -> None:
    objs: list[object] = [
        *flavors("premium", "cheap"),
        cq(
            "a",
            group(("premium", {"cpu": 3}), ("cheap", {"cpu": 0})),
            cohort="all",
            reclaim="Any",
            when_can_preempt="MayStopSearch",
        ),
        cq("b", group(("premium", {"cpu": 0}), ("cheap", {"cpu": 6})), cohort="all"),
    ]
    admitted = [("a_prem1", "a", 1, 0, "premium"), ("a_prem2", "a", 1, 0, "premium")]
    admitted += [(f"a_cheap{i}", "a", 1, 0, "cheap") for i in range(1, 6)]
    admitted += [("b_prem1", "b", 1, 0, "premium")]
    assert _run_objs(objs, admitted, ("a_incoming", "a", 1)) == {"/b_prem1": "InCohortReclamation"}
