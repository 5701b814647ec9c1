"""Transcription of `TestAssignFlavors` (kubernetes-sigs/kueue pkg/scheduler/flavorassigner/flavorassigner_test.go).

Upstream runs the flavor assigner alone on one workload. Kept: cases whose outcome a full cycle
reproduces without a hand-made preemption oracle — Fit (the workload is admitted with those
flavors) and NoFit (it stays pending; BestEffortFIFO ⇒ inadmissible). Upstream's
`clusterQueueUsage` / `secondaryClusterQueueUsage` maps are expressed as one admitted workload per
(ClusterQueue, flavor) holding exactly that usage (adaptation, noted in source.txt). ClusterQueues
have no preemption policy unless upstream sets one, so those usages are never preemptable here.
The pending workload is `default/wl` in LocalQueue `lq`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.kueue_upstream.kueue_dsl import (
    Assign,
    Scenario,
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
    rf,
    rg,
    wl,
)

UPSTREAM = "kubernetes-sigs/kueue pkg/scheduler/flavorassigner/flavorassigner_test.go"
COMMIT = "003722419b984db84107b513905656c4be81631c"
CPU, MEM, GPU, PODS = "cpu", "memory", "example.com/gpu", "pods"
NS = "default"
CQ = "test-clusterqueue"
SECONDARY = "test-secondary-clusterqueue"
SPOT_TAINT = {"key": "instance", "value": "spot", "effect": "NoSchedule"}
SPOT_TOLERATION = {"key": "instance", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}
ADAPTED_USAGE = (
    "Adapted: upstream's clusterQueueUsage maps are expressed as admitted workloads holding that usage."
)


def flavors() -> list[dict[str, Any]]:
    """The `resourceFlavors` map of TestAssignFlavors (TAS ones left out)."""
    return [
        rf("default"),
        rf("one", {"type": "one"}),
        rf("two", {"type": "two"}),
        rf("b_one", {"b_type": "one"}),
        rf("b_two", {"b_type": "two"}),
        rf("tainted", taints=[SPOT_TAINT]),
        rf("taint_and_toleration", taints=[SPOT_TAINT], tolerations=[SPOT_TOLERATION]),
        rf("label-x-a", {"x": "a"}),
        rf("label-xy-b", {"x": "b", "y": "k"}),
    ]


def usage(cq_name: str, flavor: str, **amounts: str) -> Any:
    """An admitted workload holding `amounts` of `flavor` in `cq_name` (stands for a usage map)."""
    name = f"usage-{cq_name}-{flavor}".replace("test-", "")
    req = dict(amounts)
    w = wl(name, NS, req=req)
    return reserve(w, cq_name, Assign("main", {r: flavor for r in req}, dict(req), 1))


CASES: list[Scenario] = []


def case(
    slug: str,
    go_name: str,
    queues: list[dict[str, Any]],
    podsets: list[Any],
    want: list[tuple[str, int, dict[str, str]]] | None,
    extra: list[Any] | None = None,
    note: str = "",
    function: str = "TestAssignFlavors",
    fair_sharing: bool = False,
    nofit_heap: bool = False,
) -> None:
    """`want` = admitted podsets, or None when the workload stays pending (NoFit).

    A NoFit workload goes to the inadmissible list (BestEffortFIFO) unless `nofit_heap`: Kueue's
    `requeueIfNotPresent` puts it back in the heap when `LastAssignment.PendingFlavors()`.
    """
    pending = wl("wl", NS, queue="lq", podsets=podsets)
    config = [fair_sharing_config()] if fair_sharing else []
    objects = objs(flavors(), queues, lq("lq", NS, CQ), ns(NS), extra or [], config, pending)
    source = f"{UPSTREAM}\nfunction: {function}\ncase: {go_name}\ncommit: {COMMIT}"
    adm = [admitted(f"{NS}/wl", CQ, *want)] if want is not None else []
    left = {} if want is not None else {CQ: [f"{NS}/wl"]}
    heap, inad = (left, {}) if nofit_heap else ({}, left)
    CASES.append(
        Scenario(
            f"flavors_{slug}", source, objects, adm, [], heap, inad, fair_sharing=fair_sharing, note=note
        )
    )


def main_ps(**req: str) -> Any:
    return ps("main", 1, req={k.replace("__", "/").replace("_", "."): v for k, v in req.items()})


def one_two(quota: str = "4", res_name: str = CPU) -> dict[str, Any]:
    return cq(CQ, rg(fq("one", res(res_name, quota)), fq("two", res(res_name, quota))))


case(
    "single_flavor_fits",
    "single flavor, fits",
    [cq(CQ, rg(fq("default", res(CPU, "1"), res(MEM, "2Mi"))))],
    [main_ps(cpu="1", memory="1Mi")],
    [("main", 1, {CPU: "default", MEM: "default"})],
)
case(
    "single_flavor_fits_tainted_flavor_with_pod_toleration",
    "single flavor, fits tainted flavor",
    [cq(CQ, rg(fq("tainted", res(CPU, "4"))))],
    [ps("main", 1, req={CPU: "1"}, tolerations=[SPOT_TOLERATION])],
    [("main", 1, {CPU: "tainted"})],
)
case(
    "single_flavor_fits_tainted_flavor_with_flavor_toleration",
    "single flavor, fits tainted flavor with toleration",
    [cq(CQ, rg(fq("taint_and_toleration", res(CPU, "4"))))],
    [main_ps(cpu="1")],
    [("main", 1, {CPU: "taint_and_toleration"})],
)
case(
    "multiple_resource_groups_fit",
    "multiple resource groups, fits",
    [
        cq(
            CQ,
            rg(fq("one", res(CPU, "2")), fq("two", res(CPU, "4"))),
            rg(fq("b_one", res(MEM, "1Gi")), fq("b_two", res(MEM, "5Gi"))),
        )
    ],
    [main_ps(cpu="3", memory="10Mi")],
    [("main", 1, {CPU: "two", MEM: "b_one"})],
)
case(
    "multiple_resource_groups_one_exceeds_max_quota",
    "multiple resource groups, one could fit with preemption, other doesn't fit",
    [cq(CQ, rg(fq("one", res(CPU, "3"))), rg(fq("b_one", res(MEM, "1Mi"))))],
    [main_ps(cpu="3", memory="10Mi")],
    None,
    extra=[usage(CQ, "one", cpu="1")],
    note=ADAPTED_USAGE,
)
case(
    "multiple_resource_groups_with_multiple_resources_fit",
    "multiple resource groups with multiple resources, fits",
    [
        cq(
            CQ,
            rg(fq("one", res(CPU, "2"), res(MEM, "1Gi")), fq("two", res(CPU, "4"), res(MEM, "15Mi"))),
            rg(fq("b_one", res(GPU, "4")), fq("b_two", res(GPU, "2"))),
        )
    ],
    [main_ps(cpu="3", memory="10Mi", example_com__gpu="3")],
    [("main", 1, {CPU: "two", MEM: "two", GPU: "b_one"})],
)
case(
    "multiple_resources_in_a_group_do_not_fit",
    "multiple resources in a group, doesn't fit",
    [cq(CQ, rg(fq("one", res(CPU, "2"), res(MEM, "1Gi")), fq("two", res(CPU, "4"), res(MEM, "5Mi"))))],
    [main_ps(cpu="3", memory="10Mi")],
    None,
)
case(
    "fits_while_skipping_tainted_flavor",
    "multiple flavors, fits while skipping tainted flavor",
    [cq(CQ, rg(fq("tainted", res(CPU, "4")), fq("two", res(CPU, "4"))))],
    [main_ps(cpu="3")],
    [("main", 1, {CPU: "two"})],
)
_ignored2 = {"matchExpressions": [{"key": "ignored2", "operator": "In", "values": ["bar"]}]}
case(
    "fits_a_node_selector",
    "multiple flavors, fits a node selector",
    [one_two()],
    [
        ps(
            "main",
            1,
            req={CPU: "1"},
            node_selector={"type": "two", "ignored1": "foo"},
            required_terms=[_ignored2],
        )
    ],
    [("main", 1, {CPU: "two"})],
)
case(
    "fits_with_node_affinity",
    "multiple flavors, fits with node affinity",
    [cq(CQ, rg(fq("one", res(CPU, "4"), res(MEM, "1Gi")), fq("two", res(CPU, "4"), res(MEM, "1Gi"))))],
    [
        ps(
            "main",
            1,
            req={CPU: "1", MEM: "1Mi"},
            node_selector={"ignored1": "foo"},
            required_terms=[{"matchExpressions": [{"key": "type", "operator": "In", "values": ["two"]}]}],
        )
    ],
    [("main", 1, {CPU: "two", MEM: "two"})],
)
case(
    "node_affinity_fits_any_flavor",
    "multiple flavors, node affinity fits any flavor",
    [one_two()],
    [
        ps(
            "main",
            1,
            req={CPU: "1"},
            required_terms=[
                _ignored2,
                {"matchExpressions": [{"key": "cpuType", "operator": "In", "values": ["two"]}]},
            ],
        )
    ],
    [("main", 1, {CPU: "one"})],
)
case(
    "selector_only_uses_flavor_own_label_keys",
    "multiple flavors with different label keys, selector only uses flavor's own keys",
    [cq(CQ, rg(fq("label-x-a", res(CPU, "4")), fq("label-xy-b", res(CPU, "4"))))],
    [ps("main", 1, req={CPU: "1"}, node_selector={"x": "a", "y": "g"})],
    [("main", 1, {CPU: "label-x-a"})],
)
case(
    "labelless_flavor_matches_labeled_selector",
    "labelless flavor in group with labeled flavor, workload uses labeled selector",
    [cq(CQ, rg(fq("default", res(CPU, "4")), fq("two", res(CPU, "4"))))],
    [ps("main", 1, req={CPU: "1"}, node_selector={"type": "two"})],
    [("main", 1, {CPU: "default"})],
)
case(
    "does_not_fit_node_affinity",
    "multiple flavors, doesn't fit node affinity",
    [one_two()],
    [
        ps(
            "main",
            1,
            req={CPU: "1"},
            required_terms=[{"matchExpressions": [{"key": "type", "operator": "In", "values": ["three"]}]}],
        )
    ],
    None,
)
case(
    "multiple_podsets_fit_different_flavors",
    "multiple specs, fit different flavors",
    [cq(CQ, rg(fq("one", res(CPU, "4")), fq("two", res(CPU, "10"))))],
    [ps("driver", 1, req={CPU: "5"}), ps("worker", 1, req={CPU: "3"})],
    [("driver", 1, {CPU: "two"}), ("worker", 1, {CPU: "one"})],
)
case(
    "multiple_podsets_fit_borrowing",
    "multiple specs, fits borrowing",
    [
        cq(CQ, rg(fq("default", res(CPU, "2", "98"), res(MEM, "2Gi"))), cohort="test-cohort"),
        cq(SECONDARY, rg(fq("default", res(CPU, "198"), res(MEM, "198Gi"))), cohort="test-cohort"),
    ],
    [ps("driver", 1, req={CPU: "4", MEM: "1Gi"}), ps("worker", 1, req={CPU: "6", MEM: "4Gi"})],
    [("driver", 1, {CPU: "default", MEM: "default"}), ("worker", 1, {CPU: "default", MEM: "default"})],
)
case(
    "not_enough_space_to_borrow",
    "not enough space to borrow",
    [
        cq(CQ, rg(fq("one", res(CPU, "1"))), cohort="test-cohort"),
        cq(SECONDARY, rg(fq("one", res(CPU, "10", "", "0"))), cohort="test-cohort"),
    ],
    [main_ps(cpu="2")],
    None,
    extra=[usage(SECONDARY, "one", cpu="9")],
    note=ADAPTED_USAGE,
)
case(
    "resource_not_listed_in_clusterqueue",
    "resource not listed in clusterQueue",
    [cq(CQ, rg(fq("one", res(CPU, "4"))))],
    [main_ps(example_com__gpu="2")],
    None,
)
case(
    "zero_request_for_resource_not_in_clusterqueue",
    "zero resource request not in clusterQueue should succeed",
    [cq(CQ, rg(fq("default", res(CPU, "4"))))],
    [main_ps(cpu="1", example_com__gpu="0")],
    [("main", 1, {CPU: "default"})],
)
case(
    "zero_request_for_resource_in_clusterqueue_gets_flavor",
    "zero resource request defined in clusterQueue should get flavor assigned",
    [cq(CQ, rg(fq("default", res(CPU, "4"), res(GPU, "4"))))],
    [main_ps(cpu="1", example_com__gpu="0")],
    [("main", 1, {CPU: "default", GPU: "default"})],
)
case(
    "number_of_pods_fits",
    "num pods fit",
    [cq(CQ, rg(fq("default", res(PODS, "3"), res(CPU, "10"))))],
    [ps("main", 3, req={CPU: "1"})],
    [("main", 3, {CPU: "default", PODS: "default"})],
)
case(
    "number_of_pods_does_not_fit",
    "num pods don't fit",
    [cq(CQ, rg(fq("default", res(PODS, "2"), res(CPU, "10"))))],
    [ps("main", 3, req={CPU: "1"})],
    None,
)


def _pods_cpu(flavor: str, cpu_nominal: str, bl: str = "", ll: str = "") -> dict[str, Any]:
    return fq(flavor, res(PODS, "10"), res(CPU, cpu_nominal, bl, ll))


_TRY = {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"}
case(
    "preempt_try_next_flavor",
    "preempt try next flavor",
    [cq(CQ, rg(_pods_cpu("one", "10"), _pods_cpu("two", "10")))],
    [main_ps(cpu="9")],
    [("main", 1, {CPU: "two", PODS: "two"})],
    extra=[usage(CQ, "one", cpu="2")],
    note=ADAPTED_USAGE,
)
for _slug, _go, _two_cpu, _fung, _want in (
    (
        "borrow_try_next_flavor_found_first",
        "borrow try next flavor, found the first flavor",
        "1",
        _TRY,
        "one",
    ),
    (
        "borrow_try_next_flavor_found_second",
        "borrow try next flavor, found the second flavor",
        "10",
        _TRY,
        "two",
    ),
    ("borrow_before_try_next_flavor", "borrow before try next flavor", "10", None, "one"),
):
    case(
        _slug,
        _go,
        [
            cq(
                CQ,
                rg(_pods_cpu("one", "10", bl="1"), _pods_cpu("two", _two_cpu)),
                cohort="test-cohort",
                fungibility=_fung,
            ),
            cq(SECONDARY, rg(fq("one", res(CPU, "1"))), cohort="test-cohort"),
        ],
        [main_ps(cpu="9")],
        [("main", 1, {CPU: _want, PODS: _want})],
        extra=[usage(CQ, "one", cpu="2")],
        note=ADAPTED_USAGE,
    )
case(
    "borrow_while_preemption_possible_try_next_flavor",
    "when borrowing while preemption is needed for flavor one; WhenCanBorrow=TryNextFlavor",
    [
        cq(
            CQ,
            rg(fq("one", res(CPU, "0", "12")), fq("two", res(CPU, "12"))),
            cohort="test-cohort",
            preemption={
                "reclaimWithinCohort": "LowerPriority",
                "borrowWithinCohort": {"policy": "LowerPriority"},
            },
            fungibility={"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "MayStopSearch"},
        ),
        cq(SECONDARY, rg(fq("one", res(CPU, "12"))), cohort="test-cohort"),
    ],
    [main_ps(cpu="12")],
    [("main", 1, {CPU: "two"})],
)
case(
    "borrowing_limit_exceeds_cohort_capacity",
    "when borrowing while preemption is needed, but borrowingLimit exceeds the quota available in the cohort",
    [
        cq(
            CQ,
            rg(fq("one", res(CPU, "0", "12"))),
            cohort="test-cohort",
            preemption={
                "reclaimWithinCohort": "LowerPriority",
                "borrowWithinCohort": {"policy": "LowerPriority"},
            },
        ),
        cq(SECONDARY, rg(fq("one", res(CPU, "11"))), cohort="test-cohort"),
    ],
    [main_ps(cpu="12")],
    None,
    extra=[usage(SECONDARY, "one", cpu="10")],
    note=ADAPTED_USAGE,
)
for _slug, _go, _two, _want in (
    (
        "lend_try_next_flavor_found_second",
        "lend try next flavor, found the second flavor",
        ("10", "0"),
        "two",
    ),
    ("lend_try_next_flavor_found_first", "lend try next flavor, found the first flavor", ("1", "0"), "one"),
):
    case(
        _slug,
        _go,
        [
            cq(
                CQ,
                rg(_pods_cpu("one", "10", ll="1"), _pods_cpu("two", _two[0], ll=_two[1])),
                cohort="test-cohort",
                fungibility=_TRY,
            ),
            cq(SECONDARY, rg(fq("one", res(CPU, "1"))), cohort="test-cohort"),
        ],
        [main_ps(cpu="9")],
        [("main", 1, {CPU: _want, PODS: _want})],
        extra=[usage(CQ, "one", cpu="2")],
        note=ADAPTED_USAGE,
    )


case(
    "cannot_preempt_in_cohort_tries_second_flavor",
    "cannot preempt in cohort (oracle returns None) for the first flavor, tries the second flavor (which fits)",
    [
        cq(
            CQ,
            rg(fq("one", res(CPU, "0", "2")), fq("two", res(CPU, "0", "2"))),
            cohort="test-cohort",
            preemption={
                "reclaimWithinCohort": "LowerPriority",
                "borrowWithinCohort": {"policy": "LowerPriority"},
            },
            fungibility={"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "MayStopSearch"},
        ),
        cq(SECONDARY, rg(fq("one", res(CPU, "2")), fq("two", res(CPU, "2"))), cohort="test-cohort"),
    ],
    [main_ps(cpu="2")],
    [("main", 1, {CPU: "two"})],
    extra=[usage(SECONDARY, "one", cpu="2")],
    note=ADAPTED_USAGE + " The oracle's NoCandidates for flavor one is what a real cycle finds: the secondary"
    " ClusterQueue is within its nominal quota, so nothing is reclaimable or borrowable.",
)
case(
    "fair_sharing_reclaim_never_tries_second_flavor",
    "when borrowing while preemption is needed for flavor one, fair sharing enabled, reclaimWithinCohort=Never",
    [
        cq(
            CQ,
            rg(fq("one", res(CPU, "0")), fq("two", res(CPU, "12"))),
            cohort="test-cohort",
            preemption={"reclaimWithinCohort": "Never"},
            fungibility={"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "MayStopSearch"},
        ),
        cq(SECONDARY, rg(fq("one", res(CPU, "12"))), cohort="test-cohort"),
    ],
    [main_ps(cpu="12")],
    [("main", 1, {CPU: "two"})],
    extra=[usage(SECONDARY, "one", cpu="10")],
    note=ADAPTED_USAGE + " enableFairSharing=true ⇒ a Kueue Configuration with fairSharing.enable.",
    fair_sharing=True,
)
case(
    "multi_podset_one_fits_other_does_not",
    "multi-podset, one fits and another fails, fitting podset attempts skipped in resolveNoFitReason",
    [one_two("2")],
    [
        ps("fitting-podset", 1, req={CPU: "1"}, node_selector={"type": "one"}),
        ps("blocking-podset", 1, req={CPU: "5"}),
    ],
    None,
    note="Queue placement derived (the unit test checks the assignment only): upstream wants"
    " fitting-podset on flavor one with TriedFlavorIdx 0, so LastAssignment.PendingFlavors() is true and"
    " pkg/cache/queue cluster_queue.go requeueIfNotPresent puts the NoFit workload back in the heap.",
    nofit_heap=True,
)

# TestReclaimBeforePriorityPreemption: flavors uno/due/tre, each 10 compute + 10 gpu in test-clusterqueue.
_OTHER = "other-clusterqueue"
_UDT = ("uno", "due", "tre")


def _reclaim_before_queues() -> list[dict[str, Any]]:
    return [
        cq(
            CQ,
            rg(*(fq(f, res("compute", "10"), res("gpu", "10")) for f in _UDT)),
            cohort="cohort",
            preemption={"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "LowerPriority"},
            fungibility={"whenCanPreempt": "TryNextFlavor"},
        ),
        cq(_OTHER, rg(*(fq(f, res("compute", "0"), res("gpu", "0")) for f in _UDT)), cohort="cohort"),
    ]


case(
    "reclaim_before_priority_select_first_flavor_which_fits",
    "Select first flavor which fits",
    _reclaim_before_queues(),
    [ps("main", 1, req={"gpu": "10"})],
    [("main", 1, {"gpu": "tre"})],
    extra=[rf(f) for f in _UDT] + [usage(CQ, "uno", gpu="1"), usage(_OTHER, "due", gpu="1")],
    note=ADAPTED_USAGE,
    function="TestReclaimBeforePriorityPreemption",
)

# TestHierarchical: cohorts three (root, 4 cpu of flavor three) > two (4 cpu of two) > one (4 cpu of one);
# test-clusterqueue in cohort one, other-clusterqueue in cohort two, both with 0 quota per flavor.
_OTT = ("one", "two", "three")


def _hierarchical_objects(test_flavors: list[dict[str, Any]], fungibility: dict[str, Any]) -> list[Any]:
    return [
        cohort("three", rg(fq("three", res(CPU, "4")))),
        cohort("two", rg(fq("two", res(CPU, "4"))), parent="three"),
        cohort("one", rg(fq("one", res(CPU, "4"))), parent="two"),
        cq(
            CQ,
            rg(*test_flavors),
            cohort="one",
            preemption={"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "LowerPriority"},
            fungibility=fungibility,
        ),
        cq(_OTHER, rg(*(fq(f, res(CPU, "0")) for f in _OTT)), cohort="two"),
    ]


_DEFAULT_TEST_FLAVORS = [fq(f, res(CPU, "0")) for f in _OTT]
case(
    "hierarchical_select_the_top_flavor",
    "Select the top flavor",
    _hierarchical_objects(_DEFAULT_TEST_FLAVORS, {"whenCanPreempt": "TryNextFlavor"}),
    [main_ps(cpu="4")],
    [("main", 1, {CPU: "three"})],
    extra=[rf("three"), usage(CQ, "one", cpu="4"), usage(_OTHER, "two", cpu="4")],
    note=ADAPTED_USAGE + " Flavors one/two carry the TestAssignFlavors labels (irrelevant: no selectors).",
    function="TestHierarchical",
)
case(
    "hierarchical_select_the_first_flavor_which_fits",
    "Select the first flavor which fits",
    _hierarchical_objects(_DEFAULT_TEST_FLAVORS, {"whenCanPreempt": "TryNextFlavor"}),
    [main_ps(cpu="4")],
    [("main", 1, {CPU: "two"})],
    extra=[rf("three"), usage(CQ, "one", cpu="4")],
    note=ADAPTED_USAGE + " Flavors one/two carry the TestAssignFlavors labels (irrelevant: no selectors).",
    function="TestHierarchical",
)
case(
    "hierarchical_deeper_borrowing_flavor_when_shallower_has_no_candidates",
    "Select deeper-borrowing flavor that fits when shallower-borrowing flavor has no preemption candidates",
    _hierarchical_objects(
        [fq("one", res(CPU, "4", "0")), fq("two", res(CPU, "0")), fq("three", res(CPU, "0"))],
        {
            "whenCanBorrow": "TryNextFlavor",
            "whenCanPreempt": "TryNextFlavor",
            "preference": "PreemptionOverBorrowing",
        },
    ),
    [main_ps(cpu="4")],
    [("main", 1, {CPU: "two"})],
    extra=[rf("three"), usage(CQ, "one", cpu="4")],
    note=ADAPTED_USAGE
    + " The oracle's NoCandidates for flavor one is what a real cycle finds: the only workload there"
    " has the preemptor's priority (0) and WithinClusterQueue is LowerPriority.",
    function="TestHierarchical",
)


def main() -> None:
    root = Path(__file__).resolve().parent / "scenarios"
    for sc in CASES:
        sc.write(root)
    print(f"wrote {len(CASES)} scenarios")


if __name__ == "__main__":
    main()
