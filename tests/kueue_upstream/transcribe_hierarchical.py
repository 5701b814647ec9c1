"""Transcription of `TestHierarchicalPreemptions` (kubernetes-sigs/kueue preemption_hierarchical_test.go).

Upstream calls `GetTargets` directly; many of its ClusterQueues are built with
`MakeFlavorQuotas("default").Obj()` (a flavor without resources) or without any resource group,
which the flavor assigner of a real cycle would reject ("resource cpu unavailable"), and which the
CRD does not allow (`resources` has minItems 1). Adaptation, noted in each source.txt: such queues
list the requested resources with `nominalQuota: 0` — the quota tree is numerically the same
(a missing quota is 0 in Kueue's snapshot). Classical preemption (no fair sharing). Namespace ""
upstream is `default` here; the incoming workload `in` goes through LocalQueue `lq`.
Skipped: "prefer to preempt evicted workloads" (the target is already evicted, so Kueue counts it
but issues no new preemption; the explain JSON has no field for that).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.kueue_upstream.kueue_dsl import Scenario, a, cohort, cq, fq, lq, ns, objs, res, reserve, rf, rg, wl

UPSTREAM = "kubernetes-sigs/kueue pkg/scheduler/preemption/preemption_hierarchical_test.go"
COMMIT = "054bf63476ae9203a912522cf9daea8960811ad1"
CPU, MEM = "cpu", "memory"
NS = "default"
ICQ, REC, RWB = "InClusterQueue", "InCohortReclamation", "InCohortReclaimWhileBorrowing"
_LP_ANY = {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}
_LP_ANY_BWC = {**_LP_ANY, "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 0}}
_LP_LP_BWC = {
    "withinClusterQueue": "LowerPriority",
    "reclaimWithinCohort": "LowerPriority",
    "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 0},
}
ADAPTED = (
    'Adapted: ClusterQueues without resources upstream (`MakeFlavorQuotas("default").Obj()` or no '
    "ResourceGroup) list the requested resources with nominalQuota 0."
)


def q(
    name: str, parent: str, cpu: str = "0", pre: dict[str, Any] | None = None, **extra: str
) -> dict[str, Any]:
    """ClusterQueue with flavor default; extra resources as keyword (memory="0")."""
    resources = [res(CPU, cpu)] + [res(k, v) for k, v in extra.items()]
    return cq(name, rg(fq("default", *resources)), cohort=parent, preemption=pre)


def adm(
    name: str, prio: int, cq_name: str, cpu: str, usage_cpu: str | None = None, mem: str | None = None
) -> Any:
    """`MakeWorkload(name, "").Priority(p).Request(...).ReserveQuotaAt(MakeAdmission(cq)...Assignment(...), now)`."""
    req = {CPU: cpu} if mem is None else {CPU: cpu, MEM: mem}
    w = wl(name, NS, priority=prio, req=req)
    assign = a(CPU, "default", usage_cpu or cpu)
    if mem is not None:
        assign.flavors[MEM] = "default"
        assign.usage[MEM] = mem
    return reserve(w, cq_name, assign)


CASES: list[Scenario] = []


def case(
    slug: str,
    go_name: str,
    cohorts: list[dict[str, Any]],
    queues: list[dict[str, Any]],
    admitted_wls: list[Any],
    incoming: tuple[int, dict[str, str]],
    victims: list[tuple[str, str]],
    target: str = "q",
) -> None:
    """Register one case; `incoming` = (priority, requests)."""
    prio, req = incoming
    pending = wl("in", NS, queue="lq", priority=prio, req=req, uid="wl-in")
    objects = objs(rf("default"), cohorts, queues, lq("lq", NS, target), ns(NS), admitted_wls, pending)
    source = f"{UPSTREAM}\nfunction: TestHierarchicalPreemptions\ncase: {go_name}\ncommit: {COMMIT}"
    pre = [{"workload": f"{NS}/{v}", "preemptor": f"{NS}/in", "reason": r} for v, r in victims]
    heap, inad = ({target: [f"{NS}/in"]}, {}) if victims else ({}, {target: [f"{NS}/in"]})
    CASES.append(Scenario(f"hierarchical_{slug}", source, objects, [], pre, heap, inad, note=ADAPTED))


def rc(c_cpu: str = "2", r_cpu: str | None = None) -> list[dict[str, Any]]:
    """Cohort r (optionally with quota) and its child c with `c_cpu`."""
    root = cohort("r", rg(fq("default", res(CPU, r_cpu)))) if r_cpu else cohort("r")
    return [root, cohort("c", rg(fq("default", res(CPU, c_cpu))), parent="r")]


case(
    "preempt_with_hierarchical_advantage",
    "preempt with hierarchical advantage",
    rc(),
    [q("q", "c", pre=_LP_ANY), q("q_borrowing", "r", pre=_LP_ANY)],
    [adm("admitted2", 0, "q_borrowing", "2")],
    (0, {CPU: "2"}),
    [("admitted2", REC)],
)
case(
    "avoid_queues_within_nominal_quota",
    "avoid queues within nominal quota",
    rc(),
    [q("q_nominal", "r", "2", _LP_ANY), q("q", "c", pre=_LP_ANY), q("q_borrowing", "r", pre=_LP_ANY)],
    [adm("admitted1", -10, "q_nominal", "2"), adm("admitted2", 0, "q_borrowing", "2")],
    (0, {CPU: "2"}),
    [("admitted2", REC)],
)
case(
    "preempt_multiple_with_hierarchical_advantage",
    "preempt multiple with hierarchical advantage",
    rc(),
    [q("q", "c", pre=_LP_ANY), q("q_borrowing", "r", pre=_LP_ANY)],
    [adm("admitted1", 1, "q_borrowing", "1"), adm("admitted2", 2, "q_borrowing", "1")],
    (0, {CPU: "2"}),
    [("admitted1", REC), ("admitted2", REC)],
)
case(
    "preempt_in_cohort_and_own_cq",
    "preempt in cohort and own CQ",
    rc("3"),
    [q("q", "c", pre=_LP_ANY_BWC), q("q_same_cohort", "c", pre=_LP_ANY)],
    [
        adm("admitted_not_preemptible", 1, "q_same_cohort", "1"),
        adm("admitted_preemptible", 0, "q_same_cohort", "1", usage_cpu="2"),
        adm("admitted_own_queue", -1, "q", "1"),
    ],
    (1, {CPU: "2"}),
    [("admitted_own_queue", ICQ), ("admitted_preemptible", RWB)],
)
case(
    "prefer_to_preempt_hierarchical_candidate",
    "prefer to preempt hierarchical candidate",
    rc(),
    [q("q", "c", pre=_LP_ANY), q("q_borrowing", "r", pre=_LP_ANY)],
    [adm("admitted_borrowing", 1, "q_borrowing", "1"), adm("admitted_same_queue", -2, "q", "1")],
    (0, {CPU: "1"}),
    [("admitted_borrowing", REC)],
)
case(
    "forced_to_preempt_priority_candidate",
    "forced to preempt priority candidate",
    rc(),
    [q("q", "c", pre=_LP_ANY_BWC), q("q_nominal", "r", "2", _LP_ANY), q("q_same_cohort", "c", pre=_LP_ANY)],
    [adm("admitted_nominal", -10, "q_nominal", "2"), adm("admitted_same_cohort", -1, "q_same_cohort", "2")],
    (0, {CPU: "2"}),
    [("admitted_same_cohort", RWB)],
)
case(
    "incoming_workload_fits_in_cq_nominal_quota",
    "incoming workload fits in CQ nominal quota",
    rc(),
    [q("q", "c", "4", _LP_ANY), q("q_borrowing", "r", pre=_LP_ANY), q("q_same_cohort", "c", pre=_LP_ANY)],
    [
        adm("admitted_borrowing", 10, "q_borrowing", "3"),
        adm("admitted_same_cohort", 10, "q_same_cohort", "3"),
    ],
    (0, {CPU: "4"}),
    [("admitted_borrowing", REC), ("admitted_same_cohort", REC)],
)
case(
    "preempt_hierarchical_and_priority_candidates",
    "preempt hierarchical and priority candidates",
    rc("4", "1"),
    [q("q", "c", pre=_LP_LP_BWC), q("q_borrowing", "r", pre=_LP_ANY), q("q_same_cohort", "c", pre=_LP_ANY)],
    [
        adm("admitted_borrowing", -1, "q_borrowing", "2"),
        adm("admitted_same_cohort_preemptible", -1, "q_same_cohort", "1"),
        adm("admitted_borrowing_not_preemptible", 1, "q_borrowing", "2"),
    ],
    (0, {CPU: "3"}),
    [("admitted_borrowing", REC), ("admitted_same_cohort_preemptible", RWB)],
)
case(
    "preempt_hierarchical_candidates_and_inside_cq",
    "preempt hierarchical candidates and inside CQ",
    rc("4", "1"),
    [q("q", "c", pre=_LP_LP_BWC), q("q_borrowing", "r", pre=_LP_ANY), q("q_same_cohort", "c", pre=_LP_ANY)],
    [
        adm("admitted_borrowing", -1, "q_borrowing", "2"),
        adm("admitted_same_queue_preemptible", -1, "q", "1"),
        adm("admitted_borrowing_not_preemptible", 1, "q_borrowing", "2"),
    ],
    (0, {CPU: "3"}),
    [("admitted_borrowing", REC), ("admitted_same_queue_preemptible", ICQ)],
)
case(
    "reclaim_nominal_from_lowest_priority_excluding_non_borrowing",
    "reclaim nominal quota from lowest priority workload, excluding non-borrowing",
    rc("3"),
    [q("q", "c", pre=_LP_ANY), q("q_borrowing", "r", pre=_LP_ANY), q("q_nominal", "r", "2", _LP_ANY)],
    [
        adm("admitted_borrowing_prio_8", 8, "q_borrowing", "1"),
        adm("admitted_borrowing_prio_9", 9, "q_borrowing", "1"),
        adm("admitted_borrowing_prio_10", 9, "q_borrowing", "1"),
        adm("admitted_nominal", -2, "q_nominal", "2"),
    ],
    (0, {CPU: "1"}),
    [("admitted_borrowing_prio_8", REC)],
)
case(
    "infeasible_preemption_all_workloads_in_pruned_subtrees",
    "infeasible preemption all available workloads in pruned subtrees",
    [*rc(), cohort("c_other", rg(fq("default", res(CPU, "2"))), parent="r")],
    [q("q_other", "c_other", pre=_LP_ANY), q("q", "c", pre=_LP_ANY), q("q_same_cohort", "c", pre=_LP_ANY)],
    [
        adm("admitted_other_1", -10, "q_other", "1"),
        adm("admitted_other_2", -10, "q_other", "1"),
        adm("admitted_same_cohort", 0, "q_same_cohort", "2"),
    ],
    (0, {CPU: "2"}),
    [],
)
case(
    "hierarchical_preemption_with_multiple_resources",
    "hiearchical preemption with multiple resources",
    [
        cohort("r", rg(fq("default", res(CPU, "3")))),
        cohort("c", rg(fq("default", res(CPU, "4"), res(MEM, "4Gi"))), parent="r"),
    ],
    [
        q("q", "c", pre=_LP_ANY, memory="0"),
        q("q_borrowing", "r", pre=_LP_ANY, memory="0"),
        q("q_same_cohort", "c", pre=_LP_ANY, memory="0"),
    ],
    [
        adm("admitted_borrowing", 0, "q_borrowing", "3", mem="1Gi"),
        adm("admitted_same_cohort", -2, "q_same_cohort", "1", mem="3Gi"),
    ],
    (-2, {CPU: "2", MEM: "1Gi"}),
    [("admitted_borrowing", REC)],
)
case(
    "respect_lending_limits",
    "respect lending limits",
    rc(),
    [
        cq("q", rg(fq("default", res(CPU, "3", "", "2"))), cohort="c", preemption=_LP_ANY),
        q("q_borrowing", "r", pre=_LP_ANY),
    ],
    [adm("admitted_borrowing", 0, "q_borrowing", "4")],
    (-2, {CPU: "5"}),
    [("admitted_borrowing", REC)],
)
_complex_cohorts = [
    cohort("r"),
    *(cohort(n, rg(fq("default", res(CPU, "4"))), parent=p) for n, p in (("c11", "r"), ("c12", "r"))),
    *(cohort(n, rg(fq("default", res(CPU, "4"))), parent="c11") for n in ("c21", "c22", "c23")),
    *(cohort(n, rg(fq("default", res(CPU, "4"))), parent="c21") for n in ("c31", "c32")),
]
case(
    "reclaim_in_complex_hierarchy",
    "reclaim in complex hierarchy",
    _complex_cohorts,
    [
        q(n, p, pre=_LP_ANY)
        for n, p in (("q1", "c12"), ("q2", "c23"), ("q3", "c22"), ("q4", "c32"), ("q5", "c31"))
    ],
    [
        adm("admitted_borrowing_1", -6, "q1", "4"),
        adm("admitted_borrowing_2", -5, "q1", "4"),
        adm("admitted_borrowing_3", -9, "q2", "4"),
        adm("admitted_borrowing_4", -10, "q2", "4"),
        adm("admitted_borrowing_5", -4, "q3", "4"),
        adm("admitted_borrowing_6", -3, "q3", "3"),
        adm("admitted_borrowing_7", 4, "q4", "2"),
        adm("admitted_borrowing_8", 2, "q4", "3"),
    ],
    (-2, {CPU: "7"}),
    [("admitted_borrowing_1", REC), ("admitted_borrowing_4", REC)],
    target="q5",
)


def main() -> None:
    root = Path(__file__).resolve().parent / "scenarios"
    for sc in CASES:
        sc.write(root)
    print(f"wrote {len(CASES)} scenarios")


if __name__ == "__main__":
    main()
