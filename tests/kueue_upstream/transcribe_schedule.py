"""Transcription of `TestSchedule` (kubernetes-sigs/kueue pkg/scheduler/scheduler_test.go).

Run `python -m tests.kueue_upstream.transcribe_schedule` (from the repository root) to (re)write the scenario directories.
Each case keeps the Go test's objects; `wantScheduled` -> admitted (flavors from `wantAssignments`),
`wantPreempted` -> preempted, `wantLeft` -> pending/heap, `wantInadmissibleLeft` -> pending/inadmissible.
TestSchedule checks the set of preempted workloads but not the reason; the reasons written here are
derived from Kueue's classification rules (see each source.txt).
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
    dep_selector,
    fair_sharing_config,
    fq,
    lq,
    ns,
    objs,
    ps,
    res,
    reserve,
    rf,
    rg,
    simple_reserve,
    wl,
)

UPSTREAM = "kubernetes-sigs/kueue pkg/scheduler/scheduler_test.go"
COMMIT = "005e97cfe1cce0acdb52e8ee3f06136503d6333d"
CPU = "cpu"
GPU = "example.com/gpu"

LP = "LowerPriority"


def base() -> list[dict[str, Any]]:
    """The fixtures shared by every TestSchedule case."""
    return [
        rf("default"),
        rf("on-demand"),
        rf("spot"),
        rf("model-a"),
        cq(
            "sales",
            rg(fq("default", res(CPU, "50", "0"))),
            ns_selector=dep_selector("sales"),
            strategy="StrictFIFO",
        ),
        cq(
            "eng-alpha",
            rg(fq("on-demand", res(CPU, "50", "50")), fq("spot", res(CPU, "100", "0"))),
            cohort="eng",
            ns_selector=dep_selector("eng"),
            strategy="StrictFIFO",
        ),
        cq(
            "eng-beta",
            rg(fq("on-demand", res(CPU, "50", "10")), fq("spot", res(CPU, "0", "100"))),
            rg(fq("model-a", res(GPU, "20", "0"))),
            cohort="eng",
            ns_selector=dep_selector("eng"),
            strategy="StrictFIFO",
            preemption={"reclaimWithinCohort": "Any", "withinClusterQueue": LP},
        ),
        cq("flavor-nonexistent-cq", rg(fq("nonexistent-flavor", res(CPU, "50"))), strategy="StrictFIFO"),
        cq(
            "lend-a",
            rg(fq("default", res(CPU, "3", "", "2"))),
            cohort="lend",
            ns_selector=dep_selector("lend"),
        ),
        cq(
            "lend-b",
            rg(fq("default", res(CPU, "2", "", "2"))),
            cohort="lend",
            ns_selector=dep_selector("lend"),
        ),
        lq("main", "sales", "sales"),
        lq("blocked", "sales", "eng-alpha"),
        lq("main", "eng-alpha", "eng-alpha"),
        lq("main", "eng-beta", "eng-beta"),
        lq("flavor-nonexistent-queue", "sales", "flavor-nonexistent-cq"),
        lq("cq-nonexistent-queue", "sales", "nonexistent-cq"),
        lq("lend-a-queue", "lend", "lend-a"),
        lq("lend-b-queue", "lend", "lend-b"),
        ns("eng-alpha", dep="eng"),
        ns("eng-beta", dep="eng"),
        ns("eng-gamma", dep="eng"),
        ns("sales", dep="sales"),
        ns("lend", dep="lend"),
    ]


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
    fs: bool = False,
    note: str = "",
) -> None:
    """Register one TestSchedule case."""
    objects = objs(base(), extra, [fair_sharing_config()] if fs else [])
    source = f"{UPSTREAM}\nfunction: TestSchedule\ncase: {go_name}\ncommit: {COMMIT}"
    preempted = [{"workload": w, "preemptor": p, "reason": r} for w, p, r in (pre or [])]
    CASES.append(
        Scenario(f"schedule_{slug}", source, objects, adm or [], preempted, heap or {}, inad or {}, fs, note)
    )


def one(n: int, cpu: str = "1", name: str = "one", min_count: int | None = None, res_name: str = CPU) -> Any:
    return ps(name, n, min_count, req={res_name: cpu})


# ---------------------------------------------------------------------------------------------
case(
    "second_flavor_when_first_has_no_preemption_candidates",
    "use second flavor when the first has no preemption candidates; WhenCanPreempt: Preempt",
    [
        cq(
            "other-alpha",
            rg(fq("on-demand", res(CPU, "50", "50")), fq("spot", res(CPU, "100", "0"))),
            preemption={"withinClusterQueue": LP},
            fungibility={"whenCanPreempt": "Preempt"},
        ),
        lq("other", "eng-alpha", "other-alpha"),
        reserve(
            wl("admitted", "eng-alpha", queue="other", req={CPU: "50"}),
            "other-alpha",
            a(CPU, "on-demand", "50"),
            admitted=True,
        ),
        wl("new", "eng-alpha", queue="other", req={CPU: "20"}),
    ],
    adm=[admitted("eng-alpha/new", "other-alpha", ("main", 1, {CPU: "spot"}))],
)

case(
    "single_clusterqueue_full",
    "single clusterQueue full",
    [
        wl("new", "sales", queue="main", podsets=[one(11)]),
        reserve(wl("assigned", "sales", podsets=[one(40)]), "sales", a(CPU, "default", "40000m", "one", 40)),
    ],
    heap={"sales": ["sales/new"]},
)

case(
    "failed_to_match_clusterqueue_selector",
    "failed to match clusterQueue selector",
    [wl("new", "sales", queue="blocked", podsets=[one(1)])],
    inad={"eng-alpha": ["sales/new"]},
)

case(
    "admit_in_different_cohorts",
    "admit in different cohorts",
    [
        wl("new", "sales", queue="main", podsets=[one(1)]),
        wl("new", "eng-alpha", queue="main", podsets=[one(51)]),
    ],
    adm=[
        admitted("sales/new", "sales", ("one", 1, {CPU: "default"})),
        admitted("eng-alpha/new", "eng-alpha", ("one", 51, {CPU: "on-demand"})),
    ],
)

case(
    "admit_in_same_cohort_with_no_borrowing",
    "admit in same cohort with no borrowing",
    [
        wl("new", "eng-alpha", queue="main", podsets=[one(40)]),
        wl("new", "eng-beta", queue="main", podsets=[one(40)]),
    ],
    adm=[
        admitted("eng-alpha/new", "eng-alpha", ("one", 40, {CPU: "on-demand"})),
        admitted("eng-beta/new", "eng-beta", ("one", 40, {CPU: "on-demand"})),
    ],
)

case(
    "assign_multiple_resources_and_flavors",
    "assign multiple resources and flavors",
    [
        wl(
            "new",
            "eng-beta",
            queue="main",
            podsets=[ps("one", 10, req={CPU: "6", GPU: "1"}), ps("two", 40, req={CPU: "1"})],
        )
    ],
    adm=[
        admitted(
            "eng-beta/new",
            "eng-beta",
            ("one", 10, {CPU: "on-demand", GPU: "model-a"}),
            ("two", 40, {CPU: "spot"}),
        )
    ],
)

case(
    "cannot_borrow_if_cohort_assigned_would_overadmit",
    "cannot borrow if cohort was assigned and would result in overadmission",
    [
        wl("new", "eng-alpha", queue="main", podsets=[one(45)]),
        wl("new", "eng-beta", queue="main", podsets=[one(56)]),
    ],
    adm=[admitted("eng-alpha/new", "eng-alpha", ("one", 45, {CPU: "on-demand"}))],
    heap={"eng-beta": ["eng-beta/new"]},
)

case(
    "can_borrow_if_cohort_assigned_no_overadmission",
    "can borrow if cohort was assigned and will not result in overadmission",
    [
        wl("new", "eng-alpha", queue="main", podsets=[one(45)]),
        wl("new", "eng-beta", queue="main", podsets=[one(55)]),
    ],
    adm=[
        admitted("eng-alpha/new", "eng-alpha", ("one", 45, {CPU: "on-demand"})),
        admitted("eng-beta/new", "eng-beta", ("one", 55, {CPU: "on-demand"})),
    ],
)

case(
    "can_borrow_if_needs_reclaim_in_different_flavor",
    "can borrow if needs reclaim from cohort in different flavor",
    [
        wl("can-reclaim", "eng-alpha", queue="main", req={CPU: "100"}),
        wl("needs-to-borrow", "eng-beta", queue="main", req={CPU: "1"}),
        reserve(wl("user-on-demand", "eng-beta", req={CPU: "50"}), "eng-beta", a(CPU, "on-demand", "50000m")),
        reserve(wl("user-spot", "eng-beta", req={CPU: "1"}), "eng-beta", a(CPU, "spot", "1000m")),
    ],
    adm=[admitted("eng-beta/needs-to-borrow", "eng-beta", ("main", 1, {CPU: "on-demand"}))],
    heap={"eng-alpha": ["eng-alpha/can-reclaim"]},
)

case(
    "workload_exceeds_lending_limit_when_borrowing",
    "workload exceeds lending limit when borrow in cohort",
    [
        reserve(wl("a", "lend", req={CPU: "2"}), "lend-b", a(CPU, "default", "2000m")),
        wl("b", "lend", queue="lend-b-queue", req={CPU: "3"}),
    ],
    inad={"lend-b": ["lend/b"]},
)

case(
    "preempt_workloads_in_clusterqueue_and_cohort",
    "preempt workloads in ClusterQueue and cohort",
    [
        wl("preemptor", "eng-beta", queue="main", req={CPU: "20"}),
        reserve(wl("use-all-spot", "eng-alpha", req={CPU: "100"}), "eng-alpha", a(CPU, "spot", "100000m")),
        reserve(
            wl("low-1", "eng-beta", priority=-1, req={CPU: "30"}), "eng-beta", a(CPU, "on-demand", "30000m")
        ),
        reserve(
            wl("low-2", "eng-beta", priority=-2, req={CPU: "10"}), "eng-beta", a(CPU, "on-demand", "10000m")
        ),
        reserve(wl("borrower", "eng-alpha", req={CPU: "60"}), "eng-alpha", a(CPU, "on-demand", "60000m")),
    ],
    pre=[
        ("eng-alpha/borrower", "eng-beta/preemptor", "InCohortReclamation"),
        ("eng-beta/low-2", "eng-beta/preemptor", "InClusterQueue"),
    ],
    heap={"eng-beta": ["eng-beta/preemptor"]},
)

case(
    "multiple_cqs_need_preemption",
    "multiple CQs need preemption",
    [
        cq("other-alpha", rg(fq("on-demand", res(CPU, "50", "50"))), cohort="other"),
        cq(
            "other-beta",
            rg(fq("on-demand", res(CPU, "50", "10"))),
            cohort="other",
            preemption={"reclaimWithinCohort": "Any", "withinClusterQueue": LP},
        ),
        lq("other", "eng-alpha", "other-alpha"),
        lq("other", "eng-beta", "other-beta"),
        wl("preemptor", "eng-beta", priority=-1, queue="other", req={CPU: "1"}),
        wl("pending", "eng-alpha", priority=1, queue="other", req={CPU: "1"}),
        reserve(wl("use-all", "eng-alpha", req={CPU: "100"}), "other-alpha", a(CPU, "on-demand", "100")),
    ],
    pre=[("eng-alpha/use-all", "eng-beta/preemptor", "InCohortReclamation")],
    heap={"other-beta": ["eng-beta/preemptor"]},
    inad={"other-alpha": ["eng-alpha/pending"]},
)

case(
    "cannot_borrow_resource_not_listed",
    "cannot borrow resource not listed in clusterQueue",
    [wl("new", "eng-alpha", queue="main", req={GPU: "1"})],
    heap={"eng-alpha": ["eng-alpha/new"]},
)

case(
    "not_enough_to_borrow_fallback_to_next_flavor",
    "not enough resources to borrow, fallback to next flavor; WhenCanPreempt: TryNextFlavor",
    [
        wl("new", "eng-alpha", queue="main", podsets=[one(60)]),
        reserve(
            wl("existing", "eng-beta", podsets=[one(45)]),
            "eng-beta",
            a(CPU, "on-demand", "45000m", "one", 45),
        ),
    ],
    adm=[admitted("eng-alpha/new", "eng-alpha", ("one", 60, {CPU: "spot"}))],
)

case(
    "clusterqueue_with_nonexistent_flavor",
    "workload should not fit in clusterQueue with nonexistent flavor",
    [wl("foo", "sales", queue="flavor-nonexistent-queue", req={CPU: "1"})],
    heap={"flavor-nonexistent-cq": ["sales/foo"]},
)

_gamma = cq(
    "eng-gamma",
    rg(fq("on-demand", res(CPU, "50", "10")), fq("spot", res(CPU, "0", "100"))),
    cohort="eng",
    preemption={"reclaimWithinCohort": "Any", "withinClusterQueue": LP},
)
_existing = reserve(
    wl("existing", "eng-gamma", podsets=[one(51, name="borrow-on-demand"), one(100, name="use-all-spot")]),
    "eng-gamma",
    a(CPU, "on-demand", "51", "borrow-on-demand", 51),
    a(CPU, "spot", "100", "use-all-spot", 100),
)
case(
    "no_overadmission_while_borrowing",
    "no overadmission while borrowing",
    [
        _gamma,
        lq("main", "eng-gamma", "eng-gamma"),
        wl("new", "eng-beta", queue="main", creation=-2, podsets=[one(50)]),
        wl("new-alpha", "eng-alpha", queue="main", creation=-1, podsets=[one(1)]),
        wl("new-gamma", "eng-gamma", queue="main", creation=0, podsets=[one(50)]),
        _existing,
    ],
    adm=[
        admitted("eng-beta/new", "eng-beta", ("one", 50, {CPU: "on-demand"})),
        admitted("eng-alpha/new-alpha", "eng-alpha", ("one", 1, {CPU: "on-demand"})),
    ],
    inad={"eng-gamma": ["eng-gamma/new-gamma"]},
)

case(
    "partial_admission_single_variable_podset",
    "partial admission single variable pod set",
    [wl("new", "sales", queue="main", podsets=[ps("one", 50, 20, req={CPU: "2"})])],
    adm=[admitted("sales/new", "sales", ("one", 25, {CPU: "default"}))],
)

for _slug, _go, _count in (
    ("partial_admission_preempt_first", "partial admission single variable pod set, preempt first", 20),
    (
        "partial_admission_preempt_with_partial_admission",
        "partial admission single variable pod set, preempt with partial admission",
        30,
    ),
):
    case(
        _slug,
        _go,
        [
            wl("new", "eng-beta", queue="main", priority=4, podsets=[ps("one", _count, 10, req={GPU: "1"})]),
            reserve(
                wl("old", "eng-beta", priority=-4, podsets=[ps("one", 10, req={GPU: "1"})]),
                "eng-beta",
                a(GPU, "model-a", "10", "one", 10),
            ),
        ],
        pre=[("eng-beta/old", "eng-beta/new", "InClusterQueue")],
        heap={"eng-beta": ["eng-beta/new"]},
    )

case(
    "partial_admission_multiple_variable_podsets",
    "partial admission multiple variable pod sets",
    [
        wl(
            "new",
            "sales",
            queue="main",
            podsets=[one(20), ps("two", 30, 10, req={CPU: "1"}), ps("three", 15, 5, req={CPU: "1"})],
        )
    ],
    adm=[
        admitted(
            "sales/new",
            "sales",
            ("one", 20, {CPU: "default"}),
            ("two", 20, {CPU: "default"}),
            ("three", 10, {CPU: "default"}),
        )
    ],
    note="Two podsets carry minCount; the webhook forbids that, the scheduler (tested here) accepts it.",
)


def _co_cqs() -> list[dict[str, Any]]:
    pre = {"reclaimWithinCohort": "Any", "withinClusterQueue": LP}
    group = rg(fq("default", res("r1", "10", "10"), res("r2", "10", "10")))
    return [
        *(cq(n, group, cohort="co", preemption=pre) for n in ("cq1", "cq2", "cq3")),
        lq("lq1", "sales", "cq1"),
        lq("lq2", "sales", "cq2"),
        lq("lq3", "sales", "cq3"),
    ]


for _slug, _go, _r2, _q2, _both in (
    (
        "two_workloads_borrow_different_resources_same_cycle",
        "two workloads can borrow different resources from the same flavor in the same cycle",
        "r2",
        "16",
        True,
    ),
    (
        "two_workloads_borrow_same_resource_fits_cohort",
        "two workloads can borrow the same resources from the same flavor in the same cycle if fits in the cohort quota",
        "r1",
        "14",
        True,
    ),
    (
        "only_one_workload_borrows_when_cohort_cannot_fit",
        "only one workload can borrow one resources from the same flavor in the same cycle if cohort quota cannot fit",
        "r1",
        "16",
        False,
    ),
):
    _adm = [admitted("sales/wl1", "cq1", ("main", 1, {"r1": "default"}))]
    if _both:
        _adm.append(admitted("sales/wl2", "cq2", ("main", 1, {_r2: "default"})))
    case(
        _slug,
        _go,
        [
            _co_cqs(),
            wl("wl1", "sales", queue="lq1", priority=-1, podsets=[ps("main", 1, req={"r1": "16"})]),
            wl("wl2", "sales", queue="lq2", priority=-2, podsets=[ps("main", 1, req={_r2: _q2})]),
        ],
        adm=_adm,
        heap=None if _both else {"cq2": ["sales/wl2"]},
    )

_pwb = {"reclaimWithinCohort": LP, "borrowWithinCohort": {"policy": LP}}
case(
    "waiting_preemptor_does_not_block_borrower_in_other_cq",
    "preemption while borrowing, workload waiting for preemption should not block a borrowing workload in another CQ",
    [
        cq("cq_shared", rg(fq("default", res(CPU, "4", "0"))), cohort="preemption-while-borrowing"),
        cq(
            "cq_a",
            rg(fq("default", res(CPU, "0", "3"))),
            cohort="preemption-while-borrowing",
            preemption=_pwb,
        ),
        cq("cq_b", rg(fq("default", res(CPU, "0"))), cohort="preemption-while-borrowing", preemption=_pwb),
        lq("lq_a", "eng-alpha", "cq_a"),
        lq("lq_b", "eng-beta", "cq_b"),
        wl("a", "eng-alpha", queue="lq_a", creation=1, req={CPU: "3"}),
        wl("b", "eng-beta", queue="lq_b", creation=2, req={CPU: "1"}),
        reserve(wl("admitted_a", "eng-alpha", queue="lq_a", req={CPU: "2"}), "cq_a", a(CPU, "default", "2")),
    ],
    adm=[admitted("eng-beta/b", "cq_b", ("main", 1, {CPU: "default"}))],
    inad={"cq_a": ["eng-alpha/a"]},
)

case(
    "fair_sharing_lowest_share_first",
    "with fair sharing: schedule workload with lowest share first",
    [
        cq("eng-shared", rg(fq("on-demand", res(CPU, "10", "0"))), cohort="eng"),
        reserve(
            wl("all_nominal", "eng-alpha", queue="main", podsets=[one(50)]),
            "eng-alpha",
            a(CPU, "on-demand", "50", "one", 50),
        ),
        reserve(
            wl("borrowing", "eng-beta", queue="main", podsets=[one(55)]),
            "eng-beta",
            a(CPU, "on-demand", "55", "one", 55),
        ),
        wl("older_new", "eng-beta", queue="main", creation=-60, podsets=[one(1)]),
        wl("new", "eng-alpha", queue="main", creation=0, podsets=[one(5)]),
    ],
    adm=[admitted("eng-alpha/new", "eng-alpha", ("one", 5, {CPU: "on-demand"}))],
    heap={"eng-beta": ["eng-beta/older_new"]},
    fs=True,
)


def _zero_cq(name: str, parent: str, res_name: str = CPU, flavor: str = "on-demand") -> dict[str, Any]:
    return cq(name, rg(fq(flavor, res(res_name, "0"))), cohort=parent)


case(
    "hierarchical_fair_sharing_tournament_winner",
    "hierarchical fair sharing schedule workload which wins tournament",
    [
        cohort("A", rg(fq("on-demand", res(CPU, "200")))),
        cohort("B", parent="A"),
        cohort("C", parent="A"),
        _zero_cq("d", "B"),
        _zero_cq("e", "B"),
        _zero_cq("f", "C"),
        _zero_cq("g", "C"),
        *(lq(f"lq-{x}", "eng-alpha", x) for x in "defg"),
        reserve(
            wl("d0", "eng-alpha", queue="lq-d", podsets=[one(1, "10")]), "d", a(CPU, "on-demand", "10", "one")
        ),
        reserve(
            wl("e0", "eng-alpha", queue="lq-e", podsets=[one(1, "20")]), "e", a(CPU, "on-demand", "20", "one")
        ),
        reserve(
            wl("g0", "eng-alpha", queue="lq-g", podsets=[one(1, "100")]),
            "g",
            a(CPU, "on-demand", "100", "one"),
        ),
        wl("d1", "eng-alpha", queue="lq-d", podsets=[one(1, "70")]),
        wl("e1", "eng-alpha", queue="lq-e", podsets=[one(1, "61")]),
        wl("f1", "eng-alpha", queue="lq-f", podsets=[one(1, "1")]),
        wl("g1", "eng-alpha", queue="lq-g", podsets=[one(1, "1")]),
    ],
    adm=[admitted("eng-alpha/d1", "d", ("one", 1, {CPU: "on-demand"}))],
    heap={"e": ["eng-alpha/e1"], "f": ["eng-alpha/f1"], "g": ["eng-alpha/g1"]},
    fs=True,
)

case(
    "fair_sharing_lowest_drs_after_admission",
    "fair sharing schedule workload with lowest drf after admission",
    [
        cohort("A", rg(fq("on-demand", res(CPU, "100")))),
        _zero_cq("b", "A"),
        _zero_cq("c", "A"),
        lq("lq-b", "eng-alpha", "b"),
        lq("lq-c", "eng-alpha", "c"),
        reserve(
            wl("b0", "eng-alpha", queue="lq-b", podsets=[one(1, "10")]), "b", a(CPU, "on-demand", "10", "one")
        ),
        wl("b1", "eng-alpha", queue="lq-b", podsets=[one(1, "50")]),
        wl("c1", "eng-alpha", queue="lq-c", podsets=[one(1, "75")]),
    ],
    adm=[admitted("eng-alpha/b1", "b", ("one", 1, {CPU: "on-demand"}))],
    heap={"c": ["eng-alpha/c1"]},
    fs=True,
)

case(
    "fair_sharing_singleton_cqs_and_cq_without_cohort",
    "fair sharing schedule singleton cqs and cq without cohort",
    [
        cohort("A", rg(fq("on-demand", res(CPU, "10")))),
        cohort("B"),
        _zero_cq("a", "A"),
        cq("b", rg(fq("on-demand", res(CPU, "10"))), cohort="B"),
        cq("c", rg(fq("on-demand", res(CPU, "10")))),
        *(lq(f"lq-{x}", "eng-alpha", x) for x in "abc"),
        *(wl(f"{x}1", "eng-alpha", queue=f"lq-{x}", podsets=[one(1, "10")]) for x in "abc"),
    ],
    adm=[admitted(f"eng-alpha/{x}1", x, ("one", 1, {CPU: "on-demand"})) for x in "abc"],
    fs=True,
)

for _slug, _go, _b, _c in (
    (
        "fair_sharing_highest_priority_first",
        "fair sharing schedule highest priority first",
        (99, None),
        (101, None),
    ),
    (
        "fair_sharing_earliest_timestamp_first",
        "fair sharing schedule earliest timestamp first",
        (101, 1),
        (101, 0),
    ),
):
    case(
        _slug,
        _go,
        [
            cohort("A", rg(fq("on-demand", res(CPU, "10")))),
            cohort("B"),
            _zero_cq("b", "A"),
            _zero_cq("c", "A"),
            lq("lq-b", "eng-alpha", "b"),
            lq("lq-c", "eng-alpha", "c"),
            wl("b1", "eng-alpha", queue="lq-b", priority=_b[0], creation=_b[1], podsets=[one(1, "10")]),
            wl("c1", "eng-alpha", queue="lq-c", priority=_c[0], creation=_c[1], podsets=[one(1, "10")]),
        ],
        adm=[admitted("eng-alpha/c1", "c", ("one", 1, {CPU: "on-demand"}))],
        heap={"b": ["eng-alpha/b1"]},
        fs=True,
    )


def _other(*names_cfg: tuple[str, str, dict[str, Any] | None], flavor: str = "on-demand") -> list[Any]:
    out: list[Any] = []
    for name, quota, pre in names_cfg:
        out.append(cq(name, rg(fq(flavor, res(CPU, quota))), cohort="other", preemption=pre))
    return out


_any_lp = {"reclaimWithinCohort": "Any", "withinClusterQueue": LP}
_lqs3 = [
    lq("other", "eng-alpha", "other-alpha"),
    lq("other", "eng-beta", "other-beta"),
    lq("other", "eng-gamma", "other-gamma"),
]
_lqs2 = _lqs3[:2]


def _res1(name: str, nsp: str, prio: int, cqn: str, qty: str = "1", flavor: str = "on-demand") -> Any:
    return reserve(wl(name, nsp, priority=prio, queue="other", req={CPU: qty}), cqn, a(CPU, flavor, qty))


case(
    "minimal_preemptions_when_target_queue_exhausted",
    "minimal preemptions when target queue is exhausted",
    [
        _other(("other-alpha", "2", _any_lp), ("other-beta", "2", None), ("other-gamma", "2", None)),
        _lqs3,
        _res1("a1", "eng-alpha", -2, "other-alpha"),
        _res1("a2", "eng-alpha", -2, "other-alpha"),
        _res1("a3", "eng-alpha", -1, "other-alpha"),
        _res1("b1", "eng-beta", 0, "other-beta"),
        _res1("b2", "eng-beta", 0, "other-beta"),
        _res1("b3", "eng-beta", 0, "other-beta"),
        wl("incoming", "eng-alpha", priority=0, queue="other", req={CPU: "2"}),
    ],
    pre=[
        ("eng-alpha/a1", "eng-alpha/incoming", "InClusterQueue"),
        ("eng-alpha/a2", "eng-alpha/incoming", "InClusterQueue"),
    ],
    heap={"other-alpha": ["eng-alpha/incoming"]},
)

case(
    "preempt_only_if_fits_within_nominal",
    "A workload is only eligible to do preemptions if it fits fully within nominal quota",
    [
        _other(("other-alpha", "2", _any_lp), ("other-beta", "2", None)),
        _lqs2,
        _res1("a1", "eng-alpha", -1, "other-alpha"),
        _res1("b1", "eng-beta", -1, "other-beta"),
        wl("incoming", "eng-alpha", priority=1, queue="other", req={CPU: "3"}),
    ],
    inad={"other-alpha": ["eng-alpha/incoming"]},
)


def _sr(
    name: str, nsp: str, qty: str, cqn: str, flavor: str, uid: str | None = None, prio: int | None = None
) -> Any:
    return simple_reserve(wl(name, nsp, req={CPU: qty}, uid=uid, priority=prio), cqn, flavor)


case(
    "fair_sharing_preempt_from_cq_with_highest_share",
    "with fair sharing: preempt workload from CQ with the highest share",
    [
        cq("eng-gamma", rg(fq("on-demand", res(CPU, "50", "0"))), cohort="eng"),
        _sr("all_spot", "eng-alpha", "100", "eng-alpha", "spot"),
        *(
            _sr(f"alpha{i}", "eng-alpha", "20", "eng-alpha", "on-demand", uid=f"alpha{i}")
            for i in range(1, 5)
        ),
        _sr("gamma1", "eng-gamma", "10", "eng-gamma", "on-demand", uid="gamma1"),
        *(
            _sr(f"gamma{i}", "eng-gamma", "20", "eng-gamma", "on-demand", uid=f"gamma{i}")
            for i in range(2, 5)
        ),
        wl("preemptor", "eng-beta", queue="main", req={CPU: "30"}),
    ],
    pre=[
        ("eng-alpha/alpha1", "eng-beta/preemptor", "InCohortReclamation"),
        ("eng-gamma/gamma1", "eng-beta/preemptor", "InCohortReclamation"),
    ],
    heap={"eng-beta": ["eng-beta/preemptor"]},
    fs=True,
    note="Reasons derived: eng-beta (with the preemptor) stays within nominal, so with "
    "FairSharingPreemptWithinNominal the victims are taken unconditionally as InCohortReclamation.",
)

_wlp = {"withinClusterQueue": LP}
case(
    "multiple_preemptions_without_borrowing",
    "multiple preemptions without borrowing",
    [
        _other(("other-alpha", "2", _wlp), ("other-beta", "2", _wlp), flavor="default"),
        _lqs2,
        _res1("a1", "eng-alpha", 0, "other-alpha", "2", "default"),
        _res1("b1", "eng-beta", 0, "other-beta", "2", "default"),
        wl("preemptor", "eng-alpha", priority=100, queue="other", req={CPU: "2"}),
        wl("preemptor", "eng-beta", priority=100, queue="other", req={CPU: "2"}),
    ],
    pre=[
        ("eng-alpha/a1", "eng-alpha/preemptor", "InClusterQueue"),
        ("eng-beta/b1", "eng-beta/preemptor", "InClusterQueue"),
    ],
    heap={"other-alpha": ["eng-alpha/preemptor"], "other-beta": ["eng-beta/preemptor"]},
)

case(
    "preemption_possible_after_earlier_workload_fits",
    "multiple preemptions preemption possible after earlier workload fits",
    [
        _other(("other-alpha", "1", _wlp), ("other-beta", "2", _wlp), flavor="default"),
        _lqs2,
        _res1("b1", "eng-beta", 0, "other-beta", "2", "default"),
        wl("fit", "eng-alpha", priority=100, queue="other", req={CPU: "1"}),
        wl("preemptor", "eng-beta", priority=99, queue="other", req={CPU: "2"}),
    ],
    adm=[admitted("eng-alpha/fit", "other-alpha", ("main", 1, {CPU: "default"}))],
    pre=[("eng-beta/b1", "eng-beta/preemptor", "InClusterQueue")],
    heap={"other-beta": ["eng-beta/preemptor"]},
)

_wlp_bwc = {"withinClusterQueue": LP, "borrowWithinCohort": {"policy": LP}}
case(
    "skip_preemption_when_shared_limited_resource",
    "multiple preemptions skip preemption when shared limited resource",
    [
        _other(
            ("other-alpha", "2", _wlp_bwc),
            ("other-beta", "2", _wlp_bwc),
            ("resource-bank", "1", None),
            flavor="default",
        ),
        _lqs2,
        _res1("a1", "eng-alpha", 0, "other-alpha", "2", "default"),
        _res1("b1", "eng-beta", 0, "other-beta", "2", "default"),
        wl("preemptor", "eng-alpha", priority=100, queue="other", req={CPU: "3"}),
        wl("pretending-preemptor", "eng-beta", priority=99, queue="other", req={CPU: "3"}),
    ],
    pre=[("eng-alpha/a1", "eng-alpha/preemptor", "InClusterQueue")],
    heap={"other-alpha": ["eng-alpha/preemptor"], "other-beta": ["eng-beta/pretending-preemptor"]},
)

case(
    "fair_sharing_multiple_preemptions_within_cq",
    "multiple preemptions within cq when fair sharing",
    [
        _other(
            ("other-alpha", "2", _wlp),
            ("other-beta", "2", _wlp),
            ("other-gamma", "2", _wlp),
            ("resource-bank", "3", None),
            flavor="default",
        ),
        _lqs3,
        _res1("a1", "eng-alpha", 0, "other-alpha", "3", "default"),
        _res1("b1", "eng-beta", 0, "other-beta", "3", "default"),
        _res1("c1", "eng-gamma", 0, "other-gamma", "3", "default"),
        *(
            wl("preemptor", n, priority=100, queue="other", req={CPU: "3"})
            for n in ("eng-alpha", "eng-beta", "eng-gamma")
        ),
    ],
    pre=[
        ("eng-alpha/a1", "eng-alpha/preemptor", "InClusterQueue"),
        ("eng-beta/b1", "eng-beta/preemptor", "InClusterQueue"),
        ("eng-gamma/c1", "eng-gamma/preemptor", "InClusterQueue"),
    ],
    heap={
        "other-alpha": ["eng-alpha/preemptor"],
        "other-beta": ["eng-beta/preemptor"],
        "other-gamma": ["eng-gamma/preemptor"],
    },
    fs=True,
)


# "multiple preemptions skip overlapping preemption targets" is transcribed from the newer
# scheduler_fs_test.go instead (transcribe_fs.py): upstream later set reclaimWithinCohort: Any on its
# ClusterQueues to keep the same expectation, so this older copy (policy unset) is obsolete.


case(
    "not_enough_resources",
    "not enough resources",
    [wl("new", "sales", queue="main", podsets=[one(1, "100")])],
    heap={"sales": ["sales/new"]},
)

case(
    "not_enough_resources_fair_sharing",
    "not enough resources with fair sharing enabled",
    [wl("new", "sales", queue="main", podsets=[one(1, "100")])],
    heap={"sales": ["sales/new"]},
    fs=True,
)


def _gpu_cq(name: str, od: str, spot: str, pre: dict[str, Any] | None) -> dict[str, Any]:
    return cq(
        name,
        rg(fq("on-demand", res("gpu", od)), fq("spot", res("gpu", spot))),
        cohort="other",
        preemption=pre,
    )


def _gsr(name: str, nsp: str, prio: int, qty: str, cqn: str, flavor: str) -> Any:
    return simple_reserve(wl(name, nsp, priority=prio, queue="other", req={"gpu": qty}), cqn, flavor)


_lp_lp = {"withinClusterQueue": LP, "reclaimWithinCohort": LP}
case(
    "prefer_reclamation_over_cq_priority_preemption",
    "prefer reclamation over cq priority based preemption",
    [
        _gpu_cq("other-alpha", "10", "10", _lp_lp),
        _gpu_cq("other-beta", "0", "0", _lp_lp),
        _lqs2,
        _gsr("a1", "eng-alpha", 50, "5", "other-alpha", "on-demand"),
        _gsr("b1", "eng-beta", 50, "5", "other-beta", "spot"),
        wl("preemptor", "eng-alpha", priority=100, queue="other", req={"gpu": "6"}),
    ],
    pre=[("eng-beta/b1", "eng-alpha/preemptor", "InCohortReclamation")],
    heap={"other-alpha": ["eng-alpha/preemptor"]},
)

case(
    "fair_sharing_prefer_reclamation_over_cq_priority_preemption",
    "with fair sharing: prefer reclamation over cq priority based preemption; with preemption while borrowing",
    [
        _gpu_cq("other-alpha", "7", "7", _lp_lp),
        _gpu_cq("other-beta", "3", "3", None),
        _lqs2,
        _gsr("a1", "eng-alpha", 50, "5", "other-alpha", "on-demand"),
        _gsr("b1", "eng-beta", 50, "5", "other-beta", "spot"),
        wl("preemptor", "eng-alpha", priority=100, queue="other", req={"gpu": "8"}),
    ],
    pre=[("eng-beta/b1", "eng-alpha/preemptor", "InCohortFairSharing")],
    heap={"other-alpha": ["eng-alpha/preemptor"]},
    fs=True,
    note="Reason derived: other-alpha with the preemptor borrows (8 > 7), so the fair-sharing strategy "
    "(LessThanInitialShare) applies => InCohortFairSharing.",
)

case(
    "prefer_first_preemption_flavor_when_second_needs_reclaim_and_cq_preemption",
    "prefer first preemption flavor when second flavor requires both reclaim and cq priority preemption",
    [
        _gpu_cq("other-alpha", "10", "10", _lp_lp),
        _gpu_cq("other-beta", "0", "0", None),
        _lqs2,
        _gsr("a1", "eng-alpha", 50, "5", "other-alpha", "on-demand"),
        _gsr("a2", "eng-alpha", 50, "5", "other-alpha", "spot"),
        _gsr("b1", "eng-beta", 50, "5", "other-beta", "spot"),
        wl("preemptor", "eng-alpha", priority=100, queue="other", req={"gpu": "6"}),
    ],
    pre=[("eng-alpha/a1", "eng-alpha/preemptor", "InClusterQueue")],
    heap={"other-alpha": ["eng-alpha/preemptor"]},
)

case(
    "prefer_first_preemption_flavor_when_second_also_needs_cq_preemption",
    "prefer first preemption flavor when second flavor also requires cq preemption",
    [
        _gpu_cq("other-alpha", "10", "10", _lp_lp),
        _gpu_cq("other-beta", "0", "0", None),
        _lqs2,
        _gsr("a1", "eng-alpha", 50, "6", "other-alpha", "on-demand"),
        _gsr("a2", "eng-alpha", 50, "5", "other-alpha", "spot"),
        _gsr("b1", "eng-beta", 9001, "5", "other-beta", "spot"),
        wl("preemptor", "eng-alpha", priority=100, queue="other", req={"gpu": "5"}),
    ],
    pre=[("eng-alpha/a1", "eng-alpha/preemptor", "InClusterQueue")],
    heap={"other-alpha": ["eng-alpha/preemptor"]},
)


def _g(
    name: str,
    nsp: str,
    qty: str,
    cqn: str | None = None,
    prio: int | None = None,
    creation: float | None = None,
) -> Any:
    w = wl(name, nsp, queue="lq", priority=prio, creation=creation, req={"gpu": qty})
    return simple_reserve(w, cqn, "on-demand") if cqn else w


case(
    "reclaiming_workload_prioritized_over_workload_in_full_cq",
    "workload requiring reclaimation prioritized over wl in another full cq",
    [
        cq("CQ1", rg(fq("on-demand", res("gpu", "10"))), cohort="other"),
        cq(
            "CQ2",
            rg(fq("on-demand", res("gpu", "10"))),
            cohort="other",
            preemption={"reclaimWithinCohort": "Any"},
        ),
        cq("CQ3", rg(fq("on-demand", res("gpu", "0"))), cohort="other"),
        lq("lq", "eng-alpha", "CQ1"),
        lq("lq", "eng-beta", "CQ2"),
        lq("lq", "eng-gamma", "CQ3"),
        _g("Admitted-Workload-1", "eng-alpha", "5", "CQ1"),
        _g("WL1", "eng-alpha", "10", creation=0),
        _g("WL2", "eng-beta", "10", creation=1),
        _g("Admitted-Workload-2", "eng-gamma", "5", "CQ3", prio=0),
        _g("Admitted-Workload-3", "eng-gamma", "5", "CQ3", prio=1),
    ],
    pre=[("eng-gamma/Admitted-Workload-2", "eng-beta/WL2", "InCohortReclamation")],
    heap={"CQ2": ["eng-beta/WL2"]},
    inad={"CQ1": ["eng-alpha/WL1"]},
)

for _slug, _go, _policy, _blocked in (
    (
        "capacity_not_blocked_when_lender_can_reclaim_any",
        "capacity not blocked when lending clusterqueue can reclaim (ReclaimWithinCohort=Any)",
        "Any",
        False,
    ),
    (
        "capacity_blocked_when_lender_reclaim_lower_priority",
        "capacity blocked when lending clusterqueue not guaranteed to reclaim (ReclaimWithinCohort=LowerPriority)",
        LP,
        True,
    ),
    (
        "capacity_blocked_when_lender_reclaim_never",
        "capacity blocked when lending clusterqueue not guaranteed to reclaim (ReclaimWithinCohort=Never)",
        "Never",
        True,
    ),
):
    case(
        _slug,
        _go,
        [
            cq(
                "ClusterQueueA",
                rg(fq("on-demand", res("gpu", "2"))),
                cohort="root",
                preemption={"reclaimWithinCohort": _policy},
            ),
            cq("ClusterQueueB", rg(fq("on-demand", res("gpu", "0"))), cohort="root"),
            lq("lq", "eng-alpha", "ClusterQueueA"),
            lq("lq", "eng-beta", "ClusterQueueB"),
            _g("a1-admitted", "eng-alpha", "1", "ClusterQueueA"),
            _g("a2-pending", "eng-alpha", "2"),
            _g("b1-pending", "eng-beta", "1", creation=0),
        ],
        adm=[]
        if _blocked
        else [admitted("eng-beta/b1-pending", "ClusterQueueB", ("main", 1, {"gpu": "on-demand"}))],
        heap={"ClusterQueueB": ["eng-beta/b1-pending"]} if _blocked else None,
        inad={"ClusterQueueA": ["eng-alpha/a2-pending"]},
    )

case(
    "hierarchical_cohort_borrowing_less_scheduled_first",
    "in a hierarchical cohort, workload borrowing less is scheduled first",
    [
        cohort("root"),
        cohort("guaranteed", rg(fq("default", res(CPU, "4"))), parent="root"),
        cq("guaranteed", rg(fq("default", res(CPU, "0"))), cohort="guaranteed"),
        cq("best-effort", rg(fq("default", res(CPU, "0"))), cohort="root"),
        lq("lq-guaranteed", "eng-alpha", "guaranteed"),
        lq("lq-best-effort", "eng-alpha", "best-effort"),
        wl("guaranteed", "eng-alpha", queue="lq-guaranteed", priority=0, podsets=[one(1, "4")]),
        wl("best-effort", "eng-alpha", queue="lq-best-effort", priority=3, podsets=[one(1, "4")]),
    ],
    adm=[admitted("eng-alpha/guaranteed", "guaranteed", ("one", 1, {CPU: "default"}))],
    heap={"best-effort": ["eng-alpha/best-effort"]},
)

case(
    "no_flavor_assigned_when_no_preemption_candidates",
    "don't assign flavor if there are no candidates for preemption",
    [
        cq(
            "cq1",
            rg(fq("on-demand", res(CPU, "0", "1")), fq("spot", res(CPU, "0", "1"))),
            cohort="cohort",
            preemption={
                "withinClusterQueue": LP,
                "reclaimWithinCohort": "Any",
                "borrowWithinCohort": {"policy": LP},
            },
            fungibility={"whenCanPreempt": "Preempt", "whenCanBorrow": "Borrow"},
        ),
        cq("cq2", rg(fq("on-demand", res(CPU, "1")), fq("spot", res(CPU, "1"))), cohort="cohort"),
        lq("lq1", "eng-alpha", "cq1"),
        lq("lq2", "eng-alpha", "cq2"),
        simple_reserve(
            wl("admitted", "eng-alpha", queue="lq2", priority=0, req={CPU: "1"}),
            "cq2",
            "on-demand",
            at=-1,
            admitted=True,
        ),
        wl("new", "eng-alpha", queue="lq1", priority=100, req={CPU: "1"}),
    ],
    adm=[admitted("eng-alpha/new", "cq1", ("main", 1, {CPU: "spot"}))],
)


def main() -> None:
    root = Path(__file__).resolve().parent / "scenarios"
    for sc in CASES:
        sc.write(root)
    print(f"wrote {len(CASES)} scenarios")


if __name__ == "__main__":
    main()
