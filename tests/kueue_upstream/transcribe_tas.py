"""Kueue's TAS scheduler cases, transcribed to `tas_scenarios/` (objects.yaml, expected.json, source.txt).

Upstream: kubernetes-sigs/kueue v0.19.2 `pkg/scheduler/scheduler_tas_test.go` (`TestScheduleForTAS`),
its fixtures `defaultSingleNode`, `defaultNodes` (b1: r1{x1}, r2{x2,x3,x4}; b2: r1{x5}, r2{x6}),
`nodesWithZeroCapacityInstance`, and the topologies `tas-single-level` (hostname),
`tas-two-level` (rack, hostname), `tas-three-level` (block, rack, hostname). Each upstream case
keeps its objects and Kueue's expected admission (`wantNewAssignments`, topologyAssignment
included), its inadmissible set and, for pending ones, the message of Kueue's event. Cases named
`hand_*` are gpuplane's own on the same fixtures, their expected placement worked out by hand from
the algorithm (`tas_flavor_snapshot.go`), step by step in `source.txt`.

Run `python tests/kueue_upstream/transcribe_tas.py` to rewrite the directory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

API = "kueue.x-k8s.io/v1beta1"
HOST = "kubernetes.io/hostname"
RACK = "cloud.provider.com/rack"
BLOCK = "cloud.com/topology-block"
UPSTREAM = "kubernetes-sigs/kueue pkg/scheduler/scheduler_tas_test.go"
COMMIT = "v0.19.2"
OUT = Path(__file__).resolve().parent / "tas_scenarios"


def node(
    name: str,
    labels: dict[str, str],
    cpu: str,
    pods: str = "10",
    memory: str | None = None,
    ready: bool = True,
    taints: list[dict[str, str]] | None = None,
    extra: dict[str, str] | None = None,
) -> dict[str, Any]:
    alloc = {"cpu": cpu, "pods": pods, **(extra or {})}
    if memory:
        alloc["memory"] = memory
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": spec,
        "status": {
            "allocatable": alloc,
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


def topology(name: str, *levels: str) -> dict[str, Any]:
    return {
        "apiVersion": API,
        "kind": "Topology",
        "metadata": {"name": name},
        "spec": {"levels": [{"nodeLabel": lv} for lv in levels]},
    }


def flavor(
    name: str, topo: str | None = None, tolerations: list[dict[str, str]] | None = None
) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if topo:
        spec["nodeLabels"] = {"tas-node": "true"}
        spec["topologyName"] = topo
    if tolerations:
        spec["tolerations"] = tolerations
    return {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


def cq(*flavors: tuple[str, dict[str, str]]) -> dict[str, Any]:
    covered = sorted({r for _, res in flavors for r in res})
    return {
        "apiVersion": API,
        "kind": "ClusterQueue",
        "metadata": {"name": "tas-main"},
        "spec": {
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": covered,
                    "flavors": [
                        {
                            "name": f,
                            "resources": [{"name": r, "nominalQuota": q} for r, q in sorted(res.items())],
                        }
                        for f, res in flavors
                    ],
                }
            ],
        },
    }


LQ = {
    "apiVersion": API,
    "kind": "LocalQueue",
    "metadata": {"name": "tas-main", "namespace": "default"},
    "spec": {"clusterQueue": "tas-main"},
}


def podset(
    name: str,
    count: int,
    requests: dict[str, str],
    required: str | None = None,
    preferred: str | None = None,
    unconstrained: bool = False,
    affinity: tuple[str, str] | None = None,
    slice_level: str | None = None,
    slice_size: int | None = None,
) -> dict[str, Any]:
    tr: dict[str, Any] = {}
    if required:
        tr["required"] = required
    if preferred:
        tr["preferred"] = preferred
    if unconstrained:
        tr["unconstrained"] = True
    if slice_level:
        tr["podSetSliceRequiredTopology"] = slice_level
        tr["podSetSliceSize"] = slice_size
    spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": requests}}]}
    if affinity:
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": affinity[0], "operator": "In", "values": [affinity[1]]}
                            ]
                        }
                    ]
                }
            }
        }
    out: dict[str, Any] = {"name": name, "count": count, "template": {"spec": spec}}
    if tr:
        out["topologyRequest"] = tr
    return out


def workload(
    name: str, *podsets: dict[str, Any], admitted: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": API,
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"queueName": "tas-main", "podSets": list(podsets)},
    }
    if admitted is not None:
        obj["status"] = {
            "admission": {"clusterQueue": "tas-main", "podSetAssignments": admitted},
            "conditions": [
                {"type": "QuotaReserved", "status": "True", "lastTransitionTime": "2025-01-01T00:00:00Z"},
                {"type": "Admitted", "status": "True", "lastTransitionTime": "2025-01-01T00:00:00Z"},
            ],
        }
    return obj


def ta(*domains: tuple[str, int], levels: tuple[str, ...] = (HOST,)) -> dict[str, Any]:
    return {"levels": list(levels), "domains": [{"values": [v], "count": c} for v, c in domains]}


def psa(
    name: str,
    count: int,
    flavors: dict[str, str],
    topo: dict[str, Any] | None = None,
    usage: dict[str, str] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "count": count, "flavors": flavors}
    if usage:
        out["resourceUsage"] = usage
    if topo:
        out["topologyAssignment"] = topo
    return out


SINGLE = [node("x1", {"tas-node": "true", HOST: "x1"}, "1", memory="1Gi")]


def default_nodes() -> list[dict[str, Any]]:
    spec = [
        ("b1-r1-x1", "b1", "r1", "x1", "1", "10"),
        ("b1-r2-x2", "b1", "r2", "x2", "1", "10"),
        ("b1-r2-x3", "b1", "r2", "x3", "1", "10"),
        ("b1-r2-x4", "b1", "r2", "x4", "1", "10"),
        ("b2-r2-x5", "b2", "r1", "x5", "1", "10"),
        ("b2-r2-x6", "b2", "r2", "x6", "2", "40"),
    ]
    return [
        node(
            n,
            {"tas-node": "true", BLOCK: b, RACK: r, HOST: h},
            cpu,
            pods,
            memory="4Gi" if h == "x6" else "1Gi",
        )
        for n, b, r, h, cpu, pods in spec
    ]


ZERO = [
    node("x1", {"tas-node": "true", HOST: "x1", RACK: "r1"}, "0"),
    node("x2", {"tas-node": "true", HOST: "x2", RACK: "r1"}, "1"),
    node("x3", {"tas-node": "true", HOST: "x3", RACK: "r1"}, "1"),
]
T1 = topology("tas-single-level", HOST)
T2 = topology("tas-two-level", RACK, HOST)
T3 = topology("tas-three-level", BLOCK, RACK, HOST)
CQ = cq(("tas-default", {"cpu": "50", "memory": "50Gi"}))
CPU1 = {"cpu": "1"}
TASF = {"cpu": "tas-default"}


def admitted(name: str, count: int, flavors: dict[str, str], topo: dict[str, Any]) -> dict[str, Any]:
    return {
        "workload": f"default/{name}",
        "clusterQueue": "tas-main",
        "podSets": [{"name": "one", "count": count, "flavors": flavors, "topologyAssignment": topo}],
    }


def pending(name: str, message: str | None, queue: str = "inadmissible") -> dict[str, Any]:
    return {"workload": f"default/{name}", "clusterQueue": "tas-main", "queue": queue, "message": message}


CASES: list[dict[str, Any]] = [
    {
        "id": "required_gets_scheduled",
        "case": "workload required TAS gets scheduled",
        "objects": [
            *SINGLE,
            T1,
            flavor("tas-default", "tas-single-level"),
            CQ,
            workload("foo", podset("one", 1, CPU1, required=HOST)),
        ],
        "admitted": [admitted("foo", 1, TASF, ta(("x1", 1)))],
    },
    {
        "id": "level_not_in_topology",
        "case": "workload requests topology level which is not present in topology",
        "objects": [
            *SINGLE,
            T1,
            flavor("tas-default", "tas-single-level"),
            CQ,
            workload("foo", podset("one", 1, CPU1, required="cloud.com/non-existing")),
        ],
        "pending": [
            pending(
                "foo",
                'couldn\'t assign flavors to pod set one: Flavor "tas-default" does not contain the requested level',
            )
        ],
    },
    {
        "id": "does_not_fit_node_capacity",
        "case": "workload does not get scheduled as it does not fit within the node capacity",
        "objects": [
            *SINGLE,
            T1,
            flavor("tas-default", "tas-single-level"),
            CQ,
            workload("foo", podset("one", 2, CPU1, required=HOST)),
        ],
        "pending": [
            pending(
                "foo",
                'couldn\'t assign flavors to pod set one: topology "tas-single-level" allows to fit only 1 out of 2 pod(s)',
            )
        ],
    },
    {
        "id": "node_used_by_tas_workload",
        "case": "workload does not get scheduled as the node capacity is already used by another TAS workload",
        "objects": [
            *SINGLE,
            T1,
            flavor("tas-default", "tas-single-level"),
            CQ,
            workload("foo", podset("one", 1, CPU1, required=HOST)),
            workload(
                "bar-admitted",
                podset("one", 1, CPU1, required=HOST),
                admitted=[psa("one", 1, TASF, ta(("x1", 1)), {"cpu": "1"})],
            ),
        ],
        "pending": [
            pending(
                "foo",
                'couldn\'t assign flavors to pod set one: topology "tas-single-level" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1',
            )
        ],
    },
    {
        "id": "node_used_by_non_tas_pod",
        "case": "workload does not get scheduled as the node capacity is already used by a non-TAS pod",
        "objects": [
            *SINGLE,
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "test-pending", "namespace": "test-ns"},
                "spec": {
                    "nodeName": "x1",
                    "containers": [{"name": "c", "resources": {"requests": {"cpu": "600m"}}}],
                },
                "status": {"phase": "Pending"},
            },
            T1,
            flavor("tas-default", "tas-single-level"),
            CQ,
            workload("foo", podset("one", 1, CPU1, required=HOST)),
        ],
        "pending": [
            pending(
                "foo",
                'couldn\'t assign flavors to pod set one: topology "tas-single-level" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1',
            )
        ],
    },
    {
        "id": "admitted_next_to_admitted",
        "case": "workload gets admitted next to already admitted workload, multiple resources used",
        "objects": [
            *SINGLE,
            T1,
            flavor("tas-default", "tas-single-level"),
            CQ,
            workload("foo", podset("one", 1, {"cpu": "500m", "memory": "500Mi"}, required=HOST)),
            workload(
                "bar-admitted",
                podset("one", 1, {"cpu": "500m", "memory": "500Mi"}, required=HOST),
                admitted=[
                    psa(
                        "one",
                        1,
                        {"cpu": "tas-default", "memory": "tas-default"},
                        ta(("x1", 1)),
                        {"cpu": "500m", "memory": "500Mi"},
                    )
                ],
            ),
        ],
        "admitted": [admitted("foo", 1, {"cpu": "tas-default", "memory": "tas-default"}, ta(("x1", 1)))],
    },
    {
        "id": "two_podsets_worker_does_not_fit",
        "case": "workload with multiple PodSets requesting the same TAS flavor; multiple levels",
        "objects": [
            node("x1", {"tas-node": "true", RACK: "r1", HOST: "x1"}, "3"),
            node("y1", {"tas-node": "true", RACK: "r1", HOST: "y1"}, "3"),
            T2,
            flavor("tas-default", "tas-two-level"),
            cq(("tas-default", {"cpu": "50"})),
            workload(
                "foo",
                podset("launcher", 1, CPU1, preferred=HOST),
                podset("worker", 1, {"cpu": "7"}, preferred=HOST),
            ),
        ],
        "pending": [
            pending(
                "foo",
                'couldn\'t assign flavors to pod set worker: topology "tas-two-level" doesn\'t allow to fit any of 1 pod(s). Total nodes: 2; excluded: resource "cpu": 2',
            )
        ],
    },
    {
        "id": "two_podsets_succeed",
        "case": "scheduling workload with multiple PodSets requesting TAS flavor and will succeed",
        "objects": [
            node("x1", {"tas-node": "true", RACK: "r1", HOST: "x1"}, "8"),
            node("y1", {"tas-node": "true", RACK: "r1", HOST: "y1"}, "8"),
            T2,
            flavor("tas-default", "tas-two-level"),
            cq(("tas-default", {"cpu": "16"})),
            workload(
                "foo", podset("launcher", 1, CPU1, required=HOST), podset("worker", 15, CPU1, preferred=HOST)
            ),
        ],
        "admitted": [
            {
                "workload": "default/foo",
                "clusterQueue": "tas-main",
                "podSets": [
                    {"name": "launcher", "count": 1, "flavors": TASF, "topologyAssignment": ta(("x1", 1))},
                    {
                        "name": "worker",
                        "count": 15,
                        "flavors": TASF,
                        "topologyAssignment": ta(("x1", 7), ("y1", 8)),
                    },
                ],
            }
        ],
    },
    {
        "id": "two_podsets_required_rack",
        "case": "scheduling workload with multiple PodSets requesting higher level topology",
        "objects": [
            node("x1", {"tas-node": "true", RACK: "r1", HOST: "x1"}, "8"),
            node("y1", {"tas-node": "true", RACK: "r1", HOST: "y1"}, "8"),
            T2,
            flavor("tas-default", "tas-two-level"),
            cq(("tas-default", {"cpu": "16"})),
            workload(
                "foo", podset("launcher", 1, CPU1, required=RACK), podset("worker", 15, CPU1, required=RACK)
            ),
        ],
        "admitted": [
            {
                "workload": "default/foo",
                "clusterQueue": "tas-main",
                "podSets": [
                    {"name": "launcher", "count": 1, "flavors": TASF, "topologyAssignment": ta(("x1", 1))},
                    {
                        "name": "worker",
                        "count": 15,
                        "flavors": TASF,
                        "topologyAssignment": ta(("x1", 7), ("y1", 8)),
                    },
                ],
            }
        ],
    },
    {
        "id": "node_of_admitted_deleted",
        "case": "scheduling workload when the node for another admitted workload is deleted",
        "objects": [
            node("y1", {"tas-node": "true", HOST: "y1"}, "1"),
            T1,
            flavor("tas-default", "tas-single-level"),
            cq(("tas-default", {"cpu": "50"})),
            workload("foo", podset("one", 1, CPU1, preferred=HOST)),
            workload(
                "bar-admitted",
                podset("one", 1, CPU1, required=HOST),
                admitted=[psa("one", 1, TASF, ta(("x1", 1)), {"cpu": "1"})],
            ),
        ],
        "admitted": [admitted("foo", 1, TASF, ta(("y1", 1)))],
    },
    {
        "id": "tainted_node_toleration_on_flavor",
        "case": "scheduling workload on a tainted node when the toleration is on ResourceFlavor",
        "objects": [
            node(
                "x1",
                {"tas-node": "true", HOST: "x1"},
                "1",
                taints=[{"key": "example.com/gpu", "value": "present", "effect": "NoSchedule"}],
            ),
            T1,
            flavor("tas-default", "tas-single-level", [{"key": "example.com/gpu", "operator": "Exists"}]),
            cq(("tas-default", {"cpu": "50"})),
            workload("foo", podset("one", 1, CPU1, preferred=HOST)),
        ],
        "admitted": [admitted("foo", 1, TASF, ta(("x1", 1)))],
    },
    {
        "id": "implied_only_tas_flavor",
        "case": "workload which does not specify TAS annotation uses the only TAS flavor",
        "objects": [
            *SINGLE,
            T1,
            flavor("tas-default", "tas-single-level"),
            flavor("default"),
            cq(("tas-default", {"cpu": "50"})),
            workload("foo", podset("one", 1, CPU1)),
        ],
        "admitted": [admitted("foo", 1, TASF, ta(("x1", 1)))],
    },
    {
        "id": "requiring_tas_skips_non_tas_flavor",
        "case": "workload requiring TAS skips the non-TAS flavor",
        "objects": [
            *SINGLE,
            T1,
            flavor("tas-default", "tas-single-level"),
            flavor("default"),
            cq(("default", {"cpu": "50"}), ("tas-default", {"cpu": "50"})),
            workload("foo", podset("one", 1, CPU1, required=HOST)),
        ],
        "admitted": [admitted("foo", 1, TASF, ta(("x1", 1)))],
    },
    {
        "id": "non_tas_skips_tas_flavor",
        "case": "workload which does not need TAS skips the TAS flavor",
        "objects": [
            *SINGLE,
            T1,
            flavor("tas-default", "tas-single-level"),
            flavor("default"),
            cq(("tas-default", {"cpu": "50"}), ("default", {"cpu": "50"})),
            workload("foo", podset("one", 1, CPU1)),
        ],
        "admitted": [
            {
                "workload": "default/foo",
                "clusterQueue": "tas-main",
                "podSets": [{"name": "one", "count": 1, "flavors": {"cpu": "default"}}],
            }
        ],
    },
    {
        "id": "mixed_podsets",
        "case": "workload with mixed PodSets (requiring TAS and not)",
        "objects": [
            *SINGLE,
            T1,
            flavor("tas-default", "tas-single-level"),
            flavor("default"),
            cq(("tas-default", {"cpu": "50"}), ("default", {"cpu": "50"})),
            workload(
                "foo",
                podset("launcher", 1, {"cpu": "500m"}),
                podset("worker", 1, {"cpu": "500m"}, required=HOST),
            ),
        ],
        "admitted": [
            {
                "workload": "default/foo",
                "clusterQueue": "tas-main",
                "podSets": [
                    {"name": "launcher", "count": 1, "flavors": {"cpu": "default"}},
                    {"name": "worker", "count": 1, "flavors": TASF, "topologyAssignment": ta(("x1", 1))},
                ],
            }
        ],
    },
    {
        "id": "affinity_not_matched",
        "case": "does not admit workload when node does not match required affinity",
        "objects": [
            *SINGLE,
            T1,
            flavor("tas-default", "tas-single-level"),
            CQ,
            workload("foo", podset("one", 1, CPU1, preferred=HOST, affinity=("unused-key", "value"))),
        ],
        "pending": [
            pending(
                "foo",
                "couldn't assign flavors to pod set one: topology \"tas-single-level\" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: affinity: 1",
            )
        ],
    },
    {
        "id": "affinity_matched",
        "case": "admits workload when node matches required affinity",
        "objects": [
            node(
                "x1", {"tas-node": "true", HOST: "x1", "expected-label": "expected-value"}, "1", memory="1Gi"
            ),
            T1,
            flavor("tas-default", "tas-single-level"),
            CQ,
            workload(
                "foo", podset("one", 1, CPU1, preferred=HOST, affinity=("expected-label", "expected-value"))
            ),
        ],
        "admitted": [admitted("foo", 1, TASF, ta(("x1", 1)))],
    },
]
for mode in ("unconstrained", "preferred", "required"):
    kw: dict[str, Any] = {"unconstrained": True} if mode == "unconstrained" else {mode: RACK}
    CASES.append(
        {
            "id": f"partially_empty_{mode}",
            "case": f"admits workload when nodes are partially empty; {mode}",
            "objects": [
                *ZERO,
                T2,
                flavor("tas-default", "tas-two-level"),
                CQ,
                workload("foo", podset("one", 2, CPU1, **kw)),
            ],
            "admitted": [admitted("foo", 2, TASF, ta(("x2", 1), ("x3", 1)))],
        }
    )

FIVE = {"cpu": "5", "memory": "5Gi"}
CQP = dict(cq(("tas-default", {"cpu": "50", "memory": "50Gi"})))
CQP["spec"] = {**CQP["spec"], "preemption": {"withinClusterQueue": "LowerPriority"}}
PRE = "TestScheduleForTASPreemption"


def prio(obj: dict[str, Any], value: int) -> dict[str, Any]:
    obj["spec"]["priority"] = value
    return obj


CASES += [
    {
        "id": "preempt_only_low_priority",
        "case": "only low priority workload is preempted",
        "function": PRE,
        "objects": [
            node("x1", {"tas-node": "true", HOST: "x1"}, "5", memory="5Gi"),
            T1,
            flavor("tas-default", "tas-single-level"),
            CQP,
            prio(workload("foo", podset("one", 1, {"cpu": "2"}, preferred=HOST)), 3),
            prio(
                workload(
                    "low-priority-admitted",
                    podset("one", 1, {"cpu": "5"}, required=HOST),
                    admitted=[psa("one", 1, TASF, ta(("x1", 1)), {"cpu": "5"})],
                ),
                1,
            ),
        ],
        "preempted": [
            {
                "workload": "default/low-priority-admitted",
                "preemptor": "default/foo",
                "reason": "InClusterQueue",
            }
        ],
        "pending": [pending("foo", None, "heap")],
    },
    {
        "id": "preempt_fragmented",
        "case": "low priority workload is preempted even though there is enough capacity, but fragmented",
        "function": PRE,
        "objects": [
            node("x1", {"tas-node": "true", HOST: "x1"}, "5", memory="5Gi"),
            node("y1", {"tas-node": "true", HOST: "y1"}, "5", memory="5Gi"),
            T1,
            flavor("tas-default", "tas-single-level"),
            CQP,
            prio(workload("foo", podset("one", 2, CPU1, required=HOST)), 3),
            prio(
                workload(
                    "mid-priority-admitted",
                    podset("one", 1, {"cpu": "4"}, required=HOST),
                    admitted=[psa("one", 1, TASF, ta(("x1", 1)), {"cpu": "4"})],
                ),
                2,
            ),
            prio(
                workload(
                    "low-priority-admitted",
                    podset("one", 1, {"cpu": "4"}, required=HOST),
                    admitted=[psa("one", 1, TASF, ta(("y1", 1)), {"cpu": "4"})],
                ),
                1,
            ),
        ],
        "preempted": [
            {
                "workload": "default/low-priority-admitted",
                "preemptor": "default/foo",
                "reason": "InClusterQueue",
            }
        ],
        "pending": [pending("foo", None, "heap")],
    },
    {
        "id": "preempt_equal_priority_waits",
        "case": "workload with equal priority awaits for other workloads to complete",
        "function": PRE,
        "objects": [
            node("x1", {"tas-node": "true", HOST: "x1"}, "5", memory="5Gi"),
            T1,
            flavor("tas-default", "tas-single-level"),
            CQP,
            prio(workload("low-priority-which-would-fit", podset("one", 1, CPU1, required=HOST)), 1),
            prio(workload("mid-priority-waiting", podset("one", 2, CPU1, required=HOST)), 2),
            prio(
                workload(
                    "mid-priority-admitted",
                    podset("one", 1, {"cpu": "4"}, required=HOST),
                    admitted=[psa("one", 1, TASF, ta(("x1", 1)), {"cpu": "4"})],
                ),
                2,
            ),
        ],
        "pending": [
            pending("low-priority-which-would-fit", None, "heap"),
            pending(
                "mid-priority-waiting",
                'couldn\'t assign flavors to pod set one: topology "tas-single-level" allows to fit only 1 out of 2 pod(s)',
            ),
        ],
    },
]

HAND = "gpuplane hand-derived on the upstream defaultNodes fixture"
TREE = [*default_nodes(), T3, flavor("tas-default", "tas-three-level"), CQ]
CASES += [
    {
        "id": "hand_bestfit_block",
        "source": HAND,
        "objects": [*TREE, workload("foo", podset("one", 3, CPU1, required=BLOCK))],
        "steps": "blocks hold b1=4, b2=3 pods; BestFit takes the smallest block that holds 3: b2; its racks r2(x6: 2) then r1(x5: 1)",
        "admitted": [admitted("foo", 3, TASF, ta(("x5", 1), ("x6", 2)))],
    },
    {
        "id": "hand_bestfit_rack",
        "source": HAND,
        "objects": [*TREE, workload("foo", podset("one", 2, CPU1, required=RACK))],
        "steps": "racks hold b1/r1=1, b1/r2=3, b2/r1=1, b2/r2=2; BestFit: the smallest rack that holds 2 is b2/r2 (x6 holds 2)",
        "admitted": [admitted("foo", 2, TASF, ta(("x6", 2)))],
    },
    {
        "id": "hand_preferred_climbs_then_spreads",
        "source": HAND,
        "objects": [*TREE, workload("foo", podset("one", 5, CPU1, preferred=RACK))],
        "steps": "no rack (max 3) nor block (max 4) holds 5: at the top b1 (4) then b2 (1); going down the racks of both blocks "
        "in one sorted list: b1/r2 gives 3, then BestFit b2/r2 the last 2; hosts x2, x3, x4 one each, x6 two",
        "admitted": [admitted("foo", 5, TASF, ta(("x2", 1), ("x3", 1), ("x4", 1), ("x6", 2)))],
    },
    {
        "id": "hand_unconstrained_least_free",
        "source": HAND,
        "objects": [*TREE, workload("foo", podset("one", 3, CPU1, unconstrained=True))],
        "steps": "unconstrained: LeastFreeCapacity over hosts sorted by free pods ascending, then values: x1, x2, x3 (1 each)",
        "admitted": [admitted("foo", 3, TASF, ta(("x1", 1), ("x2", 1), ("x3", 1)))],
    },
    {
        "id": "hand_required_rack_too_big",
        "source": HAND,
        "objects": [*TREE, workload("foo", podset("one", 4, CPU1, required=RACK))],
        "steps": "the largest rack (b1/r2) holds 3 of 4 pods; required, so Kueue's message with 3 out of 4",
        "pending": [
            pending(
                "foo",
                'couldn\'t assign flavors to pod set one: topology "tas-three-level" allows to fit only 3 out of 4 pod(s)',
            )
        ],
    },
    {
        "id": "hand_slices_in_racks",
        "source": HAND,
        "objects": [
            *TREE,
            workload("foo", podset("one", 4, CPU1, preferred=BLOCK, slice_level=RACK, slice_size=2)),
        ],
        "steps": "slices of 2 per rack: b1/r2 holds 1, b2/r2 holds 1, so each block 1 slice and no block holds 2; "
        "spread over b2 (3 pods, sorted first) and b1; racks in one list: b2/r2 then b1/r2 a slice each; "
        "hosts: x6 2, x2 and x3 one each",
        "admitted": [admitted("foo", 4, TASF, ta(("x2", 1), ("x3", 1), ("x6", 2)))],
    },
    {
        "id": "hand_excluded_nodes",
        "source": HAND,
        "objects": [
            node("x1", {"tas-node": "true", HOST: "x1"}, "4", ready=False),
            node(
                "x2",
                {"tas-node": "true", HOST: "x2"},
                "4",
                taints=[{"key": "example.com/gpu", "value": "present", "effect": "NoSchedule"}],
            ),
            node("x3", {"tas-node": "true", HOST: "x3"}, "1"),
            node("x4", {"tas-node": "true"}, "4"),
            T1,
            flavor("tas-default", "tas-single-level"),
            CQ,
            workload("foo", podset("one", 2, CPU1, required=HOST)),
        ],
        "steps": "x1 NotReady and x4 without the hostname label are not in the topology (not counted); x2's taint is not "
        "tolerated; x3 holds 1 of 2",
        "pending": [
            pending(
                "foo",
                'couldn\'t assign flavors to pod set one: topology "tas-single-level" allows to fit only 1 out of 2 pod(s). Total nodes: 2; excluded: taint "example.com/gpu=present:NoSchedule": 1',
            )
        ],
    },
]


CASES.append(
    {
        "id": "hand_preempt_frees_the_right_node",
        "source": "gpuplane hand-derived on the TestScheduleForTASPreemption fixtures",
        "steps": "x1 (5 cpu) holds high (priority 20, 4 cpu) and low-a (priority 1, 1 cpu); y1 (5 cpu) holds low-b "
        "(priority 2, 4 cpu); foo (priority 10) needs 2 x 1 cpu on one host. Candidates in Kueue's order: "
        "low-a, low-b. Without low-a x1 has 1 free: no host holds 2; without low-b too y1 has 5: fits; "
        "filling back, low-a can stay (y1 still holds 2). Victim: low-b only (quota alone would pick low-a).",
        "objects": [
            node("x1", {"tas-node": "true", HOST: "x1"}, "5", memory="5Gi"),
            node("y1", {"tas-node": "true", HOST: "y1"}, "5", memory="5Gi"),
            T1,
            flavor("tas-default", "tas-single-level"),
            CQP,
            prio(workload("foo", podset("one", 2, CPU1, required=HOST)), 10),
            prio(
                workload(
                    "high",
                    podset("one", 1, {"cpu": "4"}, required=HOST),
                    admitted=[psa("one", 1, TASF, ta(("x1", 1)), {"cpu": "4"})],
                ),
                20,
            ),
            prio(
                workload(
                    "low-a",
                    podset("one", 1, CPU1, required=HOST),
                    admitted=[psa("one", 1, TASF, ta(("x1", 1)), {"cpu": "1"})],
                ),
                1,
            ),
            prio(
                workload(
                    "low-b",
                    podset("one", 1, {"cpu": "4"}, required=HOST),
                    admitted=[psa("one", 1, TASF, ta(("y1", 1)), {"cpu": "4"})],
                ),
                2,
            ),
        ],
        "preempted": [{"workload": "default/low-b", "preemptor": "default/foo", "reason": "InClusterQueue"}],
        "pending": [pending("foo", None, "heap")],
    }
)


GROUP = {"podSetGroupName": "sameGroup"}
CACHE = "kubernetes-sigs/kueue pkg/cache/scheduler/tas_cache_test.go"


def grouped(name: str, count: int, requests: dict[str, str], **kw: Any) -> dict[str, Any]:
    ps = podset(name, count, requests, **kw)
    ps["topologyRequest"] = {**ps.get("topologyRequest", {}), **GROUP}
    return ps


H3 = [
    node("h1", {"tas-node": "true", RACK: "r1", HOST: "h1"}, "2"),
    node("h2", {"tas-node": "true", RACK: "r1", HOST: "h2"}, "4"),
    node("h3", {"tas-node": "true", RACK: "r1", HOST: "h3"}, "3"),
]
CQ2 = cq(("tas-default", {"cpu": "50"}))
CASES += [
    {
        "id": "group_leader_and_workers_same_block",
        "case": "find topology assignment for two podsets with the same group",
        "function": "TestFindTopologyAssignments",
        "file": CACHE,
        "objects": [
            node("b1", {"tas-node": "true", BLOCK: "b1"}, "2", memory="2Gi", extra={"example.com/gpu": "2"}),
            node("b2", {"tas-node": "true", BLOCK: "b2"}, "5", extra={"example.com/gpu": "4"}),
            node("b3", {"tas-node": "true", BLOCK: "b3"}, "2", extra={"example.com/gpu": "2"}),
            topology("tas-block", BLOCK),
            flavor("tas-default", "tas-block"),
            cq(("tas-default", {"cpu": "50", "example.com/gpu": "50"})),
            workload(
                "foo",
                grouped("leader", 1, {"cpu": "1"}, required=BLOCK),
                grouped("workers", 4, {"cpu": "1", "example.com/gpu": "1"}, required=BLOCK),
            ),
        ],
        "admitted": [
            {
                "workload": "default/foo",
                "clusterQueue": "tas-main",
                "podSets": [
                    {
                        "name": "leader",
                        "count": 1,
                        "flavors": TASF,
                        "topologyAssignment": ta(("b2", 1), levels=(BLOCK,)),
                    },
                    {
                        "name": "workers",
                        "count": 4,
                        "flavors": {"cpu": "tas-default", "example.com/gpu": "tas-default"},
                        "topologyAssignment": ta(("b2", 4), levels=(BLOCK,)),
                    },
                ],
            }
        ],
    },
    {
        "id": "group_leader_keeps_worker_capacity",
        "case": "find topology assignment for grouped podsets preserves worker capacity when placing leader",
        "function": "TestFindTopologyAssignments",
        "file": CACHE,
        "objects": [
            *H3,
            T2,
            flavor("tas-default", "tas-two-level"),
            CQ2,
            workload(
                "foo",
                grouped("leader", 1, {"cpu": "1"}, required=RACK),
                grouped("workers", 4, {"cpu": "2"}, required=RACK),
            ),
        ],
        "admitted": [
            {
                "workload": "default/foo",
                "clusterQueue": "tas-main",
                "podSets": [
                    {"name": "leader", "count": 1, "flavors": TASF, "topologyAssignment": ta(("h3", 1))},
                    {
                        "name": "workers",
                        "count": 4,
                        "flavors": TASF,
                        "topologyAssignment": ta(("h1", 1), ("h2", 2), ("h3", 1)),
                    },
                ],
            }
        ],
    },
    {
        "id": "group_sliced_leader_keeps_worker_capacity",
        "case": "find topology assignment for sliced grouped podsets preserves worker capacity when placing leader",
        "function": "TestFindTopologyAssignments",
        "file": CACHE,
        "objects": [
            *H3,
            T2,
            flavor("tas-default", "tas-two-level"),
            CQ2,
            workload(
                "foo",
                grouped("leader", 1, {"cpu": "1"}, required=RACK),
                grouped("workers", 8, {"cpu": "1"}, required=RACK, slice_level=HOST, slice_size=2),
            ),
        ],
        "admitted": [
            {
                "workload": "default/foo",
                "clusterQueue": "tas-main",
                "podSets": [
                    {"name": "leader", "count": 1, "flavors": TASF, "topologyAssignment": ta(("h3", 1))},
                    {
                        "name": "workers",
                        "count": 8,
                        "flavors": TASF,
                        "topologyAssignment": ta(("h1", 2), ("h2", 4), ("h3", 2)),
                    },
                ],
            }
        ],
    },
]


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for c in CASES:
        d = OUT / c["id"]
        d.mkdir(exist_ok=True)
        (d / "objects.yaml").write_text(
            yaml.safe_dump_all([*c["objects"], LQ], sort_keys=False), encoding="utf-8"
        )
        expected = {
            "cycles": [
                {
                    "admitted": c.get("admitted", []),
                    "preempted": c.get("preempted", []),
                    "pending": c.get("pending", []),
                }
            ]
        }
        (d / "expected.json").write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")
        if "case" in c:
            src = (
                f"{c.get('file', UPSTREAM)}\nfunction: {c.get('function', 'TestScheduleForTAS')}\n"
                f"case: {c['case']}\ncommit: {COMMIT}\n"
            )
        else:
            src = f"{c['source']}\nsteps: {c['steps']}\ncase: {c['id']}\ncommit: {COMMIT}\n"
        (d / "source.txt").write_text(src, encoding="utf-8")


if __name__ == "__main__":
    main()
