"""The flavor assigner's caches and one-walk helpers answer exactly what the plain computation does.

- `flavor_assigner.CQPlan` (a ClusterQueue's fungibility flags and flavor lists, kept on its quota
  node): an assignment made with the kept plan equals one made with a plan built afresh, before
  and after usage changes (the plan holds nothing that depends on usage), and a plan whose spec or
  flavor map was replaced is rebuilt.
- `Assignment.rep` (the representative mode, cached once the assigner is done, as Kueue's
  `Assignment.RepresentativeMode` caches `representativeMode`): equal to the mode computed from
  the pod sets; not cached when topology-aware scheduling may still lower the modes.
- `resource_node.available_with_parent` and the loop form of `lowest_subtree_height`: equal to
  `available` twice and to Kueue's `FindHeightOfLowestSubtreeThatFits` walk
  (pkg/cache/scheduler/resource_node.go @ff69552e), written out here as the specification.
- `lowest_subtree_height`'s memo (the last answer per ClusterQueue, stamped with the usage
  versions of the node and its ancestors): asked again it answers what the walk does, and a usage
  change anywhere on the path (the ClusterQueue's own or a sibling's, seen by the cohorts) is seen.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gpuplane.kueue import Snapshot
from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.assignment import _Oracle
from gpuplane.kueue.flavor_assigner import (
    MODE_FIT,
    MODE_NOFIT,
    MODE_PREEMPT,
    Assignment,
    CQPlan,
    FlavorAssigner,
    _matches_every_pod_set,
    flavor_mismatch,
    plan_of,
)
from gpuplane.kueue.objects import (
    FR,
    FlavorFungibility,
    PodSet,
    ResourceFlavor,
    SelectorRequirement,
    Taint,
    Toleration,
    Workload,
)

from .kueue_builders import cohort, cq, flavors, group, wl, world

GPU1: FR = ("f1", "gpu")


def _render(a: Assignment) -> tuple[Any, ...]:
    """Everything an assignment decides, reasons as text."""
    podsets = tuple(
        (
            p.name,
            p.count,
            tuple(sorted(p.requests.items())),
            tuple(sorted((r, fc.flavor, fc.mode, fc.borrow, fc.tried_idx) for r, fc in p.flavors.items())),
            p.failed,
            p.first_reason,
            p.mode(),
        )
        for p in a.podsets
    )
    return (
        podsets,
        tuple(sorted(a.usage.items())),
        a.borrowing,
        tuple(a.reasons),
        tuple(sorted(a.last_tried.items())),
        tuple(a.deferred),
        a.mode(),
        a.computed_mode(),
    )


def _assign(snap: Snapshot, w: Workload, fresh_plan: bool) -> tuple[Any, ...]:
    state = snap.cqs[w.queue_name]
    if fresh_plan:
        state.node.assign_plan = None
    return _render(FlavorAssigner(snap, w, state, _Oracle(snap, w, state)).assign())


@st.composite
def trees(draw: Any) -> tuple[Snapshot, list[Workload]]:
    """Two or three flavors over one or two resource groups, ClusterQueues in a (nested) cohort,
    every fungibility setting, and pending workloads of one or two pod sets."""
    nested = draw(st.booleans())
    objs: list[object] = [
        *flavors("f1", "f2", "f3"),
        cohort("root", group(("f1", {"gpu": draw(st.integers(0, 4))}))),
    ]
    if nested:
        objs.append(cohort("sub", group(("f2", {"gpu": draw(st.integers(0, 2))})), parent="root"))
    n_cq = draw(st.integers(1, 3))
    for i in range(n_cq):
        names = draw(st.permutations(["f1", "f2", "f3"]))[: draw(st.integers(1, 3))]
        gpu = []
        for f in names:
            nominal = draw(st.integers(0, 6))
            bl = draw(st.one_of(st.none(), st.integers(0, 4)))
            ll = draw(st.one_of(st.none(), st.integers(0, nominal)))
            gpu.append((f, {"gpu": (nominal, bl, ll)}))
        groups = [group(*gpu)]
        if draw(st.booleans()):
            groups.append(group(("f1", {"cpu": draw(st.integers(0, 8))}), ("f2", {"cpu": 8})))
        objs.append(
            cq(
                f"cq{i}",
                *groups,
                cohort=("sub" if nested and i % 2 else "root") if draw(st.booleans()) or i else None,
                reclaim=draw(st.sampled_from(["Never", "LowerPriority", "Any"])),
                bwc=draw(st.sampled_from(["Never", "LowerPriority"])),
                within=draw(st.sampled_from(["Never", "LowerPriority"])),
                when_can_borrow=draw(st.sampled_from(["MayStopSearch", "TryNextFlavor"])),
                when_can_preempt=draw(st.sampled_from(["TryNextFlavor", "Preempt"])),
                preference=draw(
                    st.sampled_from([None, "BorrowingOverPreemption", "PreemptionOverBorrowing"])
                ),
            )
        )
    pending: list[Workload] = []
    for j in range(draw(st.integers(1, 6))):
        reqs: dict[str, Any] = {"gpu": draw(st.integers(0, 7))}
        if draw(st.booleans()):
            reqs["cpu"] = draw(st.integers(0, 9))
        if draw(st.integers(0, 5)) == 0:
            reqs["memory"] = 1  # covered by no group
        pending.append(wl(f"w{j}", f"cq{draw(st.integers(0, n_cq - 1))}", priority=j % 3, **reqs))
    snap = world([*objs, *pending], fair=draw(st.booleans()))
    return snap, pending


def _charge_randomly(snap: Snapshot, rng: random.Random) -> None:
    """Some usage somewhere in the tree (as admitted workloads would add it)."""
    for state in snap.cqs.values():
        for fr in list(state.node.nominal):
            if rng.random() < 0.5:
                rn.add_usage(state.node, fr, rng.randint(0, 6) * 1000)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(), st.integers(0, 2**16))
def test_the_kept_plan_assigns_what_a_fresh_plan_assigns_before_and_after_usage_changes(
    tree: tuple[Snapshot, list[Workload]], seed: int
) -> None:
    snap, pending = tree
    rng = random.Random(seed)
    for _ in range(3):
        for w in pending:
            kept = _assign(snap, w, fresh_plan=False)
            assert kept == _assign(snap, w, fresh_plan=True)
        _charge_randomly(snap, rng)


def test_the_plan_holds_no_usage_a_head_that_fitted_no_longer_fits_once_quota_is_used() -> None:
    # cq a: 4 GPUs of f1, no cohort. A 3-GPU head fits (Fit). Once 2 GPUs are used, 3 > 2 left
    # and nothing can be preempted (no admitted workload): Preempt mode without victims, with the
    # plan kept from the first assignment.
    snap = world([*flavors("f1"), cq("a", group(("f1", {"gpu": 4}))), wl("w", "a", gpu=3)])
    w = snap.workloads["ns/w"]
    state = snap.cqs["a"]
    first = FlavorAssigner(snap, w, state, _Oracle(snap, w, state)).assign()
    assert first.mode() == MODE_FIT and first.usage == {GPU1: 3_000}
    plan = state.node.assign_plan
    rn.add_usage(state.node, GPU1, 2_000)
    second = FlavorAssigner(snap, w, state, _Oracle(snap, w, state)).assign()
    assert state.node.assign_plan is plan  # the same plan, kept
    assert second.mode() == MODE_PREEMPT
    assert second.reasons == [
        "needs 3 gpu in flavor f1; a has nominal 4, uses 2, no cohort to borrow from; 1 more needed"
    ]


def test_a_plan_is_rebuilt_when_the_spec_or_the_flavor_map_is_replaced() -> None:
    # cq a borrows in f1 (nominal 1 of a 4-GPU cohort) or fits f2 (nominal 4) without borrowing.
    # MayStopSearch stops at f1 while borrowing; TryNextFlavor goes on to f2 and prefers it.
    snap = world(
        [
            *flavors("f1", "f2"),
            cq("a", group(("f1", {"gpu": 1}), ("f2", {"gpu": 4})), cohort="c"),
            cq("b", group(("f1", {"gpu": 3})), cohort="c"),
            wl("w", "a", gpu=2),
        ]
    )
    w = snap.workloads["ns/w"]
    state = snap.cqs["a"]

    def chosen() -> str:
        a = FlavorAssigner(snap, w, state, _Oracle(snap, w, state)).assign()
        return a.podsets[0].flavors["gpu"].flavor

    assert chosen() == "f1"
    old = plan_of(snap, state)
    state.spec = replace(state.spec, flavor_fungibility=FlavorFungibility(when_can_borrow="TryNextFlavor"))
    assert chosen() == "f2"
    assert plan_of(snap, state) is not old
    snap.flavors = {"f2": snap.flavors["f2"]}  # f1 gone: its plan entry must not survive
    a = FlavorAssigner(snap, w, state, _Oracle(snap, w, state)).assign()
    assert a.podsets[0].flavors["gpu"].flavor == "f2"
    assert "flavor f1 not found" in a.reasons


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(), st.integers(0, 2**16))
def test_the_cached_mode_is_the_mode_of_the_pod_sets(
    tree: tuple[Snapshot, list[Workload]], seed: int
) -> None:
    snap, pending = tree
    _charge_randomly(snap, random.Random(seed))
    for w in pending:
        state = snap.cqs[w.queue_name]
        a = FlavorAssigner(snap, w, state, _Oracle(snap, w, state)).assign()
        assert a.rep >= 0
        worst = min((p.mode() for p in a.podsets), default=MODE_FIT)
        assert a.mode() == worst == a.computed_mode()


def test_with_topology_aware_scheduling_the_mode_is_not_cached() -> None:
    # TAS's hook may lower a pod set's modes after the assigner (tas/hook.py): mode() must see it.
    snap = world([*flavors("f1"), cq("a", group(("f1", {"gpu": 4}))), wl("w", "a", gpu=1)])
    snap.tas = object()  # any TAS state: the assigner only tests whether there is one
    w = snap.workloads["ns/w"]
    state = snap.cqs["a"]
    a = FlavorAssigner(snap, w, state, _Oracle(snap, w, state)).assign()
    assert a.rep == -1 and a.mode() == MODE_FIT
    a.podsets[0].flavors["gpu"].mode = MODE_NOFIT
    assert a.mode() == MODE_NOFIT


def _kueue_lowest_subtree_height(cq_node: rn.Node, fr: FR, val: int) -> tuple[int, bool]:
    """FindHeightOfLowestSubtreeThatFits as resource_node.go words it (the specification)."""
    if cq_node.parent is None or not rn.borrowing_with(cq_node, fr, val):
        return 0, cq_node.parent is not None
    remaining = val - rn.local_available(cq_node, fr)
    for node in cq_node.path_to_root():
        if not rn.borrowing_with(node, fr, remaining):
            return node.height(), node.parent is not None
        remaining -= rn.local_available(node, fr)
    return cq_node.root().height(), False


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(), st.integers(0, 2**16))
@example(tree=None, seed=0)  # the hand-built three-level tree below
def test_one_walk_helpers_equal_the_walks_they_replace(
    tree: tuple[Snapshot, list[Workload]] | None, seed: int
) -> None:
    if tree is None:
        snap = world(
            [
                *flavors("f1"),
                cohort("root", group(("f1", {"gpu": 10}))),
                cohort("team", group(("f1", {"gpu": (2, None, 1)})), parent="root"),
                cq("a", group(("f1", {"gpu": (1, 3, 0)})), cohort="team"),
                cq("b", group(("f1", {"gpu": 1})), cohort="root"),
            ]
        )
    else:
        snap = tree[0]
    rng = random.Random(seed)
    for _ in range(4):
        for state in snap.cqs.values():
            node = state.node
            for fr in [GPU1, ("f2", "gpu"), ("f3", "gpu"), ("f1", "cpu"), ("f2", "cpu")]:
                parent_avail = rn.available(node.parent, fr) if node.parent is not None else 0
                assert rn.available_with_parent(node, fr) == (rn.available(node, fr), parent_avail)
                for val in range(0, 16_000, 1_000):
                    assert rn.lowest_subtree_height(node, fr, val) == _kueue_lowest_subtree_height(
                        node, fr, val
                    )
        _charge_randomly(snap, rng)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["zone", "gpu"]), st.sampled_from(["a", "b"]), max_size=2),
    st.lists(st.sampled_from(["NoSchedule", "NoExecute", "PreferNoSchedule"]), max_size=2),
    st.dictionaries(st.sampled_from(["zone", "gpu", "pool"]), st.sampled_from(["a", "b"]), max_size=2),
    st.one_of(
        st.none(),
        st.lists(
            st.lists(
                st.tuples(
                    st.sampled_from(["zone", "gpu", "pool"]),
                    st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist"]),
                    st.lists(st.sampled_from(["a", "b"]), max_size=2),
                ),
                min_size=1,
                max_size=2,
            ),
            max_size=2,
        ),
    ),
    st.booleans(),
)
def test_a_flavor_the_plan_says_matches_every_pod_set_matches_each_one(
    labels: dict[str, str],
    effects: list[str],
    selector: dict[str, str],
    terms: list[list[tuple[str, str, list[str]]]] | None,
    tolerate: bool,
) -> None:
    # The plan skips flavor_mismatch for a flavor without node labels and without a taint a pod
    # must tolerate: flavor_mismatch must then be None whatever the pod set asks.
    taints = tuple(Taint(f"t{i}", "x", e) for i, e in enumerate(effects))
    flavor = ResourceFlavor("f", node_labels=labels, node_taints=taints)
    affinity = (
        None
        if terms is None
        else tuple(tuple(SelectorRequirement(k, op, tuple(v)) for k, op, v in term) for term in terms)
    )
    pod_set = PodSet(
        "main",
        1,
        {"gpu": 1},
        node_selector=selector,
        tolerations=(Toleration("", "Exists", "", ""),) if tolerate else (),
        affinity_terms=affinity,
    )
    if _matches_every_pod_set(flavor):
        assert flavor_mismatch(flavor, pod_set) is None
    assert _matches_every_pod_set(flavor) == (not labels and not {"NoSchedule", "NoExecute"} & set(effects))


def test_the_plan_reads_fungibility_and_groups_once() -> None:
    snap = world(
        [
            *flavors("f1", "f2"),
            cq(
                "a",
                group(("f1", {"gpu": 1, "cpu": 2}), ("f2", {"gpu": 1})),
                group(("f2", {"memory": 1})),
                when_can_borrow="TryNextFlavor",
                preference="PreemptionOverBorrowing",
            ),
        ]
    )
    plan = plan_of(snap, snap.cqs["a"])
    assert isinstance(plan, CQPlan)
    assert (plan.pob, plan.preempt_tries, plan.borrow_tries, plan.may_skip_oracle) == (True, True, True, True)
    assert plan.groups["gpu"] is plan.groups["cpu"] and plan.groups["memory"] is not plan.groups["gpu"]
    assert plan.groups["gpu"].names == ["f1", "f2"] and plan.groups["gpu"].covered == {"gpu", "cpu"}
    assert not plan.has_pods


def test_lowest_subtree_height_memo_sees_a_usage_change_above_the_cluster_queue() -> None:
    # root (10) <- team (2) <- a (1), c (1); no lending limits, so nothing is guaranteed and all
    # usage passes up. Subtrees: a 1, team 2+1+1 = 4, root 10+4 = 14.
    snap = world(
        [
            *flavors("f1"),
            cohort("root", group(("f1", {"gpu": 10}))),
            cohort("team", group(("f1", {"gpu": 2})), parent="root"),
            cq("a", group(("f1", {"gpu": 1})), cohort="team"),
            cq("c", group(("f1", {"gpu": 1})), cohort="team"),
        ]
    )
    a, c = snap.cqs["a"].node, snap.cqs["c"].node
    # a needs 3: 3 > a's 1, 3 <= team's 4 -> team's height 1; team has a parent (may reclaim).
    assert rn.lowest_subtree_height(a, GPU1, 3_000) == (1, True)
    assert rn.lowest_subtree_height(a, GPU1, 3_000) == (1, True)  # asked again: the memo
    ver_a = a.ver
    rn.add_usage(c, GPU1, 2_000)  # c's usage reaches team and root; a's own usage is unchanged
    assert a.ver == ver_a
    # team: 2 used + 3 > 4 -> root: 2 + 3 <= 14 -> root's height 2, nothing above it.
    assert rn.lowest_subtree_height(a, GPU1, 3_000) == (2, False)
    rn.add_usage(c, GPU1, -2_000)
    assert rn.lowest_subtree_height(a, GPU1, 3_000) == (1, True)
    # The same val for another (flavor, resource) is another question.
    assert rn.lowest_subtree_height(a, ("f1", "cpu"), 3_000) == (2, False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(), st.integers(0, 2**16))
def test_lowest_subtree_height_memo_equals_the_walk_after_every_change(
    tree: tuple[Snapshot, list[Workload]], seed: int
) -> None:
    snap = tree[0]
    rng = random.Random(seed)
    nodes = [s.node for s in snap.cqs.values()]
    frs = [GPU1, ("f2", "gpu"), ("f1", "cpu")]
    for _ in range(40):
        node, fr, val = rng.choice(nodes), rng.choice(frs), rng.randint(0, 12) * 1_000
        assert rn.lowest_subtree_height(node, fr, val) == _kueue_lowest_subtree_height(node, fr, val)
        if rng.random() < 0.5:  # a change somewhere, possibly off the asked node's path
            rn.add_usage(rng.choice(nodes), rng.choice(frs), rng.randint(-3, 6) * 1_000)
