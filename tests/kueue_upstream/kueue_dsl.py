"""A tiny mirror of Kueue's Go test wrappers (`pkg/util/testing/wrappers.go`) that writes YAML.

Used by `transcribe_*.py` to turn upstream unit-test cases into scenario directories
(`objects.yaml`, `expected.json`, `source.txt`). Each helper keeps the Go wrapper's defaults:
`MakeClusterQueue` = namespaceSelector `{}`, BestEffortFIFO, no preemption; `MakeWorkload` = one
podset "main" of count 1, priority 0 and zero creation time (written as no creationTimestamp);
`MakeAdmission(cq)` = podset "main", count 1.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

API = "kueue.x-k8s.io/v1beta1"
BASE = datetime(2025, 1, 1, tzinfo=UTC)  # stands for the Go test's `now`


def ts(seconds: float) -> str:
    """RFC 3339 time `seconds` after the test's `now`."""
    return (BASE + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def rf(
    name: str,
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    tolerations: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    """ResourceFlavor."""
    spec: dict[str, Any] = {}
    if labels:
        spec["nodeLabels"] = labels
    if taints:
        spec["nodeTaints"] = taints
    if tolerations:
        spec["tolerations"] = tolerations
    return {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


def res(name: str, nominal: str, bl: str | None = None, ll: str | None = None) -> dict[str, Any]:
    """`Resource(name, nominal, borrowingLimit, lendingLimit)`; "" means unset as in Go."""
    out: dict[str, Any] = {"name": name, "nominalQuota": nominal}
    if bl not in (None, ""):
        out["borrowingLimit"] = bl
    if ll not in (None, ""):
        out["lendingLimit"] = ll
    return out


def fq(flavor: str, *resources: dict[str, Any]) -> dict[str, Any]:
    """`MakeFlavorQuotas(flavor).Resource(...)...`."""
    return {"name": flavor, "resources": list(resources)}


def rg(*flavors: dict[str, Any]) -> dict[str, Any]:
    """A resource group; covered resources = the resources of its flavors, in order."""
    covered: list[str] = []
    for f in flavors:
        for r in f["resources"]:
            if r["name"] not in covered:
                covered.append(r["name"])
    return {"coveredResources": covered, "flavors": list(flavors)}


def cq(
    name: str,
    *groups: dict[str, Any],
    cohort: str | None = None,
    preemption: dict[str, Any] | None = None,
    fungibility: dict[str, Any] | None = None,
    strategy: str | None = None,
    ns_selector: dict[str, Any] | None = None,
    weight: str | None = None,
) -> dict[str, Any]:
    """ClusterQueue with MakeClusterQueue's defaults."""
    spec: dict[str, Any] = {"namespaceSelector": ns_selector if ns_selector is not None else {}}
    if cohort:
        spec["cohort"] = cohort
    spec["queueingStrategy"] = strategy or "BestEffortFIFO"
    spec["resourceGroups"] = list(groups)
    if preemption:
        spec["preemption"] = preemption
    if fungibility:
        spec["flavorFungibility"] = fungibility
    if weight is not None:
        spec["fairSharing"] = {"weight": weight}
    return {"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def dep_selector(value: str) -> dict[str, Any]:
    """`NamespaceSelector(dep In [value])`."""
    return {"matchExpressions": [{"key": "dep", "operator": "In", "values": [value]}]}


def cohort(
    name: str, *groups: dict[str, Any], parent: str | None = None, weight: str | None = None
) -> dict[str, Any]:
    """Cohort (v1beta1 alpha Cohort API is served under kueue.x-k8s.io/v1beta1 in recent Kueue)."""
    spec: dict[str, Any] = {}
    if parent:
        spec["parent"] = parent
    if groups:
        spec["resourceGroups"] = list(groups)
    if weight is not None:
        spec["fairSharing"] = {"weight": weight}
    return {"apiVersion": API, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def lq(name: str, namespace: str, cluster_queue: str) -> dict[str, Any]:
    """LocalQueue."""
    return {
        "apiVersion": API,
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterQueue": cluster_queue},
    }


def ns(name: str, **labels: str) -> dict[str, Any]:
    """Namespace with labels."""
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": dict(labels)}}


def fair_sharing_config(strategies: list[str] | None = None) -> dict[str, Any]:
    """A Kueue Configuration that enables fair sharing."""
    fs: dict[str, Any] = {"enable": True}
    if strategies:
        fs["preemptionStrategies"] = strategies
    return {"apiVersion": "config.kueue.x-k8s.io/v1beta1", "kind": "Configuration", "fairSharing": fs}


@dataclass
class PodSet:
    """`MakePodSet(name, count).Request(...)`."""

    name: str
    count: int
    requests: dict[str, str]
    min_count: int | None = None
    node_selector: dict[str, str] | None = None
    tolerations: list[dict[str, str]] | None = None
    required_terms: list[dict[str, Any]] | None = None

    def to_obj(self) -> dict[str, Any]:
        pod: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": dict(self.requests)}}]}
        if self.node_selector:
            pod["nodeSelector"] = self.node_selector
        if self.tolerations:
            pod["tolerations"] = self.tolerations
        if self.required_terms:
            pod["affinity"] = {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": self.required_terms
                    }
                }
            }
        out: dict[str, Any] = {"name": self.name, "count": self.count, "template": {"spec": pod}}
        if self.min_count is not None:
            out["minCount"] = self.min_count
        return out


def ps(name: str, count: int, min_count: int | None = None, **kw: Any) -> PodSet:
    """PodSet; requests given as keyword `req={...}`."""
    return PodSet(
        name,
        count,
        kw.pop("req"),
        min_count,
        kw.pop("node_selector", None),
        kw.pop("tolerations", None),
        kw.pop("required_terms", None),
    )


@dataclass
class Assign:
    """One PodSetAssignment."""

    name: str
    flavors: dict[str, str]
    usage: dict[str, str]
    count: int = 1


@dataclass
class Wl:
    """`MakeWorkload(name, ns)` with the usual chain."""

    name: str
    namespace: str
    queue: str | None = None
    priority: int | None = None
    creation: float | None = None
    podsets: list[PodSet] = field(default_factory=list)
    admission_cq: str | None = None
    assignments: list[Assign] = field(default_factory=list)
    reserved_at: float = 0.0
    admitted: bool = False
    evicted: bool = False
    uid: str | None = None

    def to_obj(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"name": self.name, "namespace": self.namespace}
        if self.uid:
            meta["uid"] = self.uid
        if self.creation is not None:
            meta["creationTimestamp"] = ts(self.creation)
        spec: dict[str, Any] = {}
        if self.queue:
            spec["queueName"] = self.queue
        if self.priority is not None:
            spec["priority"] = self.priority
        spec["podSets"] = [p.to_obj() for p in self.podsets]
        obj: dict[str, Any] = {"apiVersion": API, "kind": "Workload", "metadata": meta, "spec": spec}
        if self.admission_cq:
            conds = [
                {
                    "type": "QuotaReserved",
                    "status": "True",
                    "reason": "QuotaReserved",
                    "lastTransitionTime": ts(self.reserved_at),
                }
            ]
            if self.admitted:
                conds.append(
                    {
                        "type": "Admitted",
                        "status": "True",
                        "reason": "Admitted",
                        "lastTransitionTime": ts(self.reserved_at),
                    }
                )
            if self.evicted:
                conds.append(
                    {
                        "type": "Evicted",
                        "status": "True",
                        "reason": "Preempted",
                        "lastTransitionTime": ts(self.reserved_at),
                    }
                )
            obj["status"] = {
                "admission": {
                    "clusterQueue": self.admission_cq,
                    "podSetAssignments": [
                        {"name": a.name, "flavors": a.flavors, "resourceUsage": a.usage, "count": a.count}
                        for a in self.assignments
                    ],
                },
                "conditions": conds,
            }
        return obj


def wl(
    name: str,
    namespace: str,
    *,
    queue: str | None = None,
    priority: int | None = None,
    creation: float | None = None,
    req: dict[str, str] | None = None,
    podsets: list[PodSet] | None = None,
    uid: str | None = None,
) -> Wl:
    """Workload; `req` = `.Request(...)` on the default podset "main" (count 1)."""
    sets = podsets if podsets is not None else [PodSet("main", 1, dict(req or {}))]
    out = Wl(name, namespace, queue, priority, creation, sets)
    out.uid = uid
    return out


def _mul(q: str, n: int) -> str:
    from decimal import Decimal

    if q.endswith("m"):
        return f"{int(q[:-1]) * n}m"
    return str(Decimal(q) * n)


def simple_reserve(w: Wl, cluster_queue: str, flavor: str, at: float = 0.0, admitted: bool = False) -> Wl:
    """`SimpleReserveQuota(cq, flavor, now)`: every podset, every resource in one flavor."""
    w.admission_cq = cluster_queue
    w.assignments = [
        Assign(
            p.name,
            {r: flavor for r in p.requests},
            {r: _mul(q, p.count) for r, q in p.requests.items()},
            p.count,
        )
        for p in w.podsets
    ]
    w.reserved_at = at
    w.admitted = admitted
    return w


def reserve(w: Wl, cluster_queue: str, *assigns: Assign, at: float = 0.0, admitted: bool = False) -> Wl:
    """`ReserveQuota(MakeAdmission(cq)...)`."""
    w.admission_cq = cluster_queue
    w.assignments = list(assigns)
    w.reserved_at = at
    w.admitted = admitted
    return w


def a(res_name: str, flavor: str, qty: str, podset: str = "main", count: int = 1) -> Assign:
    """`MakeAdmission(cq, podset).Assignment(res, flavor, qty).AssignmentPodCount(count)`."""
    return Assign(podset, {res_name: flavor}, {res_name: qty}, count)


def admitted(workload: str, cluster_queue: str, *podsets: tuple[str, int, dict[str, str]]) -> dict[str, Any]:
    """An expected admission entry."""
    return {
        "workload": workload,
        "clusterQueue": cluster_queue,
        "podSets": [{"name": n, "count": c, "flavors": f} for n, c, f in podsets],
    }


@dataclass
class Scenario:
    """One upstream test case."""

    name: str
    source: str
    objects: list[dict[str, Any]]
    admitted: list[dict[str, Any]]
    preempted: list[dict[str, str]]
    heap: dict[str, list[str]]
    inadmissible: dict[str, list[str]]
    fair_sharing: bool = False
    note: str = ""

    def write(self, root: Path) -> None:
        out = root / self.name
        out.mkdir(parents=True, exist_ok=True)
        (out / "objects.yaml").write_text(
            yaml.safe_dump_all(self.objects, sort_keys=False, default_flow_style=None, width=120),
            encoding="utf-8",
        )
        pending = [
            {"workload": w, "clusterQueue": c, "queue": q}
            for q, table in (("heap", self.heap), ("inadmissible", self.inadmissible))
            for c, ws in sorted(table.items())
            for w in ws
        ]
        expected: dict[str, Any] = {
            "fairSharing": self.fair_sharing,
            "cycles": [
                {
                    "admitted": sorted(self.admitted, key=lambda e: e["workload"]),
                    "preempted": sorted(self.preempted, key=lambda e: e["workload"]),
                    "pending": sorted(pending, key=lambda e: e["workload"]),
                }
            ],
        }
        (out / "expected.json").write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")
        (out / "source.txt").write_text(
            self.source.strip() + "\n" + (self.note.strip() + "\n" if self.note else ""), encoding="utf-8"
        )


def objs(*parts: Any) -> list[dict[str, Any]]:
    """Flatten objects and workloads into one list of plain dicts."""
    out: list[dict[str, Any]] = []
    for p in parts:
        if isinstance(p, list):
            out.extend(objs(*p))
        elif isinstance(p, Wl):
            out.append(p.to_obj())
        else:
            out.append(p)
    return out
