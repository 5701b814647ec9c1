"""Property tests: quota is never exceeded, no forbidden victim, order of inputs does not matter."""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuplane.kueue import Snapshot, schedule_cycle
from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.preemption import policy_allows

from .kueue_builders import cohort, cq, flavors, group, wl

POLICIES = ["Never", "LowerPriority", "LowerOrNewerEqualPriority", "Any"]


@st.composite
def worlds(draw: Any) -> tuple[list[object], bool]:
    n_cq = draw(st.integers(2, 4))
    nested = draw(st.booleans())
    objs: list[object] = [
        *flavors("f1", "f2"),
        cohort("root", group(("f1", {"gpu": draw(st.integers(0, 4))}))),
    ]
    if nested:
        objs.append(cohort("sub", parent="root"))
    for i in range(n_cq):
        quotas = []
        for f in ("f1", "f2"):
            nominal = draw(st.integers(0, 8))
            bl = draw(st.one_of(st.none(), st.integers(0, 6)))
            ll = draw(st.one_of(st.none(), st.integers(0, nominal)))
            quotas.append((f, {"gpu": (nominal, bl, ll)}))
        objs.append(
            cq(
                f"cq{i}",
                group(*quotas),
                cohort=("sub" if nested and i % 2 else "root"),
                within=draw(st.sampled_from(POLICIES[:3])),
                reclaim=draw(st.sampled_from(["Never", "LowerPriority", "Any"])),
                bwc=draw(st.sampled_from(["Never", "LowerPriority"])),
                strategy=draw(st.sampled_from(["BestEffortFIFO", "StrictFIFO"])),
                when_can_borrow=draw(st.sampled_from(["MayStopSearch", "TryNextFlavor"])),
            )
        )
    n_wl = draw(st.integers(1, 12))
    for j in range(n_wl):
        objs.append(
            wl(
                f"w{j}",
                f"cq{draw(st.integers(0, n_cq - 1))}",
                priority=draw(st.integers(0, 3)),
                t=float(draw(st.integers(0, 5))),
                gpu=draw(st.integers(1, 6)),
            )
        )
    return objs, draw(st.booleans())


def _world(objs: list[object], fair: bool) -> Snapshot:
    from .kueue_builders import world

    return world(objs, fair=fair)


def _check_quota(snap: Snapshot) -> None:
    for state in snap.cqs.values():
        node = state.node
        recomputed: dict[tuple[str, str], int] = {}
        for key in state.workloads:
            for fr, v in snap.usage_of[key].items():
                recomputed[fr] = recomputed.get(fr, 0) + v
        assert {k: v for k, v in node.usage.items() if v} == {k: v for k, v in recomputed.items() if v}
        for fr, used in node.usage.items():
            limit = node.borrowing_limit.get(fr)
            if node.parent is None:
                assert used <= node.nominal.get(fr, 0)
            elif limit is not None:
                assert used <= node.nominal.get(fr, 0) + limit
    for root in (n for n in snap.cohorts.values() if n.parent is None):
        for fr, used in root.usage.items():
            assert used <= root.subtree.get(fr, 0), (root.name, fr)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds(), st.randoms(use_true_random=False))
def test_no_admission_exceeds_what_the_quota_tree_allows(
    world_fair: tuple[list[object], bool], rnd: random.Random
) -> None:
    objs, fair = world_fair
    snap = _world(objs, fair)
    for _ in range(6):
        schedule_cycle(snap)
        _check_quota(snap)
        snap.release_preempted()
        _check_quota(snap)
        admitted = [w.key for w in snap.admitted()]
        if admitted and rnd.random() < 0.3:
            snap.finish(rnd.choice(admitted))
            _check_quota(snap)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds())
def test_no_victim_is_chosen_that_the_policy_forbids(world_fair: tuple[list[object], bool]) -> None:
    objs, fair = world_fair
    snap = _world(objs, fair)
    for _ in range(4):
        result = schedule_cycle(snap)
        for p in result.preempted:
            victim, preemptor = snap.workloads[p.workload], snap.workloads[p.preemptor]
            pcq, _ = snap.cq_for(preemptor)
            policy = snap.cqs[pcq or ""].spec.preemption
            if p.cluster_queue == pcq:
                assert p.reason == "InClusterQueue"
                assert policy_allows(policy.within_cluster_queue, preemptor, victim)
            else:
                assert p.reason != "InClusterQueue"
                assert policy_allows(policy.reclaim_within_cohort, preemptor, victim)
                victim_cq = snap.cqs[p.cluster_queue].node
                assert any(rn.is_borrowing(victim_cq, fr) for fr in snap.usage_of[p.workload])
        snap.release_preempted()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds(), st.randoms(use_true_random=False))
def test_results_do_not_depend_on_input_order(
    world_fair: tuple[list[object], bool], rnd: random.Random
) -> None:
    from gpuplane.explain.command import to_json

    objs, fair = world_fair

    def run(order: list[object]) -> Any:
        snap = _world(copy.deepcopy(order), fair)
        results = []
        for _ in range(3):
            results.append(schedule_cycle(snap, explain_pending=True))
            snap.release_preempted()
        return to_json(snap, results)

    shuffled = list(objs)
    rnd.shuffle(shuffled)
    assert run(objs) == run(shuffled)
