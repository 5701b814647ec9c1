"""Later flavors first (issue 23): no preemption simulation in a flavor Kueue's search cannot choose.

Kueue's flavor search (kubernetes-sigs/kueue @ff69552e, v0.20.0-devel after v0.19.2,
pkg/scheduler/flavorassigner/flavorassigner.go: `findFlavorForPodSets`, `shouldTryNextFlavor`,
`isPreferred`) stops at the first flavor whose representative mode does not ask for the next one
and takes that flavor. With whenCanPreempt TryNextFlavor (the default, apis/kueue/v1beta2/
clusterqueue_types.go) a flavor that needs preemption never stops it, so when a later flavor
fits outright, the preemption simulation in the earlier one cannot change the outcome.

The hand cases give the outcome Kueue's rules prescribe for each fungibility setting (worked out
below each case); the property test runs random clusters (several flavors, two resources, every
fungibility combination, classical and fair sharing, partial admission, several cycles) with the
shortcut on and off and compares every admission, preemption, reason and scan position.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gpuplane.kueue import PodSet, Snapshot, assignment, schedule_cycle, scheduler
from gpuplane.kueue import flavor_assigner as fa
from gpuplane.kueue.objects import FR
from gpuplane.kueue.scheduler import pending_report

from .kueue_builders import Quota, admit, cohort, cq, flavors, group, ps, wl, world

FUNGIBILITY = [
    (borrow, preempt, pref)
    for borrow in ("MayStopSearch", "TryNextFlavor")
    for preempt in ("MayStopSearch", "TryNextFlavor")
    for pref in (None, "BorrowingOverPreemption", "PreemptionOverBorrowing")
]


def _first_search(objs: list[object], key: str, fast: bool, fair: bool = False) -> tuple[str, list[FR]]:
    """The flavor the assigner gives `key`'s GPUs (on a fresh snapshot of `objs`) and the
    (flavor, resource) pairs it asked the preemption oracle about, in order."""
    snap = world(objs, fair=fair)
    wl = snap.workloads[key]
    state = snap.cqs[snap.cq_for(wl)[0] or ""]
    real: Any = assignment._Oracle(snap, wl, state)
    calls: list[FR] = []

    def oracle(fr: FR, qty: int) -> tuple[int, int, list[str]]:
        calls.append(fr)
        got: tuple[int, int, list[str]] = real(fr, qty)
        return got

    chosen = fa.FlavorAssigner(snap, wl, state, oracle, fast).assign()
    return chosen.podsets[0].flavors["gpu"].flavor, calls


def _one_cq(**fung: Any) -> list[object]:
    """CQ `a`: flavors f1 then f2, 4 GPUs nominal each; f1 is full with a low-priority workload."""
    return [
        *flavors("f1", "f2"),
        cq("a", group(("f1", {"gpu": 4}), ("f2", {"gpu": 4})), within="LowerPriority", **fung),
        admit(wl("old", "a", priority=0, gpu=4), "a", "f1", reserved_at=1.0),
        wl("new", "a", priority=10, t=5.0, gpu=2),
    ]


def _run(
    objs: list[object], shortcut: bool, fair: bool = False
) -> tuple[list[str], dict[str, str], Snapshot]:
    fa.use_later_flavors_first(shortcut)
    snap = world(objs, fair=fair)
    result = schedule_cycle(snap)
    admitted = [f"{a.workload}@{a.pod_sets[0].flavors['gpu']}" for a in result.admitted]
    return admitted, {p.workload: p.preemptor for p in result.preempted}, snap


@pytest.mark.parametrize("fair", [False, True])
@pytest.mark.parametrize(
    "fung",
    [
        {},  # defaults: whenCanBorrow MayStopSearch, whenCanPreempt TryNextFlavor
        {"when_can_borrow": "TryNextFlavor", "when_can_preempt": "TryNextFlavor"},
        {
            "when_can_borrow": "TryNextFlavor",
            "when_can_preempt": "TryNextFlavor",
            "preference": "PreemptionOverBorrowing",
        },
        {
            "when_can_borrow": "TryNextFlavor",
            "when_can_preempt": "TryNextFlavor",
            "preference": "BorrowingOverPreemption",
        },
    ],
)
def test_preempt_then_fit_takes_the_fitting_flavor_without_a_search(fung: dict[str, str], fair: bool) -> None:
    # f1: 2 more GPUs than free, nominal 4 >= 2, so Kueue asks the oracle: Preempt (old is lower
    # priority). whenCanPreempt TryNextFlavor: try f2, which fits without borrowing (mode Fit,
    # borrowing 0): shouldTryNextFlavor is false there, the search ends on f2. Nothing is preempted.
    assert _run(_one_cq(**fung), shortcut=False, fair=fair)[:2] == (["ns/new@f2"], {})
    assert _run(_one_cq(**fung), shortcut=True, fair=fair)[:2] == (["ns/new@f2"], {})
    assert _first_search(_one_cq(**fung), "ns/new", fast=False, fair=fair) == ("f2", [("f1", "gpu")])
    assert _first_search(_one_cq(**fung), "ns/new", fast=True, fair=fair) == ("f2", [])


@pytest.mark.parametrize("shortcut", [False, True])
def test_may_stop_search_on_preempt_preempts_in_the_first_flavor(shortcut: bool) -> None:
    # whenCanPreempt MayStopSearch: Preempt in f1 ends the search; new preempts old, f2 is not tried.
    objs = _one_cq(when_can_preempt="MayStopSearch")
    admitted, preempted, _ = _run(objs, shortcut)
    assert (admitted, preempted) == ([], {"ns/old": "ns/new"})
    assert _first_search(_one_cq(when_can_preempt="MayStopSearch"), "ns/new", shortcut) == (
        "f1",
        [("f1", "gpu")],
    )


def _borrowing_second(**fung: Any) -> list[object]:
    """CQ `a` (f1 4 GPUs, full with `old`; f2 nominal 0) in cohort `c`, whose CQ `b` lends f2."""
    return [
        *flavors("f1", "f2"),
        cohort("c"),
        cq("a", group(("f1", {"gpu": 4}), ("f2", {"gpu": 0})), cohort="c", within="LowerPriority", **fung),
        cq("b", group(("f1", {"gpu": 0}), ("f2", {"gpu": 4})), cohort="c"),
        admit(wl("old", "a", priority=0, gpu=4), "a", "f1", reserved_at=1.0),
        wl("new", "a", priority=10, t=5.0, gpu=2),
    ]


@pytest.mark.parametrize("shortcut", [False, True])
@pytest.mark.parametrize(
    ("fung", "expected"),
    [
        # f1 Preempt (borrowing 0), f2 Fit while borrowing (level 1). whenCanBorrow MayStopSearch:
        # the search stops on f2 (Fit); nothing preempted, and f1's search is skipped.
        ({}, (["ns/new@f2"], {})),
        # whenCanBorrow TryNextFlavor: f2 does not stop the search; the best of the two by
        # isPreferred: BorrowingOverPreemption (default) ranks Fit above Preempt -> f2 ...
        ({"when_can_borrow": "TryNextFlavor"}, (["ns/new@f2"], {})),
        # ... PreemptionOverBorrowing ranks borrowing 0 above borrowing 1 -> f1, preempting old.
        (
            {"when_can_borrow": "TryNextFlavor", "preference": "PreemptionOverBorrowing"},
            ([], {"ns/old": "ns/new"}),
        ),
    ],
)
def test_a_fit_that_borrows_stops_the_search_only_under_may_stop_search(
    fung: dict[str, str], expected: tuple[list[str], dict[str, str]], shortcut: bool
) -> None:
    assert _run(_borrowing_second(**fung), shortcut)[:2] == expected
    _, calls = _first_search(_borrowing_second(**fung), "ns/new", shortcut)
    assert (calls == [("f1", "gpu")]) == (not shortcut or fung.get("when_can_borrow") == "TryNextFlavor")


def test_reasons_of_a_head_skipped_later_name_the_victims_of_the_skipped_search() -> None:
    # `new` (CQ a): f1 Preempt (victim old), f2 Fit by borrowing b's 4 GPUs -> assigned f2 (borrowing 1).
    # `bee` (CQ b, 4 GPUs): f1 has no room and b may not preempt -> NoFit; f2 Fit in b's nominal.
    # Classical order: borrowing 0 first, so bee is admitted and takes f2; new no longer fits and
    # is skipped, and its reasons (with f1's preemption simulation) are shown.
    def objs() -> list[object]:
        return [*_borrowing_second(), wl("bee", "b", priority=0, t=1.0, gpu=4)]

    _, _, ref = _run(objs(), shortcut=False)
    admitted, preempted, fast = _run(objs(), shortcut=True)
    assert (admitted, preempted) == (["ns/bee@f2"], {})
    reason = fast.reason("ns/new") or ""
    assert reason.startswith("Workload no longer fits after processing another workload")
    assert "preempting ns/old would make room in flavor f1" in reason
    assert reason == ref.reason("ns/new")


def test_a_fit_head_that_cannot_be_skipped_keeps_its_search_skipped() -> None:
    # As above but bee asks for 1 GPU: with it charged, f2 still has room for new (2 of the 3 left)
    # so new cannot be skipped: it is admitted on f2 and f1's search never runs.
    objs = [*_borrowing_second(), wl("bee", "b", priority=0, t=1.0, gpu=1)]
    admitted, preempted, _ = _run(objs, shortcut=True)
    assert (sorted(admitted), preempted) == (["ns/bee@f2", "ns/new@f2"], {})
    objs = [*_borrowing_second(), wl("bee", "b", priority=0, t=1.0, gpu=1)]
    assert _settled(objs, fair=False) == (1, 0)  # new's f1 search skipped, and not run afterwards
    objs = [*_borrowing_second(), wl("bee", "b", priority=0, t=1.0, gpu=4)]
    assert _settled(objs, fair=False) == (1, 1)  # (the case above: bee could take new's room)


def _settled(objs: list[object], fair: bool) -> tuple[int, int]:
    """In the first cycle's nomination: (searches skipped, heads assigned again in full for their
    reasons by `settle_deferred`)."""
    fa.use_later_flavors_first(True)
    snap = world(objs, fair=fair)
    snap.cycle += 1
    entries, _ = scheduler._nominate(snap, scheduler._heads(snap))
    before = [e.assignment for e in entries]
    skipped = sum(len(a.deferred) for a in before if a is not None)
    assignment.settle_deferred(snap, entries)
    again = sum(e.assignment is not a for e, a in zip(entries, before, strict=True))
    return skipped, again


# ----------------------------------------------------------------------------- property test


def _objs(seed: int, fungs: list[tuple[str, str, str | None]], n_flavors: int) -> list[object]:
    """A small random cluster: `len(fungs)` CQs (one per fungibility) in one or two cohorts, flavors
    f0..f{n-1} with GPU and CPU quotas, admitted work on random flavors, pending work (some of it
    with two pod sets or partial admission)."""
    rng = random.Random(seed)
    names = [f"f{i}" for i in range(n_flavors)]
    objs: list[object] = [*flavors(*names), cohort("root")]
    nested = rng.random() < 0.5
    if nested:
        objs.append(cohort("sub", parent="root"))
    pols = ["Never", "LowerPriority", "LowerOrNewerEqualPriority", "Any"]
    for i, (borrow, preempt, pref) in enumerate(fungs):
        quotas: list[tuple[str, dict[str, Quota]]] = []
        for f in names:
            gpu = rng.randint(0, 6)
            bl = rng.choice([None, 0, 2, 4])
            quotas.append((f, {"cpu": rng.choice([8, 16, 32]), "gpu": (gpu, bl)}))
        objs.append(
            cq(
                f"cq{i}",
                group(*quotas),
                cohort="sub" if nested and i % 2 else "root",
                within=rng.choice(pols[:3]),
                reclaim=rng.choice(["Never", "LowerPriority", "Any"]),
                bwc=rng.choice(["Never", "LowerPriority"]),
                when_can_borrow=borrow,
                when_can_preempt=preempt,
                preference=pref,
            )
        )
    for j in range(rng.randint(0, 10)):
        i = rng.randrange(len(fungs))
        gpu = rng.randint(1, 4)
        w = wl(f"run{j}", f"cq{i}", priority=rng.randint(0, 3), t=float(j), gpu=gpu, cpu=gpu * 2)
        objs.append(admit(w, f"cq{i}", rng.choice(names), reserved_at=float(j)))
    for j in range(rng.randint(1, 12)):
        i = rng.randrange(len(fungs))
        gpu = rng.randint(1, 6)
        kind = rng.random()
        pods: tuple[PodSet, ...]
        if kind < 0.2:
            pods = (ps("a", 1, gpu=gpu, cpu=2), ps("b", rng.randint(1, 3), gpu=1, cpu=1))
        elif kind < 0.35:
            pods = (ps("main", 4, min_count=1, gpu=rng.randint(1, 2), cpu=1),)
        else:
            pods = (ps("main", 1, gpu=gpu, cpu=gpu * 2),)
        objs.append(wl(f"new{j}", f"cq{i}", *pods, priority=rng.randint(0, 4), t=float(20 + j)))
    return objs


def _decisions(objs: list[object], fair: bool, shortcut: bool, cycles: int = 3) -> list[object]:
    """Everything a few cycles decide and say: admissions with flavors and borrowing, preemptions,
    reasons, scan positions, queues."""
    fa.use_later_flavors_first(shortcut)
    try:
        snap = world(objs, fair=fair)
        out: list[object] = []
        for _ in range(cycles):
            r = schedule_cycle(snap, explain_pending=True)
            out.append(
                [
                    (
                        a.workload,
                        a.cluster_queue,
                        a.borrowing,
                        [(p.name, p.count, sorted(p.flavors.items())) for p in a.pod_sets],
                    )
                    for a in r.admitted
                ]
            )
            out.append([(p.workload, p.preemptor, p.reason, p.cluster_queue) for p in r.preempted])
            out.append(sorted((k, sorted(v.last_tried.items()), v.generation) for k, v in snap.scan.items()))
            out.append(sorted((p.workload, p.cluster_queue, p.queue, p.reason) for p in pending_report(snap)))
            out.append(r.parked)
            snap.release_preempted()
            snap.now += 1.0
        return out
    finally:
        fa.use_later_flavors_first(True)


def _same_decisions(seed: int, fungs: list[tuple[str, str, str | None]], n_flavors: int, fair: bool) -> None:
    ref = _decisions(_objs(seed, fungs, n_flavors), fair, shortcut=False)
    fast = _decisions(_objs(seed, fungs, n_flavors), fair, shortcut=True)
    assert fast == ref


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    fungs=st.lists(st.sampled_from(FUNGIBILITY), min_size=1, max_size=4),
    n_flavors=st.integers(2, 3),
    fair=st.booleans(),
)
@example(seed=0, fungs=[FUNGIBILITY[2]], n_flavors=2, fair=True)
def test_same_decisions_with_and_without_the_shortcut(
    seed: int, fungs: list[tuple[str, str, str | None]], n_flavors: int, fair: bool
) -> None:
    _same_decisions(seed, fungs, n_flavors, fair)


@pytest.mark.parametrize("fair", [False, True])
@pytest.mark.parametrize("fung", FUNGIBILITY)
def test_every_fungibility_setting_same_decisions_and_the_shortcut_acts(
    fung: tuple[str, str, str | None], fair: bool
) -> None:
    # 40 seeded clusters per setting, all CQs with that setting. The shortcut must act (skip a
    # search, and re-run some for their reasons) exactly when Kueue's rules allow it:
    # whenCanPreempt TryNextFlavor, and with PreemptionOverBorrowing whenCanBorrow TryNextFlavor.
    skipped = settled = 0
    for seed in range(40):
        _same_decisions(seed, [fung] * 3, 3, fair)
        got = _settled(_objs(seed, [fung] * 3, 3), fair)
        skipped, settled = skipped + got[0], settled + got[1]
    allowed = fung[1] == "TryNextFlavor" and (
        fung[2] != "PreemptionOverBorrowing" or fung[0] == "TryNextFlavor"
    )
    assert (skipped > 0) == allowed
    assert (settled > 0) == allowed
