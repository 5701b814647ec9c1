"""Transcription of `TestScheduleForFairSharing` (kubernetes-sigs/kueue pkg/scheduler/scheduler_fs_test.go).

The newest stored version (v1beta2 API). Same fixtures as TestSchedule plus namespace `default`.
Only cases that are new relative to the older TestSchedule transcription, or that changed there
(the overlapping-targets case now sets reclaimWithinCohort: Any explicitly), are written here.
Fair sharing is enabled by a Kueue Configuration in every case except the one marked FS=false.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.kueue_upstream.kueue_dsl import (
    Scenario,
    a,
    admitted,
    cohort,
    cq,
    fair_sharing_config,
    fq,
    lq,
    ns,
    objs,
    ps,
    res,
    reserve,
    rg,
    simple_reserve,
    wl,
)
from tests.kueue_upstream.transcribe_schedule import base

UPSTREAM = "kubernetes-sigs/kueue pkg/scheduler/scheduler_fs_test.go"
COMMIT = "955a6817afedfac0392baf7fca18397cc67a5c1b (stored copy; v1beta2 API)"
CPU = "cpu"
LP = "LowerPriority"

CASES: list[Scenario] = []


def case(
    slug: str,
    go_name: str,
    extra: list[Any],
    *,
    adm: list[dict[str, Any]] | None = None,
    pre: list[tuple[str, str, str]] | None = None,
    heap: dict[str, list[str]] | None = None,
    inad: dict[str, list[str]] | None = None,
    fs: bool = True,
    note: str = "",
) -> None:
    """Register one TestScheduleForFairSharing case."""
    objects = objs(base(), ns("default"), extra, [fair_sharing_config()] if fs else [])
    source = f"{UPSTREAM}\nfunction: TestScheduleForFairSharing\ncase: {go_name}\ncommit: {COMMIT}"
    preempted = [{"workload": w, "preemptor": p, "reason": r} for w, p, r in (pre or [])]
    CASES.append(
        Scenario(f"fs_{slug}", source, objects, adm or [], preempted, heap or {}, inad or {}, fs, note)
    )


def one(n: int, cpu: str) -> Any:
    return ps("one", n, req={CPU: cpu})


def held(
    name: str, nsp: str, queue: str, cqn: str, qty: str, flavor: str = "on-demand", count: int = 1
) -> Any:
    """A workload with podset "one" holding quota."""
    return reserve(
        wl(name, nsp, queue=queue, podsets=[one(count, "1" if count > 1 else qty)]),
        cqn,
        a(CPU, flavor, qty, "one", count),
    )


case(
    "nominal_first_admits_within_nominal_despite_higher_cq_drs",
    "with fair sharing: nominal-first ordering admits workload fitting within nominal despite higher CQ DRS",
    [
        cq(
            "fs-nom-a",
            rg(fq("on-demand", res(CPU, "50", "0"))),
            rg(fq("spot", res(CPU, "50", "50"))),
            cohort="fs-nom",
        ),
        cq(
            "fs-nom-b",
            rg(fq("on-demand", res(CPU, "10", "50"))),
            rg(fq("spot", res(CPU, "50", "0"))),
            cohort="fs-nom",
        ),
        lq("fs-nom", "eng-alpha", "fs-nom-a"),
        lq("fs-nom", "eng-beta", "fs-nom-b"),
        held("spot-heavy", "eng-alpha", "fs-nom", "fs-nom-a", "80", "spot", 80),
        held("light-usage", "eng-beta", "fs-nom", "fs-nom-b", "5", "on-demand", 5),
        wl("borrow-wl", "eng-beta", queue="fs-nom", creation=-60, podsets=[one(15, "1")]),
        wl("nom-wl", "eng-alpha", queue="fs-nom", creation=0, podsets=[one(45, "1")]),
    ],
    adm=[admitted("eng-alpha/nom-wl", "fs-nom-a", ("one", 45, {CPU: "on-demand"}))],
    heap={"fs-nom-b": ["eng-beta/borrow-wl"]},
    note="Upstream gives each CQ two resource groups that both cover cpu (one per flavor); the webhook would "
    "reject that, the scheduler (tested here) accepts it. Transcribed as is.",
)


def _nominal_first(slug: str, go_name: str, cohorts: list[dict[str, Any]], a_parent: str) -> None:
    case(
        slug,
        go_name,
        [
            *cohorts,
            cq("cq-a", rg(fq("on-demand", res(CPU, "0"))), cohort=a_parent),
            cq("cq-b", rg(fq("on-demand", res(CPU, "5"))), cohort="Cohort-B"),
            cq("cq-c", rg(fq("on-demand", res(CPU, "0"))), cohort="Cohort-B"),
            *(lq(f"lq-{x}", "eng-alpha", f"cq-{x}") for x in "abc"),
            held("c0", "eng-alpha", "lq-c", "cq-c", "10"),
            wl("wl-a", "eng-alpha", queue="lq-a", podsets=[one(1, "5")]),
            wl("wl-b", "eng-alpha", queue="lq-b", podsets=[one(1, "5")]),
        ],
        adm=[admitted("eng-alpha/wl-a", "cq-a", ("one", 1, {CPU: "on-demand"}))],
        heap={"cq-b": ["eng-alpha/wl-b"]},
    )


_nominal_first(
    "hierarchical_nominal_first_prefers_non_borrowing_subtree",
    "with fair sharing: hierarchical nominal-first prefers non-borrowing subtree",
    [
        cohort("root"),
        cohort("Cohort-A", rg(fq("on-demand", res(CPU, "10"))), parent="root"),
        cohort("Cohort-B", parent="root"),
    ],
    "Cohort-A",
)
_nominal_first(
    "hierarchical_nominal_first_deeper_nesting",
    "with fair sharing: hierarchical nominal-first with deeper nesting",
    [
        cohort("root"),
        cohort("Cohort-A", parent="root"),
        cohort("SUB-A", rg(fq("on-demand", res(CPU, "10"))), parent="Cohort-A"),
        cohort("Cohort-B", parent="root"),
    ],
    "SUB-A",
)
case(
    "hierarchical_nominal_first_mixed_cq_and_cohort_quotas",
    "with fair sharing: hierarchical nominal-first with mixed CQ and cohort quotas",
    [
        cohort("root"),
        cohort("Cohort-A", rg(fq("on-demand", res(CPU, "10"))), parent="root"),
        cohort("Cohort-B", rg(fq("on-demand", res(CPU, "10"))), parent="root"),
        cq("cq-a1", rg(fq("on-demand", res(CPU, "5"))), cohort="Cohort-A"),
        cq("cq-a2", rg(fq("on-demand", res(CPU, "3"))), cohort="Cohort-A"),
        cq("cq-b", rg(fq("on-demand", res(CPU, "5"))), cohort="Cohort-B"),
        cq("cq-c", rg(fq("on-demand", res(CPU, "3"))), cohort="Cohort-B"),
        *(lq(f"lq-{x}", "eng-alpha", f"cq-{x}") for x in ("a1", "a2", "b", "c")),
        held("a2-admitted", "eng-alpha", "lq-a2", "cq-a2", "6"),
        held("c-admitted", "eng-alpha", "lq-c", "cq-c", "20"),
        wl("wl-a1", "eng-alpha", queue="lq-a1", podsets=[one(1, "7")]),
        wl("wl-b", "eng-alpha", queue="lq-b", podsets=[one(1, "4")]),
    ],
    adm=[admitted("eng-alpha/wl-a1", "cq-a1", ("one", 1, {CPU: "on-demand"}))],
    heap={"cq-b": ["eng-alpha/wl-b"]},
)
case(
    "hierarchical_nominal_first_per_flavor",
    "with fair sharing: hierarchical nominal-first per-flavor ignores cross-flavor borrowing",
    [
        cohort("root"),
        cohort("Cohort-A", rg(fq("on-demand", res(CPU, "10"))), parent="root"),
        cohort("Cohort-B", rg(fq("spot", res(CPU, "10"))), parent="root"),
        cq("cq-a", rg(fq("on-demand", res(CPU, "0")), fq("spot", res(CPU, "0"))), cohort="Cohort-A"),
        cq("cq-b", rg(fq("on-demand", res(CPU, "5")), fq("spot", res(CPU, "0"))), cohort="Cohort-B"),
        lq("lq-a", "eng-alpha", "cq-a"),
        lq("lq-b", "eng-alpha", "cq-b"),
        held("spot-admitted", "eng-alpha", "lq-a", "cq-a", "5", "spot"),
        held("od-admitted", "eng-alpha", "lq-b", "cq-b", "8"),
        wl("wl-a", "eng-alpha", queue="lq-a", podsets=[one(1, "4")]),
        wl("wl-b", "eng-alpha", queue="lq-b", podsets=[one(1, "4")]),
    ],
    adm=[admitted("eng-alpha/wl-a", "cq-a", ("one", 1, {CPU: "on-demand"}))],
    heap={"cq-b": ["eng-alpha/wl-b"]},
)
for _slug, _go, _weight in (
    (
        "two_queues_weight_zero_admit_the_one_borrowing_less",
        "fair sharing two queues with weight 0 schedules workload which borrows less",
        "0",
    ),
    (
        "two_queues_high_weight_admit_the_one_borrowing_less",
        "fair sharing two queues with high weight schedules workload which borrows less",
        "123456789",
    ),
):
    _pre = {"reclaimWithinCohort": "Any", "withinClusterQueue": "Never"}
    case(
        _slug,
        _go,
        [
            cohort("A", rg(fq("on-demand", res(CPU, "8")))),
            cq("b", rg(fq("on-demand", res(CPU, "0"))), cohort="A", preemption=_pre, weight=_weight),
            cq("c", rg(fq("on-demand", res(CPU, "0"))), cohort="A", preemption=_pre, weight=_weight),
            lq("lq-b", "eng-alpha", "b"),
            lq("lq-c", "eng-alpha", "c"),
            held("b0", "eng-alpha", "lq-b", "b", "4"),
            wl("b1", "eng-alpha", queue="lq-b", priority=9001, podsets=[one(1, "4")]),
            wl("c1", "eng-alpha", queue="lq-c", priority=0, podsets=[one(1, "4")]),
        ],
        adm=[admitted("eng-alpha/c1", "c", ("one", 1, {CPU: "on-demand"}))],
        heap={"b": ["eng-alpha/b1"]},
    )


def _own(name: str, extra_res: str) -> dict[str, Any]:
    return cq(
        name,
        rg(fq("default", res(CPU, "0"), res(extra_res, "1"))),
        cohort="other",
        preemption={"withinClusterQueue": LP, "reclaimWithinCohort": "Any"},
    )


case(
    "skip_overlapping_preemption_targets_explicit_reclaim_any",
    "multiple preemptions skip overlapping preemption targets",
    [
        _own("other-alpha", "alpha-resource"),
        _own("other-beta", "beta-resource"),
        _own("other-gamma", "gamma-resource"),
        cq("resource-bank", rg(fq("default", res(CPU, "9"))), cohort="other"),
        lq("other", "eng-alpha", "other-alpha"),
        lq("other", "eng-beta", "other-beta"),
        lq("other", "eng-gamma", "other-gamma"),
        reserve(
            wl("a1", "eng-alpha", priority=0, queue="other", req={"alpha-resource": "1"}),
            "other-alpha",
            a("alpha-resource", "default", "1"),
        ),
        reserve(
            wl("b1", "eng-beta", priority=0, queue="other", req={"beta-resource": "1"}),
            "other-beta",
            a("beta-resource", "default", "1"),
        ),
        reserve(
            wl("c1", "eng-gamma", priority=0, queue="other", req={CPU: "9", "gamma-resource": "1"}),
            "other-gamma",
            a(CPU, "default", "9"),
        ),
        wl(
            "preemptor",
            "eng-alpha",
            priority=100,
            queue="other",
            req={CPU: "3", "alpha-resource": "1"},
            uid="wl-preemptor",
        ),
        wl(
            "pretending-preemptor",
            "eng-beta",
            priority=99,
            queue="other",
            req={CPU: "3", "beta-resource": "1"},
        ),
    ],
    pre=[
        ("eng-alpha/a1", "eng-alpha/preemptor", "InClusterQueue"),
        ("eng-gamma/c1", "eng-alpha/preemptor", "InCohortFairSharing"),
    ],
    heap={"other-alpha": ["eng-alpha/preemptor"], "other-beta": ["eng-beta/pretending-preemptor"]},
    note="Upstream asserts pretending-preemptor's condition message 'Workload has overlapping preemption "
    "targets with another workload' and wantSkippedPreemptions other-beta: 1.",
)
for _slug, _fs in (
    ("prefer_flavor_with_most_local_capacity", True),
    ("prefer_flavor_with_most_local_capacity_without_fair_sharing", False),
):
    case(
        _slug,
        "prefer flavor with most local capacity" + ("" if _fs else " (FS=false)"),
        [
            cohort("root-cohort", rg(fq("on-demand", res("gpu", "2")), fq("spot", res("gpu", "0")))),
            cohort(
                "child-cohort",
                rg(fq("on-demand", res("gpu", "5")), fq("spot", res("gpu", "7"))),
                parent="root-cohort",
            ),
            cq(
                "queue1",
                rg(fq("on-demand", res("gpu", "3")), fq("spot", res("gpu", "3"))),
                cohort="child-cohort",
                preemption={"withinClusterQueue": LP, "reclaimWithinCohort": "Any"},
                fungibility={"whenCanPreempt": "TryNextFlavor", "whenCanBorrow": "TryNextFlavor"},
            ),
            lq("queue1", "default", "queue1"),
            simple_reserve(wl("a1", "default", queue="queue1", req={"gpu": "8"}), "queue1", "on-demand"),
            simple_reserve(wl("a2", "default", queue="queue1", req={"gpu": "3"}), "queue1", "spot"),
            wl("a3", "default", queue="queue1", req={"gpu": "1"}),
        ],
        adm=[admitted("default/a3", "queue1", ("main", 1, {"gpu": "spot"}))],
        fs=_fs,
    )
case(
    "preemption_over_borrowing_preempts_in_first_flavor",
    "PreemptionOverBorrowing with fair sharing: preempt in first flavor instead of borrowing in second",
    [
        cq(
            "fs-pob-cq",
            rg(fq("on-demand", res(CPU, "5", "0")), fq("spot", res(CPU, "0", "5"))),
            cohort="fs-pob-cohort",
            weight="1",
            preemption={"withinClusterQueue": LP},
            fungibility={
                "whenCanBorrow": "TryNextFlavor",
                "whenCanPreempt": "TryNextFlavor",
                "preference": "PreemptionOverBorrowing",
            },
        ),
        cq(
            "fs-pob-lender",
            rg(fq("on-demand", res(CPU, "0")), fq("spot", res(CPU, "5"))),
            cohort="fs-pob-cohort",
            weight="1",
        ),
        lq("fs-pob-queue", "default", "fs-pob-cq"),
        reserve(
            wl("fs-low-pob", "default", queue="fs-pob-queue", priority=-1, req={CPU: "5"}),
            "fs-pob-cq",
            a(CPU, "on-demand", "5000m"),
            admitted=True,
        ),
        wl("fs-high-pob", "default", queue="fs-pob-queue", priority=0, req={CPU: "5"}, uid="wl-fs-high-pob"),
    ],
    pre=[("default/fs-low-pob", "default/fs-high-pob", "InClusterQueue")],
    heap={"fs-pob-cq": ["default/fs-high-pob"]},
)


def main() -> None:
    root = Path(__file__).resolve().parent / "scenarios"
    for sc in CASES:
        sc.write(root)
    print(f"wrote {len(CASES)} scenarios")


if __name__ == "__main__":
    main()
