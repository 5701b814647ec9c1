"""Cases transcribed from Kueue's pkg/scheduler/scheduler_test.go (TestSchedule), one cycle each."""

from __future__ import annotations

from gpuplane.kueue import (
    CycleResult,
    LabelSelector,
    LocalQueue,
    Namespace,
    ResourceFlavor,
    Snapshot,
    schedule_cycle,
)
from gpuplane.kueue.objects import SelectorRequirement

from .kueue_builders import admit, cq, group, ps, wl


def _sel(dep: str) -> LabelSelector:
    return LabelSelector((), (SelectorRequirement("dep", "In", (dep,)),))


def base(*extra: object, fair: bool = False) -> list[object]:
    from dataclasses import replace

    objs: list[object] = [ResourceFlavor(n) for n in ("default", "on-demand", "spot", "model-a")]
    objs += [
        replace(
            cq("sales", group(("default", {"cpu": (50, 0)})), strategy="StrictFIFO"),
            namespace_selector=_sel("sales"),
        ),
        replace(
            cq(
                "eng-alpha",
                group(("on-demand", {"cpu": (50, 50)}), ("spot", {"cpu": (100, 0)})),
                cohort="eng",
                strategy="StrictFIFO",
            ),
            namespace_selector=_sel("eng"),
        ),
        replace(
            cq(
                "eng-beta",
                group(("on-demand", {"cpu": (50, 10)}), ("spot", {"cpu": (0, 100)})),
                group(("model-a", {"example.com/gpu": (20, 0)})),
                cohort="eng",
                strategy="StrictFIFO",
                reclaim="Any",
                within="LowerPriority",
            ),
            namespace_selector=_sel("eng"),
        ),
        cq("flavor-nonexistent-cq", group(("nonexistent-flavor", {"cpu": 50})), strategy="StrictFIFO"),
        replace(
            cq("lend-a", group(("default", {"cpu": (3, None, 2)})), cohort="lend"),
            namespace_selector=_sel("lend"),
        ),
        replace(
            cq("lend-b", group(("default", {"cpu": (2, None, 2)})), cohort="lend"),
            namespace_selector=_sel("lend"),
        ),
        LocalQueue("sales", "main", "sales"),
        LocalQueue("sales", "blocked", "eng-alpha"),
        LocalQueue("eng-alpha", "main", "eng-alpha"),
        LocalQueue("eng-beta", "main", "eng-beta"),
        LocalQueue("sales", "flavor-nonexistent-queue", "flavor-nonexistent-cq"),
        LocalQueue("sales", "cq-nonexistent-queue", "nonexistent-cq"),
        LocalQueue("lend", "lend-a-queue", "lend-a"),
        LocalQueue("lend", "lend-b-queue", "lend-b"),
        Namespace("eng-alpha", {"dep": "eng"}),
        Namespace("eng-beta", {"dep": "eng"}),
        Namespace("eng-gamma", {"dep": "eng"}),
        Namespace("sales", {"dep": "sales"}),
        Namespace("lend", {"dep": "lend"}),
    ]
    objs.extend(extra)
    return objs


def run(objs: list[object], fair: bool = False) -> tuple[Snapshot, CycleResult]:
    snap = Snapshot.from_objects(objs, fair_sharing=fair)
    snap.now = 100.0
    return snap, schedule_cycle(snap, explain_pending=True)


def flavors_of(result: CycleResult) -> dict[str, dict[str, str]]:
    out = {}
    for a in result.admitted:
        merged: dict[str, str] = {}
        for p in a.pod_sets:
            merged.update({f"{p.name}.{r}": f for r, f in p.flavors.items()})
        out[a.workload] = merged
    return out


def where(snap: Snapshot) -> dict[str, str]:
    return {w.key: snap.where(w.key) for w in snap.pending()}


def test_second_flavor_is_used_when_first_has_no_preemption_candidates() -> None:
    other = cq(
        "other-alpha",
        group(("on-demand", {"cpu": (50, 50)}), ("spot", {"cpu": (100, 0)})),
        within="LowerPriority",
        when_can_preempt="MayStopSearch",
    )
    _snap, r = run(
        base(
            other,
            LocalQueue("eng-alpha", "other", "other-alpha"),
            admit(wl("admitted", "other", ns="eng-alpha", cpu=50), "other-alpha", "on-demand"),
            wl("new", "other", ns="eng-alpha", cpu=20),
        )
    )
    assert flavors_of(r) == {"eng-alpha/new": {"main.cpu": "spot"}}
    assert r.preempted == []


def test_namespace_not_matching_selector_goes_to_inadmissible() -> None:
    snap, r = run(base(wl("new", "blocked", ps("one", 1, cpu=1), ns="sales")))
    assert r.admitted == []
    assert where(snap) == {"sales/new": "inadmissible"}


def test_admits_in_different_cohorts_and_same_cohort_without_borrowing() -> None:
    _snap, r = run(
        base(
            wl("new", "main", ps("one", 1, cpu=1), ns="sales"),
            wl("new", "main", ps("one", 51, cpu=1), ns="eng-alpha"),
        )
    )
    assert flavors_of(r) == {"sales/new": {"one.cpu": "default"}, "eng-alpha/new": {"one.cpu": "on-demand"}}


def test_assigns_multiple_resources_and_flavors_per_pod_set() -> None:
    _snap, r = run(
        base(wl("new", "main", ps("one", 10, cpu=6, example_com__gpu=1), ps("two", 40, cpu=1), ns="eng-beta"))
    )
    assert flavors_of(r) == {
        "eng-beta/new": {"one.cpu": "on-demand", "one.example.com/gpu": "model-a", "two.cpu": "spot"}
    }


def test_cannot_borrow_if_cohort_was_assigned_and_would_overadmit() -> None:
    snap, r = run(
        base(
            wl("new", "main", ps("one", 45, cpu=1), ns="eng-alpha"),
            wl("new", "main", ps("one", 56, cpu=1), ns="eng-beta"),
        )
    )
    assert sorted(flavors_of(r)) == ["eng-alpha/new"]
    assert where(snap) == {"eng-beta/new": "heap"}


def test_can_borrow_if_cohort_was_assigned_and_no_overadmission() -> None:
    _snap, r = run(
        base(
            wl("new", "main", ps("one", 45, cpu=1), ns="eng-alpha"),
            wl("new", "main", ps("one", 55, cpu=1), ns="eng-beta"),
        )
    )
    assert sorted(flavors_of(r)) == ["eng-alpha/new", "eng-beta/new"]


def test_can_borrow_if_needs_reclaim_from_cohort_in_different_flavor() -> None:
    snap, r = run(
        base(
            wl("can-reclaim", "main", ns="eng-alpha", cpu=100),
            wl("needs-to-borrow", "main", ns="eng-beta", cpu=1),
            admit(wl("user-on-demand", "", ns="eng-beta", cpu=50), "eng-beta", "on-demand"),
            admit(wl("user-spot", "", ns="eng-beta", cpu=1), "eng-beta", "spot"),
        )
    )
    assert flavors_of(r) == {"eng-beta/needs-to-borrow": {"main.cpu": "on-demand"}}
    assert where(snap) == {"eng-alpha/can-reclaim": "heap"}


def test_workload_exceeding_lending_limit_is_inadmissible() -> None:
    snap, r = run(
        base(
            admit(wl("a", "", ns="lend", cpu=2), "lend-b", "default"),
            wl("b", "lend-b-queue", ns="lend", cpu=3),
        )
    )
    assert r.admitted == []
    assert where(snap) == {"lend/b": "inadmissible"}


def test_preempts_in_cluster_queue_and_cohort_without_admitting_preemptor() -> None:
    snap, r = run(
        base(
            wl("preemptor", "main", ns="eng-beta", cpu=20),
            admit(wl("use-all-spot", "", ns="eng-alpha", cpu=100), "eng-alpha", "spot"),
            admit(wl("low-1", "", ns="eng-beta", priority=-1, cpu=30), "eng-beta", "on-demand"),
            admit(wl("low-2", "", ns="eng-beta", priority=-2, cpu=10), "eng-beta", "on-demand"),
            admit(wl("borrower", "", ns="eng-alpha", cpu=60), "eng-alpha", "on-demand"),
        )
    )
    assert r.admitted == []
    assert {p.workload for p in r.preempted} == {"eng-alpha/borrower", "eng-beta/low-2"}
    assert where(snap) == {"eng-beta/preemptor": "heap"}


def test_multiple_cluster_queues_needing_preemption() -> None:
    snap, r = run(
        base(
            cq("other-alpha", group(("on-demand", {"cpu": (50, 50)})), cohort="other"),
            cq(
                "other-beta",
                group(("on-demand", {"cpu": (50, 10)})),
                cohort="other",
                reclaim="Any",
                within="LowerPriority",
            ),
            LocalQueue("eng-alpha", "other", "other-alpha"),
            LocalQueue("eng-beta", "other", "other-beta"),
            wl("preemptor", "other", ns="eng-beta", priority=-1, cpu=1),
            wl("pending", "other", ns="eng-alpha", priority=1, cpu=1),
            admit(wl("use-all", "", ns="eng-alpha", cpu=100), "other-alpha", "on-demand"),
        )
    )
    assert {p.workload for p in r.preempted} == {"eng-alpha/use-all"}
    assert where(snap) == {"eng-beta/preemptor": "heap", "eng-alpha/pending": "inadmissible"}


def test_resource_not_listed_in_cluster_queue_cannot_be_borrowed() -> None:
    snap, r = run(base(wl("new", "main", ns="eng-alpha", example_com__gpu=1)))
    assert r.admitted == []
    assert where(snap) == {"eng-alpha/new": "heap"}  # StrictFIFO: back to the heap


def test_falls_back_to_next_flavor_when_not_enough_to_borrow() -> None:
    _snap, r = run(
        base(
            wl("new", "main", ps("one", 60, cpu=1), ns="eng-alpha"),
            admit(wl("existing", "", ps("one", 45, cpu=1), ns="eng-beta"), "eng-beta", "on-demand"),
        )
    )
    assert flavors_of(r) == {"eng-alpha/new": {"one.cpu": "spot"}}


def test_missing_cluster_queue_and_missing_flavor_are_not_scheduled() -> None:
    snap, r = run(
        base(
            wl("missing-cq", "cq-nonexistent-queue", ns="sales", cpu=1),
            wl("missing-flavor", "flavor-nonexistent-queue", ns="sales", cpu=1),
        )
    )
    assert r.admitted == []
    pending = {p.workload: p for p in r.pending}
    assert "doesn't exist" in pending["sales/missing-cq"].reason
    assert "nonexistent-flavor" in pending["sales/missing-flavor"].reason
    assert where(snap)["sales/missing-flavor"] == "heap"  # inactive ClusterQueues are not popped


def test_no_overadmission_while_borrowing() -> None:
    gamma = cq(
        "eng-gamma",
        group(("on-demand", {"cpu": (50, 10)}), ("spot", {"cpu": (0, 100)})),
        cohort="eng",
        reclaim="Any",
        within="LowerPriority",
    )
    existing = wl(
        "existing", "", ps("borrow-on-demand", 51, cpu=1), ps("use-all-spot", 100, cpu=1), ns="eng-gamma"
    )
    admission = admit(existing, "eng-gamma", "on-demand").admission
    assert admission is not None
    admission.pod_set_assignments[1].flavors = {"cpu": "spot"}
    snap, r = run(
        base(
            gamma,
            LocalQueue("eng-gamma", "main", "eng-gamma"),
            wl("new", "main", ps("one", 50, cpu=1), ns="eng-beta", t=-2),
            wl("new-alpha", "main", ps("one", 1, cpu=1), ns="eng-alpha", t=-1),
            wl("new-gamma", "main", ps("one", 50, cpu=1), ns="eng-gamma", t=0),
            existing,
        )
    )
    assert sorted(flavors_of(r)) == ["eng-alpha/new-alpha", "eng-beta/new"]
    assert where(snap) == {"eng-gamma/new-gamma": "inadmissible"}


def test_partial_admission_single_variable_pod_set() -> None:
    _snap, r = run(base(wl("new", "main", ps("one", 50, min_count=20, cpu=2), ns="sales")))
    assert [(p.name, p.count) for p in r.admitted[0].pod_sets] == [("one", 25)]


def test_partial_admission_prefers_preemption_at_full_size() -> None:
    snap, r = run(
        base(
            wl("new", "main", ps("one", 20, min_count=10, example_com__gpu=1), ns="eng-beta", priority=4),
            admit(
                wl("old", "", ps("one", 10, example_com__gpu=1), ns="eng-beta", priority=-4),
                "eng-beta",
                "model-a",
            ),
        )
    )
    assert r.admitted == []
    assert {p.workload for p in r.preempted} == {"eng-beta/old"}
    assert where(snap) == {"eng-beta/new": "heap"}


def test_partial_admission_multiple_variable_pod_sets() -> None:
    _snap, r = run(
        base(
            wl(
                "new",
                "main",
                ps("one", 20, cpu=1),
                ps("two", 30, min_count=10, cpu=1),
                ps("three", 15, min_count=5, cpu=1),
                ns="sales",
            )
        )
    )
    assert [(p.name, p.count) for p in r.admitted[0].pod_sets] == [("one", 20), ("two", 20), ("three", 10)]


def _three_cqs() -> list[object]:
    g = group(("default", {"r1": (10, 10), "r2": (10, 10)}))
    return [cq(f"cq{i}", g, cohort="co", reclaim="Any", within="LowerPriority") for i in (1, 2, 3)] + [
        LocalQueue("sales", f"lq{i}", f"cq{i}") for i in (1, 2, 3)
    ]


def test_two_workloads_borrow_same_flavor_in_one_cycle_when_cohort_fits() -> None:
    _snap, r = run(
        base(
            *_three_cqs(),
            wl("wl1", "lq1", ns="sales", priority=-1, r1=16),
            wl("wl2", "lq2", ns="sales", priority=-2, r1=14),
        )
    )
    assert sorted(flavors_of(r)) == ["sales/wl1", "sales/wl2"]


def test_only_one_borrower_admitted_when_cohort_quota_cannot_fit_both() -> None:
    snap, r = run(
        base(
            *_three_cqs(),
            wl("wl1", "lq1", ns="sales", priority=-1, r1=16),
            wl("wl2", "lq2", ns="sales", priority=-2, r1=16),
        )
    )
    assert sorted(flavors_of(r)) == ["sales/wl1"]
    assert where(snap) == {"sales/wl2": "heap"}


def test_waiting_preemptor_does_not_block_borrower_in_other_cluster_queue() -> None:
    snap, r = run(
        base(
            cq("cq_shared", group(("default", {"cpu": (4, 0)})), cohort="pwb"),
            cq(
                "cq_a",
                group(("default", {"cpu": (0, 3)})),
                cohort="pwb",
                reclaim="LowerPriority",
                bwc="LowerPriority",
            ),
            cq(
                "cq_b",
                group(("default", {"cpu": 0})),
                cohort="pwb",
                reclaim="LowerPriority",
                bwc="LowerPriority",
            ),
            LocalQueue("eng-alpha", "lq_a", "cq_a"),
            LocalQueue("eng-beta", "lq_b", "cq_b"),
            wl("a", "lq_a", ns="eng-alpha", t=1, cpu=3),
            wl("b", "lq_b", ns="eng-beta", t=2, cpu=1),
            admit(wl("admitted_a", "lq_a", ns="eng-alpha", cpu=2), "cq_a", "default"),
        )
    )
    assert sorted(flavors_of(r)) == ["eng-beta/b"]
    assert where(snap) == {"eng-alpha/a": "inadmissible"}


def test_fair_sharing_schedules_lowest_share_first() -> None:
    snap, r = run(
        base(
            cq("eng-shared", group(("on-demand", {"cpu": (10, 0)})), cohort="eng"),
            admit(wl("all_nominal", "main", ps("one", 50, cpu=1), ns="eng-alpha"), "eng-alpha", "on-demand"),
            admit(wl("borrowing", "main", ps("one", 55, cpu=1), ns="eng-beta"), "eng-beta", "on-demand"),
            wl("older_new", "main", ps("one", 1, cpu=1), ns="eng-beta", t=-60),
            wl("new", "main", ps("one", 5, cpu=1), ns="eng-alpha", t=0),
        ),
        fair=True,
    )
    assert sorted(flavors_of(r)) == ["eng-alpha/new"]
    assert where(snap) == {"eng-beta/older_new": "heap"}


def test_hierarchical_fair_sharing_tournament_winner_is_admitted() -> None:
    from .kueue_builders import cohort

    g0 = group(("on-demand", {"cpu": 0}))
    snap, r = run(
        base(
            cohort("A", group(("on-demand", {"cpu": 200}))),
            cohort("B", parent="A"),
            cohort("C", parent="A"),
            *[cq(n, g0, cohort=c) for n, c in (("d", "B"), ("e", "B"), ("f", "C"), ("g", "C"))],
            *[LocalQueue("eng-alpha", f"lq-{n}", n) for n in "defg"],
            admit(wl("d0", "lq-d", ns="eng-alpha", cpu=10), "d", "on-demand"),
            admit(wl("e0", "lq-e", ns="eng-alpha", cpu=20), "e", "on-demand"),
            admit(wl("g0", "lq-g", ns="eng-alpha", cpu=100), "g", "on-demand"),
            wl("d1", "lq-d", ns="eng-alpha", cpu=70),
            wl("e1", "lq-e", ns="eng-alpha", cpu=61),
            wl("f1", "lq-f", ns="eng-alpha", cpu=1),
            wl("g1", "lq-g", ns="eng-alpha", cpu=1),
        ),
        fair=True,
    )
    assert sorted(flavors_of(r)) == ["eng-alpha/d1"]
    assert where(snap) == {"eng-alpha/e1": "heap", "eng-alpha/f1": "heap", "eng-alpha/g1": "heap"}


def test_fair_sharing_picks_lowest_share_after_admission() -> None:
    from .kueue_builders import cohort

    g0 = group(("on-demand", {"cpu": 0}))
    snap, r = run(
        base(
            cohort("A", group(("on-demand", {"cpu": 100}))),
            cq("b", g0, cohort="A"),
            cq("c", g0, cohort="A"),
            LocalQueue("eng-alpha", "lq-b", "b"),
            LocalQueue("eng-alpha", "lq-c", "c"),
            admit(wl("b0", "lq-b", ns="eng-alpha", cpu=10), "b", "on-demand"),
            wl("b1", "lq-b", ns="eng-alpha", cpu=50),
            wl("c1", "lq-c", ns="eng-alpha", cpu=75),
        ),
        fair=True,
    )
    assert sorted(flavors_of(r)) == ["eng-alpha/b1"]
    assert where(snap) == {"eng-alpha/c1": "heap"}


def test_fair_sharing_preempts_from_cluster_queue_with_highest_share() -> None:
    gamma = cq("eng-gamma", group(("on-demand", {"cpu": (50, 0)})), cohort="eng")
    runs = [admit(wl("all_spot", "", ns="eng-alpha", cpu=100), "eng-alpha", "spot", reserved_at=50)]
    for i in range(1, 5):
        w = wl(f"alpha{i}", "", ns="eng-alpha", cpu=20)
        w.uid = f"alpha{i}"
        runs.append(admit(w, "eng-alpha", "on-demand", reserved_at=50))
    for i, cpu in enumerate((10, 20, 20, 20), start=1):
        w = wl(f"gamma{i}", "", ns="eng-gamma", cpu=cpu)
        w.uid = f"gamma{i}"
        runs.append(admit(w, "eng-gamma", "on-demand", reserved_at=50))
    snap, r = run(base(gamma, *runs, wl("preemptor", "main", ns="eng-beta", cpu=30)), fair=True)
    assert {p.workload for p in r.preempted} == {"eng-alpha/alpha1", "eng-gamma/gamma1"}
    assert where(snap) == {"eng-beta/preemptor": "heap"}


def test_multiple_preemptions_without_borrowing_in_one_cycle() -> None:
    snap, r = run(
        base(
            cq("other-alpha", group(("default", {"cpu": 2})), cohort="other", within="LowerPriority"),
            cq("other-beta", group(("default", {"cpu": 2})), cohort="other", within="LowerPriority"),
            LocalQueue("eng-alpha", "other", "other-alpha"),
            LocalQueue("eng-beta", "other", "other-beta"),
            admit(wl("a1", "other", ns="eng-alpha", cpu=2), "other-alpha", "default"),
            admit(wl("b1", "other", ns="eng-beta", cpu=2), "other-beta", "default"),
            wl("preemptor", "other", ns="eng-alpha", priority=100, cpu=2),
            wl("preemptor", "other", ns="eng-beta", priority=100, cpu=2),
        )
    )
    assert {p.workload for p in r.preempted} == {"eng-alpha/a1", "eng-beta/b1"}
    assert where(snap) == {"eng-alpha/preemptor": "heap", "eng-beta/preemptor": "heap"}


def test_only_workloads_within_nominal_may_preempt() -> None:
    snap, r = run(
        base(
            cq(
                "other-alpha",
                group(("on-demand", {"cpu": 2})),
                cohort="other",
                reclaim="Any",
                within="LowerPriority",
            ),
            cq("other-beta", group(("on-demand", {"cpu": 2})), cohort="other"),
            LocalQueue("eng-alpha", "other", "other-alpha"),
            LocalQueue("eng-beta", "other", "other-beta"),
            admit(wl("a1", "other", ns="eng-alpha", priority=-1, cpu=1), "other-alpha", "on-demand"),
            admit(wl("b1", "other", ns="eng-beta", priority=-1, cpu=1), "other-beta", "on-demand"),
            wl("incoming", "other", ns="eng-alpha", priority=1, cpu=3),
        )
    )
    assert r.preempted == [] and r.admitted == []
    assert where(snap) == {"eng-alpha/incoming": "inadmissible"}


def test_preemption_possible_after_earlier_workload_fits() -> None:
    snap, r = run(
        base(
            cq(
                "other-alpha",
                group(("default", {"cpu": 1})),
                cohort="other",
                within="LowerPriority",
                reclaim="",
            ),
            cq(
                "other-beta",
                group(("default", {"cpu": 2})),
                cohort="other",
                within="LowerPriority",
                reclaim="",
            ),
            LocalQueue("eng-alpha", "other", "other-alpha"),
            LocalQueue("eng-beta", "other", "other-beta"),
            admit(wl("b1", "other", ns="eng-beta", cpu=2), "other-beta", "default"),
            wl("fit", "other", ns="eng-alpha", priority=100, cpu=1),
            wl("preemptor", "other", ns="eng-beta", priority=99, cpu=2),
        )
    )
    assert sorted(flavors_of(r)) == ["eng-alpha/fit"]
    assert {p.workload for p in r.preempted} == {"eng-beta/b1"}
    assert where(snap) == {"eng-beta/preemptor": "heap"}


def test_second_preemption_skipped_when_shared_limited_resource_cannot_fit_both() -> None:
    snap, r = run(
        base(
            cq(
                "other-alpha",
                group(("default", {"cpu": 2})),
                cohort="other",
                within="LowerPriority",
                reclaim="",
                bwc="LowerPriority",
            ),
            cq(
                "other-beta",
                group(("default", {"cpu": 2})),
                cohort="other",
                within="LowerPriority",
                reclaim="",
                bwc="LowerPriority",
            ),
            cq("resource-bank", group(("default", {"cpu": 1})), cohort="other"),
            LocalQueue("eng-alpha", "other", "other-alpha"),
            LocalQueue("eng-beta", "other", "other-beta"),
            admit(wl("a1", "other", ns="eng-alpha", cpu=2), "other-alpha", "default"),
            admit(wl("b1", "other", ns="eng-beta", cpu=2), "other-beta", "default"),
            wl("preemptor", "other", ns="eng-alpha", priority=100, cpu=3),
            wl("pretending-preemptor", "other", ns="eng-beta", priority=99, cpu=3),
        )
    )
    assert {p.workload for p in r.preempted} == {"eng-alpha/a1"}
    assert where(snap) == {"eng-alpha/preemptor": "heap", "eng-beta/pretending-preemptor": "heap"}


def test_multiple_preemptions_within_cluster_queues_with_fair_sharing() -> None:
    objs: list[object] = [
        cq(f"other-{n}", group(("default", {"cpu": 2})), cohort="other", within="LowerPriority", reclaim="")
        for n in ("alpha", "beta", "gamma")
    ]
    objs += [cq("resource-bank", group(("default", {"cpu": 3})), cohort="other")]
    for n in ("alpha", "beta", "gamma"):
        objs += [
            LocalQueue(f"eng-{n}", "other", f"other-{n}"),
            admit(wl(f"{n[0]}1", "other", ns=f"eng-{n}", cpu=3), f"other-{n}", "default"),
            wl("preemptor", "other", ns=f"eng-{n}", priority=100, cpu=3),
        ]
    snap, r = run(base(*objs), fair=True)
    assert {p.workload for p in r.preempted} == {"eng-alpha/a1", "eng-beta/b1", "eng-gamma/g1"}
    assert set(where(snap).values()) == {"heap"}


def _lending(reclaim: str) -> tuple[Snapshot, CycleResult]:
    return run(
        base(
            cq("ClusterQueueA", group(("on-demand", {"gpu": 2})), cohort="root", reclaim=reclaim),
            cq("ClusterQueueB", group(("on-demand", {"gpu": 0})), cohort="root"),
            LocalQueue("eng-alpha", "lq", "ClusterQueueA"),
            LocalQueue("eng-beta", "lq", "ClusterQueueB"),
            admit(wl("a1-admitted", "lq", ns="eng-alpha", gpu=1), "ClusterQueueA", "on-demand"),
            wl("a2-pending", "lq", ns="eng-alpha", gpu=2),
            wl("b1-pending", "lq", ns="eng-beta", t=50, gpu=1),
        )
    )


def test_capacity_not_blocked_when_lender_can_always_reclaim() -> None:
    snap, r = _lending("Any")
    assert sorted(flavors_of(r)) == ["eng-beta/b1-pending"]
    assert where(snap) == {"eng-alpha/a2-pending": "inadmissible"}


def test_capacity_blocked_when_lender_is_not_guaranteed_to_reclaim() -> None:
    for reclaim in ("LowerPriority", "Never"):
        snap, r = _lending(reclaim)
        assert r.admitted == []
        assert where(snap) == {"eng-alpha/a2-pending": "inadmissible", "eng-beta/b1-pending": "heap"}


def test_workload_requiring_reclamation_is_processed_before_borrower_in_full_queue() -> None:
    snap, r = run(
        base(
            cq("CQ1", group(("on-demand", {"gpu": 10})), cohort="other"),
            cq("CQ2", group(("on-demand", {"gpu": 10})), cohort="other", reclaim="Any"),
            cq("CQ3", group(("on-demand", {"gpu": 0})), cohort="other"),
            *[
                LocalQueue(ns, "lq", q)
                for ns, q in (("eng-alpha", "CQ1"), ("eng-beta", "CQ2"), ("eng-gamma", "CQ3"))
            ],
            admit(wl("Admitted-Workload-1", "lq", ns="eng-alpha", gpu=5), "CQ1", "on-demand"),
            wl("WL1", "lq", ns="eng-alpha", t=0, gpu=10),
            wl("WL2", "lq", ns="eng-beta", t=1, gpu=10),
            admit(wl("Admitted-Workload-2", "lq", ns="eng-gamma", priority=0, gpu=5), "CQ3", "on-demand"),
            admit(wl("Admitted-Workload-3", "lq", ns="eng-gamma", priority=1, gpu=5), "CQ3", "on-demand"),
        )
    )
    assert {p.workload for p in r.preempted} == {"eng-gamma/Admitted-Workload-2"}
    assert where(snap) == {"eng-beta/WL2": "heap", "eng-alpha/WL1": "inadmissible"}
