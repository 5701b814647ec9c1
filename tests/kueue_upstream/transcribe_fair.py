"""Transcription of `TestFairPreemptions` (kubernetes-sigs/kueue pkg/scheduler/preemption/preemption_fair_test.go).

Upstream calls `GetTargets` with a one-podset assignment in Preempt mode on flavor "default" (or the
case's `assignmentFlavor`). Kept: cases where a full fair-sharing cycle reaches that same decision,
i.e. the incoming workload does not fit and the flavor assigner runs the preemption oracle (every
ClusterQueue here either fits the request within nominal, or has reclaimWithinCohort != Never,
which with fair sharing enables preemption while borrowing). Upstream sets UID = name for admitted
workloads (candidate ordering tie-break); so do we. Namespace "" upstream is `default` here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.kueue_upstream.kueue_dsl import (
    Scenario,
    cohort,
    cq,
    fair_sharing_config,
    fq,
    lq,
    ns,
    objs,
    res,
    rf,
    rg,
    simple_reserve,
    wl,
)

UPSTREAM = "kubernetes-sigs/kueue pkg/scheduler/preemption/preemption_fair_test.go"
COMMIT = "054bf63476ae9203a912522cf9daea8960811ad1"
CPU = "cpu"
NS = "default"
ICQ, REC, FS = "InClusterQueue", "InCohortReclamation", "InCohortFairSharing"
_BASE_PRE = {
    "withinClusterQueue": "LowerPriority",
    "reclaimWithinCohort": "Any",
    "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": -3},
}
_LP_ANY = {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}


def base_cqs() -> list[dict[str, Any]]:
    """`baseCQs`: a, b, c (3 cpu each) and preemptible (0) in cohort `all`."""
    out = [cq(n, rg(fq("default", res(CPU, "3"))), cohort="all", preemption=_BASE_PRE) for n in "abc"]
    out.append(cq("preemptible", rg(fq("default", res(CPU, "0"))), cohort="all"))
    return out


def u(name: str, cq_name: str, qty: str = "1", prio: int | None = None, flavor: str = "default") -> Any:
    """`MakeWorkload(name, "").Request(cpu, qty).SimpleReserveQuota(cq, flavor, now)`, UID = name."""
    return simple_reserve(wl(name, NS, priority=prio, req={CPU: qty}, uid=name), cq_name, flavor)


def many(cq_name: str, *names: str) -> list[Any]:
    return [u(n, cq_name) for n in names]


CASES: list[Scenario] = []


def case(
    slug: str,
    go_name: str,
    queues: list[dict[str, Any]],
    target: str,
    admitted_wls: list[Any],
    incoming: tuple[str, str] | tuple[str, str, int],
    victims: list[tuple[str, str]],
    *,
    cohorts: list[dict[str, Any]] | None = None,
    flavors: tuple[str, ...] = ("default",),
    strategies: list[str] | None = None,
) -> None:
    """Register one case; `incoming` = (name, cpu[, priority])."""
    name, qty = incoming[0], incoming[1]
    prio = incoming[2] if len(incoming) == 3 else None
    pending = wl(name, NS, queue="lq", priority=prio, req={CPU: qty})
    objects = objs(
        [rf(f) for f in flavors],
        queues,
        cohorts or [],
        lq("lq", NS, target),
        ns(NS),
        admitted_wls,
        pending,
        fair_sharing_config(strategies),
    )
    source = f"{UPSTREAM}\nfunction: TestFairPreemptions\ncase: {go_name}\ncommit: {COMMIT}"
    pre = [{"workload": f"{NS}/{v}", "preemptor": f"{NS}/{name}", "reason": r} for v, r in victims]
    key = f"{NS}/{name}"
    heap, inad = ({target: [key]}, {}) if victims else ({}, {target: [key]})
    CASES.append(Scenario(f"fair_{slug}", source, objects, [], pre, heap, inad, fair_sharing=True))


case(
    "reclaim_nominal_from_user_using_the_most",
    "reclaim nominal from user using the most",
    base_cqs(),
    "c",
    many("a", "a1", "a2", "a3") + many("b", "b1", "b2", "b3", "b4", "b5") + many("c", "c1"),
    ("c_incoming", "1"),
    [("b1", REC)],
)
case(
    "reclaim_from_queue_using_less_if_most_is_not_enough",
    "can reclaim from queue using less, if taking the latest workload from user using the most isn't enough",
    base_cqs(),
    "c",
    [u("a1", "a", "3"), u("a2", "a", "1"), u("b1", "b", "2"), u("b2", "b", "3")],
    ("c_incoming", "3"),
    [("a1", REC)],
)
case(
    "reclaim_borrowable_quota_from_user_using_the_most",
    "reclaim borrowable quota from user using the most",
    base_cqs(),
    "a",
    many("a", "a1", "a2", "a3") + many("b", "b1", "b2", "b3", "b4", "b5") + many("c", "c1"),
    ("a_incoming", "1"),
    [("b1", FS)],
)
case(
    "preempt_one_from_each_cq_borrowing",
    "preempt one from each CQ borrowing",
    base_cqs(),
    "c",
    [
        u("a1", "a", "500m"),
        u("a2", "a", "500m"),
        u("a3", "a", "3"),
        u("b1", "b", "500m"),
        u("b2", "b", "500m"),
        u("b3", "b", "3"),
    ],
    ("c_incoming", "2"),
    [("a1", REC), ("b1", REC)],
)
case(
    "cannot_preempt_when_everyone_under_nominal",
    "can't preempt when everyone under nominal",
    base_cqs(),
    "c",
    many("a", "a1", "a2", "a3") + many("b", "b1", "b2", "b3") + many("c", "c1", "c2", "c3"),
    ("c_incoming", "1"),
    [],
)
case(
    "cannot_preempt_when_it_would_switch_the_imbalance",
    "can't preempt when it would switch the imbalance",
    base_cqs(),
    "a",
    many("a", "a1", "a2", "a3") + many("b", "b1", "b2", "b3", "b4", "b5"),
    ("a_incoming", "2"),
    [],
)
case(
    "preempt_lower_priority_from_same_cq",
    "can preempt lower priority workloads from same CQ",
    base_cqs(),
    "a",
    [
        u("a1_low", "a", prio=-1),
        u("a2_low", "a", prio=-1),
        u("a3", "a"),
        u("a4", "a"),
        *many("b", "b1", "b2", "b3", "b4", "b5"),
    ],
    ("a_incoming", "2"),
    [("a1_low", ICQ), ("a2_low", ICQ)],
)
case(
    "preempt_combination_of_same_cq_and_highest_user",
    "can preempt a combination of same CQ and highest user",
    base_cqs(),
    "a",
    [u("a_low", "a", prio=-1), u("a2", "a"), u("a3", "a"), *many("b", "b1", "b2", "b3", "b4", "b5", "b6")],
    ("a_incoming", "2"),
    [("a_low", ICQ), ("b1", FS)],
)
case(
    "preempt_huge_workload_if_no_other_option",
    "preempt huge workload if there is no other option, as long as the target CQ gets a lower share",
    base_cqs(),
    "a",
    [u("b1", "b", "9")],
    ("a_incoming", "2"),
    [("b1", REC)],
)
case(
    "cannot_preempt_huge_workload_if_incoming_is_huge",
    "can't preempt huge workload if the incoming is also huge",
    base_cqs(),
    "a",
    [u("a1", "a", "2"), u("b1", "b", "7")],
    ("a_incoming", "5"),
    [],
)
case(
    "cannot_preempt_two_smaller_workloads_if_incoming_is_huge",
    "can't preempt 2 smaller workloads if the incoming is huge",
    base_cqs(),
    "a",
    [u("b1", "b", "2"), u("b2", "b", "2"), u("b3", "b", "3")],
    ("a_incoming", "6"),
    [],
)
case(
    "preempt_from_target_and_others_even_if_over_nominal",
    "preempt from target and others even if over nominal",
    base_cqs(),
    "a",
    [u("a1_low", "a", "2", -1), u("a2_low", "a", "1", -1), u("b1", "b", "3"), u("b2", "b", "3")],
    ("a_incoming", "4"),
    [("a1_low", ICQ), ("b1", FS)],
)
case(
    "prefer_victim_that_does_not_make_target_cq_biggest_share",
    "prefer to preempt workloads that don't make the target CQ have the biggest share",
    base_cqs(),
    "a",
    [u("b1", "b", "2"), u("b2", "b", "1"), u("b3", "b", "2"), u("c1", "c", "1")],
    ("a_incoming", "3.5"),
    [("b2", FS)],
)
case(
    "preempt_from_different_cqs_if_max_share_gets_smaller",
    "preempt from different cluster queues if the end result has a smaller max share",
    base_cqs(),
    "a",
    [u("b1", "b", "2"), u("b2", "b", "2.5"), u("c1", "c", "2"), u("c2", "c", "2.5")],
    ("a_incoming", "3.5"),
    [("b1", FS), ("c1", FS)],
)
case(
    "scenario_above_does_not_flap",
    "scenario above does not flap",
    base_cqs(),
    "b",
    [u("a1", "a", "3.5"), u("b2", "b", "2.5"), u("c2", "c", "2.5")],
    ("b_incoming", "2"),
    [],
)
case(
    "cannot_preempt_if_candidate_cq_goes_under_nominal",
    "cannot preempt if it would make the candidate CQ go under nominal after preempting one element",
    base_cqs(),
    "a",
    [u("b1", "b", "3"), u("b2", "b", "3"), u("c1", "c", "3")],
    ("a_incoming", "4"),
    [],
)
case(
    "workloads_under_priority_threshold_not_capriciously_preempted",
    "workloads under priority threshold not capriciously preempted",
    base_cqs(),
    "a",
    many("a", "a1", "a2", "a3")
    + many("b", "b1", "b2", "b3")
    + [u(f"preemptible{i}", "preemptible", prio=-3) for i in (1, 2, 3)],
    ("a_incoming", "2"),
    [],
)
_imbalance = [u("a1", "a", "3"), u("b_low", "b", "5", 0), u("b_high", "b", "1", 1)]
case(
    "less_than_initial_share_preempts_lower_priority_first",
    "preempt lower priority first, even if big",
    base_cqs(),
    "a",
    _imbalance,
    ("a_incoming", "1"),
    [("b_low", FS)],
    strategies=["LessThanInitialShare"],
)
case(
    "less_than_or_equal_to_final_share_preempts_high_priority_small",
    "preempt workload that doesn't transfer the imbalance, even if high priority",
    base_cqs(),
    "a",
    _imbalance,
    ("a_incoming", "1"),
    [("b_high", FS)],
    strategies=["LessThanOrEqualToFinalShare"],
)


def _w_cqs(weights: dict[str, str], names: str = "abc") -> list[dict[str, Any]]:
    return [
        cq(n, rg(fq("default", res(CPU, "3"))), cohort="all", preemption=_LP_ANY, weight=weights.get(n))
        for n in names
    ]


case(
    "cq_with_higher_weight_can_preempt_more",
    "CQ with higher weight can preempt more",
    _w_cqs({"a": "2"}),
    "a",
    many("a", "a1", "a2", "a3") + many("b", "b1", "b2", "b3", "b4", "b5", "b6"),
    ("a_incoming", "2"),
    [("b1", FS), ("b2", FS)],
)
case(
    "can_preempt_anything_borrowing_from_cq_with_zero_weight",
    "can preempt anything borrowing from CQ with 0 weight",
    _w_cqs({"b": "0"}),
    "a",
    many("a", "a1", "a2", "a3") + many("b", "b1", "b2", "b3", "b4", "b5", "b6"),
    ("a_incoming", "3"),
    [("b1", FS), ("b2", FS), ("b3", FS)],
)
case(
    "cannot_preempt_nominal_from_cq_with_zero_weight",
    "can't preempt nominal from CQ with 0 weight",
    _w_cqs({"b": "0"}, "ab"),
    "a",
    many("a", "a1", "a2", "a3") + many("b", "b1", "b2", "b3"),
    ("a_incoming", "1"),
    [],
)
case(
    "cannot_preempt_nominal_from_cohort_with_zero_weight",
    "can't preempt nominal from Cohort with 0 weight",
    [
        cq(
            "left-cq",
            rg(fq("default", res(CPU, "0"))),
            cohort="root",
            preemption={"reclaimWithinCohort": "Any"},
        ),
        cq(
            "right-cq",
            rg(fq("default", res(CPU, "0"))),
            cohort="right-cohort",
            preemption={"reclaimWithinCohort": "Any"},
            weight="0",
        ),
    ],
    "left-cq",
    [u("right-1", "right-cq")],
    ("left-1", "1"),
    [],
    cohorts=[cohort("right-cohort", rg(fq("default", res(CPU, "1"))), parent="root", weight="0")],
)
case(
    "preempt_within_cluster_queue_without_cohort",
    "can preempt within cluster queue when no cohort",
    [cq("a", rg(fq("default", res(CPU, "1"))), preemption={"withinClusterQueue": "LowerPriority"})],
    "a",
    [u("a1", "a")],
    ("a_incoming", "1", 1000),
    [("a1", ICQ)],
)


def _one_cpu_cq(
    name: str, parent: str, weight: str | None = None, pre: dict[str, Any] | None = None
) -> dict[str, Any]:
    return cq(name, rg(fq("default", res(CPU, "1"))), cohort=parent, weight=weight, preemption=pre)


case(
    "hierarchical_preemption",
    "hierarchical preemption",
    [
        _one_cpu_cq("a", "LEFT", "2", {"reclaimWithinCohort": "Any"}),
        _one_cpu_cq("b", "LEFT"),
        _one_cpu_cq("c", "ROOT"),
        _one_cpu_cq("d", "RIGHT"),
        _one_cpu_cq("e", "RIGHT", "0.99"),
    ],
    "a",
    [u(f"{q}{i}", q, prio=i) for q in "bcde" for i in range(1, 6)],
    ("unit", "5"),
    [("b1", FS), ("b2", FS), ("c1", FS), ("c2", FS), ("e1", FS)],
    cohorts=[
        cohort("ROOT", rg(fq("default", res(CPU, "5")))),
        cohort("LEFT", rg(fq("default", res(CPU, "5"))), parent="ROOT", weight="2"),
        cohort("RIGHT", rg(fq("default", res(CPU, "5"))), parent="ROOT"),
    ],
)
for _slug, _go, _right_quota, _b1 in (
    (
        "borrowing_cq_in_non_borrowing_cohort_is_protected",
        "borrowing cq in non-borrowing cohort is protected",
        "1",
        ("1", -1),
    ),
    (
        "forced_to_preempt_within_cq_because_borrower_too_important",
        "forced to preempt within clusterqueue because borrowing workload too important",
        "3",
        ("4", 100),
    ),
):
    _reclaim = "Any" if _right_quota == "1" else "LowerPriority"
    case(
        _slug,
        _go,
        [
            cq(
                "a",
                rg(fq("default", res(CPU, "5"))),
                cohort="ROOT",
                weight="10",
                preemption={"reclaimWithinCohort": _reclaim, "withinClusterQueue": "LowerPriority"},
            ),
            cq("b", cohort="RIGHT", weight="0.1"),
        ],
        "a",
        [u("a1", "a", prio=-1), u("a2", "a", prio=-1), u("a3", "a", prio=-1), u("b1", "b", _b1[0], _b1[1])],
        ("unit", "5" if _right_quota == "1" else "4"),
        [("a1", ICQ), ("a2", ICQ), ("a3", ICQ)],
        cohorts=[
            cohort("ROOT"),
            cohort("RIGHT", rg(fq("default", res(CPU, _right_quota))), parent="ROOT", weight="0.1"),
        ],
    )
case(
    "deep_preemption",
    "deep preemption",
    [
        cq("a", rg(fq("default", res(CPU, "0"))), cohort="AAA", preemption={"reclaimWithinCohort": "Any"}),
        cq("b", rg(fq("default", res(CPU, "0"))), cohort="BBB"),
    ],
    "a",
    [u("b1", "b")],
    ("a1", "1"),
    [("b1", FS)],
    cohorts=[
        cohort("ROOT"),
        cohort("A", parent="ROOT", weight="1.01"),
        cohort("AA", parent="A"),
        cohort("AAA", parent="AA"),
        cohort("B", parent="ROOT", weight="0.99"),
        cohort("BB", parent="B"),
        cohort("BBB", parent="BB"),
        cohort("C", parent="ROOT"),
        cohort("CC", parent="C"),
        cohort("CCC", parent="CC"),
        cohort("CCCC", rg(fq("default", res(CPU, "1"))), parent="CCC"),
    ],
)
case(
    "cq_with_zero_weight_can_reclaim_nominal_quota",
    "cq with zero weight can reclaim nominal quota",
    [
        cq(
            "a",
            rg(fq("default", res(CPU, "1"))),
            cohort="ROOT",
            weight="0",
            preemption={"reclaimWithinCohort": "Any"},
        ),
        cq("b", rg(fq("default", res(CPU, "0"))), cohort="ROOT", weight="1"),
    ],
    "a",
    [u("b1", "b")],
    ("a1", "1"),
    [("b1", REC)],
)
case(
    "cohort_with_zero_weight_can_reclaim_nominal_quota",
    "cohort with zero weight can reclaim nominal quota",
    [
        cq(
            "a",
            rg(fq("default", res(CPU, "0"))),
            cohort="A",
            weight="0",
            preemption={"reclaimWithinCohort": "Any"},
        ),
        cq("b", rg(fq("default", res(CPU, "0"))), cohort="ROOT", weight="1"),
    ],
    "a",
    [u("b1", "b")],
    ("a1", "1"),
    [("b1", FS)],
    cohorts=[cohort("A", rg(fq("default", res(CPU, "1"))), parent="ROOT", weight="0")],
)
case(
    "nominal_first_preempts_despite_high_aggregate_drs",
    "nominal first: workload fitting within nominal can preempt despite high aggregate DRS",
    [
        cq(
            "a",
            rg(fq("premium", res(CPU, "3")), fq("cheap", res(CPU, "0"))),
            cohort="all",
            preemption={"reclaimWithinCohort": "Any"},
            fungibility={"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "MayStopSearch"},
        ),
        cq("b", rg(fq("premium", res(CPU, "0")), fq("cheap", res(CPU, "6"))), cohort="all"),
    ],
    "a",
    [u("a_prem1", "a", flavor="premium"), u("a_prem2", "a", flavor="premium")]
    + [u(f"a_cheap{i}", "a", flavor="cheap") for i in range(1, 6)]
    + [u("b_prem1", "b", flavor="premium")],
    ("a_incoming", "1"),
    [("b_prem1", REC)],
    flavors=("premium", "cheap"),
)


def main() -> None:
    root = Path(__file__).resolve().parent / "scenarios"
    for sc in CASES:
        sc.write(root)
    print(f"wrote {len(CASES)} scenarios")


if __name__ == "__main__":
    main()
