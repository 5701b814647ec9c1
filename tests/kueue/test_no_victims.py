"""`no_victims.cannot_find_victims`: True only where the classical preemption search finds nothing.

Hand cases from Kueue's rules (kueue.md §7: a workload that must borrow takes other ClusterQueues'
workloads only with borrowWithinCohort; reclaiming needs the request to fit under the quota it
reclaims; withinClusterQueue LowerPriority takes only lower priorities), and a property: over random
cohort trees, policies and admitted work, whenever the test says "no victims", the search agrees.
"""

from __future__ import annotations

from hypothesis import given

from gpuplane.kueue import schedule_cycle
from gpuplane.kueue.no_victims import cannot_find_victims
from gpuplane.kueue.objects import FR
from gpuplane.kueue.preemption import PreemptionCtx, classical_targets
from gpuplane.kueue.snapshot import Snapshot

from .kueue_builders import _res, admit, cohort, cq, flavors, group, wl, world
from .test_properties import worlds

GPU = _res("gpu")
FR_A: FR = ("a", GPU)


def _ctx(snap: Snapshot, key: str, gpus: int) -> PreemptionCtx:
    w = snap.workloads[key]
    cq_name, _ = snap.cq_for(w)
    return PreemptionCtx(snap, w, snap.cqs[cq_name or ""], frozenset({FR_A}), {FR_A: gpus * 1000})


def _two_teams(
    *, own_low: bool = False, bwc: str = "Never", reclaim: str = "Any", nominal: int = 2
) -> Snapshot:
    """team-1 (nominal `nominal`) and team-2 (the rest of 10) in one cohort; team-2's priority-0
    workload borrows 2 GPUs, or, with `own_low`, leaves 2 of its nominal free while team-1 holds a
    1-GPU priority-0 workload (3 GPUs free: w needs that one too); w (priority 5, 4 GPUs) waits."""
    objs: list[object] = [
        *flavors("a"),
        cohort("c"),
        cq(
            "team-1",
            group(("a", {"gpu": nominal})),
            cohort="c",
            within="LowerPriority",
            reclaim=reclaim,
            bwc=bwc,
        ),
        cq("team-2", group(("a", {"gpu": 10 - nominal})), cohort="c"),
        admit(wl("big", "team-2", gpu=10 - nominal + (-2 if own_low else 2)), "team-2", "a", reserved_at=1.0),
        wl("w", "team-1", priority=5, t=3.0, gpu=4),
    ]
    if own_low:
        objs.append(admit(wl("low", "team-1", gpu=1), "team-1", "a", reserved_at=2.0))
    return world(objs)


def test_a_request_that_must_borrow_without_borrow_within_cohort_finds_no_victims() -> None:
    # w needs 4 > team-1's nominal 2: it would borrow, so team-2's workloads are not candidates
    # (borrowWithinCohort Never) and team-1 holds nothing: no victims, and the search agrees.
    snap = _two_teams()
    ctx = _ctx(snap, "ns/w", 4)
    assert cannot_find_victims(ctx)
    assert classical_targets(ctx) == []


def test_a_lower_priority_workload_of_its_own_makes_the_test_give_up() -> None:
    snap = _two_teams(own_low=True)
    ctx = _ctx(snap, "ns/w", 4)
    assert not cannot_find_victims(ctx)
    assert [t.wl.key for t in classical_targets(ctx)] == ["ns/low"]  # the 4th GPU: its own


def test_borrow_within_cohort_makes_the_test_give_up() -> None:
    snap = _two_teams(bwc="LowerPriority")
    assert not cannot_find_victims(_ctx(snap, "ns/w", 4))


def test_a_request_within_nominal_may_reclaim_so_the_test_gives_up() -> None:
    # team-1 nominal 4, empty; team-2 borrows 2 above its nominal 6: w (4 GPUs) reclaims them.
    snap = _two_teams(nominal=4)
    ctx = _ctx(snap, "ns/w", 4)
    assert not cannot_find_victims(ctx)
    assert [t.wl.key for t in classical_targets(ctx)] == ["ns/big"]


def test_fair_sharing_is_not_covered() -> None:
    snap = _two_teams()
    snap.fair_sharing = object()  # type: ignore[assignment]
    assert not cannot_find_victims(_ctx(snap, "ns/w", 4))


@given(worlds())
def test_whenever_it_says_no_victims_the_search_finds_none(world_fair: tuple[list[object], bool]) -> None:
    objs, _ = world_fair
    snap = world(objs)
    for _ in range(3):
        schedule_cycle(snap)
        snap.release_preempted()
    for w in snap.pending():
        cq_name, _ = snap.cq_for(w)
        state = snap.cqs[cq_name or ""]
        for fr in sorted(state.node.nominal):
            for qty in range(1, 11):
                ctx = PreemptionCtx(snap, w, state, frozenset({fr}), {fr: qty * 1000})
                if cannot_find_victims(ctx):
                    assert classical_targets(ctx) == []


def _woken_world() -> Snapshot:
    """kueue/shape_queue.py's counter-example: one cohort of 4 GPUs, A and B with 2 nominal each, all
    in use, no preemption; a1 (8 GPUs, t=1) and a2 (1 GPU, t=3) set aside in A, b1 (1 GPU, t=2) in B."""
    snap = world(
        [
            *flavors("a"),
            cohort("c"),
            cq("A", group(("a", {"gpu": 2})), cohort="c"),
            cq("B", group(("a", {"gpu": 2})), cohort="c"),
            admit(wl("a-run", "A", gpu=1), "A", "a", reserved_at=0.0),
            admit(wl("a-run2", "A", gpu=1), "A", "a", reserved_at=0.0),
            admit(wl("b-run", "B", gpu=2), "B", "a", reserved_at=0.0),
            wl("a1", "A", t=1.0, gpu=8),
            wl("a2", "A", t=3.0, gpu=1),
            wl("b1", "B", t=2.0, gpu=1),
        ]
    )
    for _ in range(3):
        schedule_cycle(snap)
    assert {k for k in ("ns/a1", "ns/a2", "ns/b1") if snap.where(k) == "inadmissible"} == {
        "ns/a1",
        "ns/a2",
        "ns/b1",
    }
    return snap


def _admitted_after_release(skip_a1: bool) -> list[str]:
    snap = _woken_world()
    snap.finish("ns/a-run")  # 1 GPU of A's nominal free: every set-aside workload is woken
    if skip_a1:  # "wake only what the release covers": a1's 8 GPUs never are
        snap.cqs["A"].queue.park(snap.workloads["ns/a1"])
    admitted = []
    for _ in range(3):
        admitted += [a.workload for a in schedule_cycle(snap).admitted]
    return admitted


def test_skipping_a_head_whose_shortfall_is_not_covered_changes_the_admission() -> None:
    # Kueue: cycle 1 heads a1 (fails) and b1 (admitted, borrowing A's free GPU); a2 then waits.
    assert _admitted_after_release(skip_a1=False) == ["ns/b1"]
    # Skipping a1: cycle 1 heads a2 and b1; a2 does not borrow, so it goes first and is admitted.
    assert _admitted_after_release(skip_a1=True) == ["ns/a2"]
