"""Transcription of `TestPreemption` (kubernetes-sigs/kueue pkg/scheduler/preemption/preemption_test.go).

Upstream calls `GetTargets(incoming, assignment)` directly with a hand-made assignment. Only cases
where a full scheduling cycle reaches the same decision are kept: the incoming workload does not
fit without preemption, the flavor assigner reaches Preempt mode on the flavor the test names,
and no other pending workload competes. The incoming workload (`in`, namespace "" upstream, here
`default`) goes through LocalQueue `lq` to the test's `targetCQ`. Expected: victims with the
reasons upstream asserts; the preemptor is not admitted in this cycle and stays in the heap; when
upstream wants no targets the preemptor is requeued as inadmissible (BestEffortFIFO, NoFit /
PreemptionNoCandidates).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.kueue_upstream.kueue_dsl import (
    Assign,
    Scenario,
    a,
    cohort,
    cq,
    fq,
    lq,
    ns,
    objs,
    ps,
    res,
    reserve,
    rf,
    rg,
    wl,
)

UPSTREAM = "kubernetes-sigs/kueue pkg/scheduler/preemption/preemption_test.go"
COMMIT = "014d9490c7f3ca68120582ab72cbfec7c3194aa1"
CPU, MEM = "cpu", "memory"
LP, ANY, NEVER = "LowerPriority", "Any", "Never"
NS = "default"


def _pre(
    within: str | None = None, reclaim: str | None = None, bwc_threshold: int | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if within:
        out["withinClusterQueue"] = within
    if reclaim:
        out["reclaimWithinCohort"] = reclaim
    if bwc_threshold is not None:
        out["borrowWithinCohort"] = {"policy": LP, "maxPriorityThreshold": bwc_threshold}
    return out


def base() -> list[dict[str, Any]]:
    """`defaultClusterQueues` and flavors of TestPreemption."""
    both = rg(fq("default", res(CPU, "6", "6"), res(MEM, "3Gi", "3Gi")))
    nolim = rg(fq("default", res(CPU, "6"), res(MEM, "3Gi")))
    bwc = {"bwc_threshold": 0}
    return [
        rf("default"),
        rf("alpha"),
        rf("beta"),
        cq(
            "standalone",
            rg(fq("default", res(CPU, "6"))),
            rg(fq("alpha", res(MEM, "3Gi")), fq("beta", res(MEM, "3Gi"))),
            preemption=_pre(LP),
        ),
        cq("c1", both, cohort="cohort", preemption=_pre(LP, LP)),
        cq("c2", both, cohort="cohort", preemption=_pre(NEVER, ANY)),
        cq("d1", nolim, cohort="cohort-no-limits", preemption=_pre(LP, LP)),
        cq("d2", nolim, cohort="cohort-no-limits", preemption=_pre(NEVER, ANY)),
        cq(
            "l1",
            rg(fq("default", res(CPU, "6", "12"), res(MEM, "3Gi", "6Gi"))),
            cohort="legion",
            preemption=_pre(LP, LP),
        ),
        cq(
            "preventStarvation",
            rg(fq("default", res(CPU, "6"))),
            preemption=_pre("LowerOrNewerEqualPriority"),
        ),
        cq(
            "a_standard",
            rg(fq("default", res(CPU, "1", "12"))),
            cohort="with_shared_cq",
            preemption=_pre(NEVER, LP, **bwc),
        ),
        cq(
            "b_standard",
            rg(fq("default", res(CPU, "1", "12"))),
            cohort="with_shared_cq",
            preemption=_pre(LP, ANY, **bwc),
        ),
        cq(
            "a_best_effort",
            rg(fq("default", res(CPU, "1", "12"))),
            cohort="with_shared_cq",
            preemption=_pre(NEVER, LP, **bwc),
        ),
        cq(
            "b_best_effort",
            rg(fq("default", res(CPU, "0", "13"))),
            cohort="with_shared_cq",
            preemption=_pre(NEVER, LP, **bwc),
        ),
        cq("shared", rg(fq("default", res(CPU, "10"))), cohort="with_shared_cq"),
        cq("lend1", rg(fq("default", res(CPU, "6", "", "4"))), cohort="cohort-lend", preemption=_pre(LP, LP)),
        cq("lend2", rg(fq("default", res(CPU, "6", "", "2"))), cohort="cohort-lend", preemption=_pre(LP, LP)),
        cq(
            "a",
            rg(fq("default", res(CPU, "2"), res(MEM, "2"))),
            cohort="cohort-three",
            preemption=_pre(LP, ANY),
        ),
        cq("b", rg(fq("default", res(CPU, "2"), res(MEM, "2"))), cohort="cohort-three"),
        cq("c", rg(fq("default", res(CPU, "2"), res(MEM, "2"))), cohort="cohort-three"),
        ns(NS),
    ]


def adm(
    name: str,
    prio: int | None,
    qty: str,
    cq_name: str,
    res_name: str = CPU,
    flavor: str = "default",
    at: float = 0.0,
    creation: float | None = None,
) -> Any:
    """`MakeWorkload(name, "").Priority(p).Request(res, qty).ReserveQuotaAt(MakeAdmission(cq).Assignment(...), now+at)`."""
    return reserve(
        wl(name, NS, priority=prio, creation=creation, req={res_name: qty}),
        cq_name,
        a(res_name, flavor, qty),
        at=at,
    )


CASES: list[Scenario] = []


def case(
    slug: str,
    go_name: str,
    target: str,
    admitted_wls: list[Any],
    incoming: Any,
    victims: list[tuple[str, str]],
    queues: list[dict[str, Any]] | None = None,
) -> None:
    """Register one TestPreemption case; `victims` = [(name, reason)]; `queues` replaces the defaults."""
    objects = objs(queues if queues is not None else base(), lq("lq", NS, target), admitted_wls, incoming)
    source = f"{UPSTREAM}\nfunction: TestPreemption\ncase: {go_name}\ncommit: {COMMIT}"
    key = f"{NS}/{incoming.name}"
    pre = [{"workload": f"{NS}/{v}", "preemptor": key, "reason": r} for v, r in victims]
    heap, inad = ({target: [key]}, {}) if victims else ({}, {target: [key]})
    CASES.append(Scenario(f"preemption_{slug}", source, objects, [], pre, heap, inad))


def incoming(prio: int | None, **req: str) -> Any:
    return wl("in", NS, queue="lq", priority=prio, req=dict(req))


ICQ, REC, RWB = "InClusterQueue", "InCohortReclamation", "InCohortReclaimWhileBorrowing"

_std3 = [
    adm("low", -1, "2", "standalone"),
    adm("mid", None, "2", "standalone"),
    adm("high", 1, "2", "standalone"),
]
case(
    "preempt_lowest_priority",
    "preempt lowest priority",
    "standalone",
    _std3,
    incoming(1, cpu="2"),
    [("low", ICQ)],
)
case(
    "preempt_multiple",
    "preempt multiple",
    "standalone",
    _std3,
    incoming(1, cpu="3"),
    [("low", ICQ), ("mid", ICQ)],
)
case(
    "no_preemption_for_low_priority",
    "no preemption for low priority",
    "standalone",
    [adm("low", -1, "3", "standalone"), adm("mid", None, "3", "standalone")],
    incoming(-1, cpu="1"),
    [],
)
case(
    "not_enough_low_priority_workloads",
    "not enough low priority workloads",
    "standalone",
    [adm("low", -1, "3", "standalone"), adm("mid", None, "3", "standalone")],
    incoming(None, cpu="4"),
    [],
)
case(
    "some_free_quota_preempt_low_priority",
    "some free quota, preempt low priority",
    "standalone",
    [
        adm("low", -1, "1", "standalone"),
        adm("mid", None, "1", "standalone"),
        adm("high", 1, "3", "standalone"),
    ],
    incoming(1, cpu="2"),
    [("low", ICQ)],
)
case(
    "minimal_set_excludes_low_priority",
    "minimal set excludes low priority",
    "standalone",
    [
        adm("low", -1, "1", "standalone"),
        adm("mid", None, "2", "standalone"),
        adm("high", 1, "3", "standalone"),
    ],
    incoming(1, cpu="2"),
    [("mid", ICQ)],
)
case(
    "reclaim_quota_from_borrower",
    "reclaim quota from borrower",
    "c1",
    [adm("c1-low", -1, "3", "c1"), adm("c2-mid", None, "3", "c2"), adm("c2-high", 1, "6", "c2")],
    incoming(1, cpu="3"),
    [("c2-mid", REC)],
)
case(
    "not_enough_workloads_borrowing",
    "not enough workloads borrowing",
    "c1",
    [adm("c1-high", 1, "4", "c1"), adm("c2-low-1", -1, "4", "c2"), adm("c2-low-2", -1, "4", "c2")],
    incoming(1, cpu="4"),
    [],
)
case(
    "preempt_locally_borrow_other_resource_without_cohort_candidates",
    "preempting locally and borrowing other resources in cohort, without cohort candidates",
    "c1",
    [adm("c1-low", -1, "4", "c1"), adm("c2-low-1", -1, "4", "c2"), adm("c2-high-2", 1, "4", "c2")],
    incoming(1, cpu="4", memory="5Gi"),
    [("c1-low", ICQ)],
)
case(
    "preempt_locally_borrow_same_resource",
    "preempting locally and borrowing same resource in cohort",
    "c1",
    [adm("c1-med", 0, "4", "c1"), adm("c1-low", -1, "4", "c1"), adm("c2-low-1", -1, "4", "c2")],
    incoming(1, cpu="4"),
    [("c1-low", ICQ)],
)
case(
    "preempt_locally_borrow_same_resource_no_borrowing_limit",
    "preempting locally and borrowing same resource in cohort; no borrowing limit in the cohort",
    "d1",
    [adm("d1-med", 0, "4", "d1"), adm("d1-low", -1, "4", "d1"), adm("d2-low-1", -1, "4", "d2")],
    incoming(1, cpu="4"),
    [("d1-low", ICQ)],
)
case(
    "preempt_locally_borrow_other_resource_with_cohort_candidates",
    "preempting locally and borrowing other resources in cohort, with cohort candidates",
    "c1",
    [
        adm("c1-med", 0, "4", "c1"),
        adm("c2-low-1", -1, "5", "c2"),
        adm("c2-low-2", -1, "1", "c2"),
        adm("c2-low-3", -1, "1", "c2"),
    ],
    incoming(1, cpu="2", memory="5Gi"),
    [("c1-med", ICQ)],
)
case(
    "preempt_locally_not_borrowing_in_one_queue_cohort",
    "preempting locally and not borrowing same resource in 1-queue cohort",
    "l1",
    [adm("l1-med", 0, "4", "l1"), adm("l1-low", -1, "2", "l1")],
    incoming(1, cpu="4"),
    [("l1-med", ICQ)],
)
case(
    "no_reclaim_from_same_priority_with_lower_priority_policy",
    "do not reclaim borrowed quota from same priority for withinCohort=ReclaimFromLowerPriority",
    "c1",
    [adm("c1", None, "2", "c1"), adm("c2-1", None, "4", "c2"), adm("c2-2", None, "4", "c2")],
    incoming(None, cpu="4"),
    [],
)
case(
    "reclaim_from_same_priority_with_any_policy",
    "reclaim borrowed quota from same priority for withinCohort=ReclaimFromAny",
    "c2",
    [adm("c1-1", None, "4", "c1"), adm("c1-2", 1, "4", "c1"), adm("c2", None, "2", "c2")],
    incoming(None, cpu="4"),
    [("c1-1", REC)],
)
case(
    "preempt_from_all_clusterqueues_in_cohort",
    "preempt from all ClusterQueues in cohort",
    "c1",
    [
        adm("c1-low", -1, "3", "c1"),
        adm("c1-mid", None, "2", "c1"),
        adm("c2-low", -1, "3", "c2"),
        adm("c2-mid", None, "4", "c2"),
    ],
    incoming(None, cpu="4"),
    [("c1-low", ICQ), ("c2-low", REC)],
)
case(
    "each_podset_preempts_a_different_flavor",
    "each podset preempts a different flavor",
    "standalone",
    [
        adm("low-alpha", -1, "2Gi", "standalone", MEM, "alpha"),
        adm("low-beta", -1, "2Gi", "standalone", MEM, "beta"),
    ],
    wl(
        "in",
        NS,
        queue="lq",
        podsets=[ps("launcher", 1, req={MEM: "2Gi"}), ps("workers", 2, req={MEM: "1Gi"})],
    ),
    [("low-alpha", ICQ), ("low-beta", ICQ)],
)
case(
    "preempt_newer_workloads_with_same_priority",
    "preempt newer workloads with the same priority",
    "preventStarvation",
    [
        adm("wl1", 2, "2", "preventStarvation"),
        adm("wl2", 1, "2", "preventStarvation", at=1, creation=0),
        adm("wl3", 1, "2", "preventStarvation", creation=0),
    ],
    wl("in", NS, queue="lq", priority=1, creation=-15, podsets=[ps("launcher", 1, req={CPU: "2"})]),
    [("wl2", ICQ)],
)
case(
    "bwc_preempt_lower_priority_in_other_cq_while_borrowing",
    "use BorrowWithinCohort; allow preempting a lower-priority workload from another ClusterQueue while borrowing",
    "a_standard",
    [adm("a_best_effort_low", -1, "10", "a_best_effort"), adm("b_best_effort_low", -1, "1", "b_best_effort")],
    incoming(None, cpu="10"),
    [("a_best_effort_low", RWB)],
)
case(
    "bwc_no_preemption_above_threshold_when_still_borrowing",
    "use BorrowWithinCohort; don't allow preempting a lower-priority workload with priority above "
    "MaxPriorityThreshold, if borrowing is required even after the preemption",
    "a_standard",
    [adm("b_standard", 1, "10", "b_standard")],
    incoming(2, cpu="10"),
    [],
)
case(
    "bwc_preempt_above_threshold_when_not_borrowing_after",
    "use BorrowWithinCohort; allow preempting a lower-priority workload with priority above MaxPriorityThreshold, "
    "if borrowing is not required after the preemption",
    "a_standard",
    [adm("b_standard", 1, "13", "b_standard")],
    incoming(2, cpu="1"),
    [("b_standard", REC)],
)
case(
    "bwc_no_preemption_in_same_cq_when_within_never",
    "use BorrowWithinCohort; don't allow for preemption of lower-priority workload from the same ClusterQueue",
    "a_standard",
    [adm("a_standard", 1, "13", "a_standard")],
    incoming(2, cpu="1"),
    [],
)
case(
    "bwc_only_preempt_from_cq_when_no_workloads_below_threshold",
    "use BorrowWithinCohort; only preempt from CQ if no workloads below threshold and already above nominal",
    "b_standard",
    [
        adm("a_standard_1", 1, "10", "a_standard"),
        adm("a_standard_2", 1, "1", "a_standard"),
        adm("b_standard_1", 1, "1", "b_standard"),
        adm("b_standard_2", 2, "1", "b_standard"),
    ],
    incoming(3, cpu="1"),
    [("b_standard_1", ICQ)],
)
case(
    "bwc_preempt_from_cq_and_other_cqs_below_threshold",
    "use BorrowWithinCohort; preempt from CQ and from other CQs with workloads below threshold",
    "b_standard",
    [
        adm("b_standard_high", 2, "10", "b_standard"),
        adm("b_standard_mid", 1, "1", "b_standard"),
        adm("a_best_effort_low", -1, "1", "a_best_effort"),
        adm("a_best_effort_lower", -2, "1", "a_best_effort"),
    ],
    incoming(2, cpu="2"),
    [("b_standard_mid", ICQ), ("a_best_effort_lower", RWB)],
)
case(
    "reclaim_quota_from_lender",
    "reclaim quota from lender",
    "lend1",
    [
        adm("lend1-low", -1, "3", "lend1"),
        adm("lend2-mid", None, "3", "lend2"),
        adm("lend2-high", 1, "4", "lend2"),
    ],
    incoming(1, cpu="3"),
    [("lend2-mid", REC)],
)


case(
    "cannot_preempt_other_cqs_beyond_requestable_quota_with_lending_limit",
    "cannot preempt from other ClusterQueues if exceeds requestable quota including lending limit",
    "lend1",
    [adm("lend2-low", -1, "10", "lend2")],
    incoming(None, cpu="9"),
    [],
)
case(
    "preempt_from_all_clusterqueues_in_cohort_lend",
    "preempt from all ClusterQueues in cohort-lend",
    "lend1",
    [
        adm("lend1-low", -1, "3", "lend1"),
        adm("lend1-mid", None, "2", "lend1"),
        adm("lend2-low", -1, "3", "lend2"),
        adm("lend2-mid", None, "4", "lend2"),
    ],
    incoming(None, cpu="4"),
    [("lend1-low", ICQ), ("lend2-low", REC)],
)


def _three(cpu_only: bool = True) -> list[Any]:
    mem = None if cpu_only else "1"

    def w(name: str, prio: int, cq_name: str) -> Any:
        if mem is None:
            return adm(name, prio, "1", cq_name)
        return reserve(
            wl(name, NS, priority=prio, req={CPU: "1", MEM: mem}),
            cq_name,
            Assign("main", {CPU: "default", MEM: "default"}, {CPU: "1", MEM: mem}),
        )

    return [w("a1", -2, "a"), w("a2", -2, "a"), w("a3", -1, "a")] + [w(f"b{i}", 0, "b") for i in (1, 2, 3)]


case(
    "preemptions_from_cq_when_target_queue_exhausted_single_resource",
    "preemptions from cq when target queue is exhausted for the single requested resource",
    "a",
    _three(),
    incoming(0, cpu="2"),
    [("a1", ICQ), ("a2", ICQ)],
)
case(
    "preemptions_from_cq_when_target_queue_exhausted_two_resources",
    "preemptions from cq when target queue is exhausted for two requested resources",
    "a",
    _three(cpu_only=False),
    incoming(0, cpu="2", memory="2"),
    [("a1", ICQ), ("a2", ICQ)],
)
case(
    "preemptions_from_cq_when_target_queue_exhausted_for_one_of_two_resources",
    "preemptions from cq when target queue is exhausted for one requested resource, but not the other",
    "a",
    _three(),
    incoming(0, cpu="2", memory="2"),
    [("a1", ICQ), ("a2", ICQ)],
)
case(
    "allow_preemption_from_other_cqs_if_target_cq_not_exhausted",
    "allow preemption from other cluster queues if target cq is not exhausted for the requested resource",
    "a",
    [
        adm("a1", -1, "1", "a"),
        *(adm(f"b{i}", 0, "1", "b") for i in (1, 2, 3, 4)),
        adm("b5", -1, "1", "b"),
    ],
    incoming(None, cpu="2"),
    [("a1", ICQ), ("b5", REC)],
)
case(
    "long_range_preemption",
    "long range preemption",
    "cq-left",
    [adm("to-be-preempted", None, "5", "cq-right")],
    wl("incoming", NS, queue="lq", req={CPU: "8"}),
    [("to-be-preempted", REC)],
    queues=[
        rf("default"),
        cq("cq-left", rg(fq("default", res(CPU, "10"))), cohort="cohort-left", preemption=_pre(reclaim=ANY)),
        cq("cq-right", rg(fq("default", res(CPU, "0"))), cohort="cohort-right"),
        cohort("cohort-left", parent="root"),
        cohort("cohort-right", parent="root"),
        ns(NS),
    ],
)


def main() -> None:
    root = Path(__file__).resolve().parent / "scenarios"
    for sc in CASES:
        sc.write(root)
    print(f"wrote {len(CASES)} scenarios")


if __name__ == "__main__":
    main()
