"""What TAS keeps between cycles: Topologies, Nodes, non-TAS pods and each admitted workload's domains.

Modelled on kubernetes-sigs/kueue v0.19.2 `pkg/cache/scheduler/tas_cache.go`, `tas_flavor.go`
(usage per domain of admitted workloads: per-pod requests times count, plus one `pods` each),
`tas_nodes_cache.go` and `tas_non_tas_pod_cache.go` (pods bound to a node, not terminated and not
TAS pods by `pkg/util/tas/tas.go IsTAS`, charged with their requests and one `pods`). Usage is kept
per leaf (a node for hostname topologies), so flavors that share nodes see each other's pods.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gpuplane.kube.quantity import parse_quantity
from gpuplane.kueue.objects import ResourceFlavor, Taint, Workload
from gpuplane.kueue.tas.model import TASNode, Topology
from gpuplane.kueue.tas.placement import POD, FlavorTopology, LeafKey, leaf_key_of
from gpuplane.vocab import (
    HOSTNAME_LABEL,
    TAS_PREFERRED_ANNOTATION,
    TAS_REQUIRED_ANNOTATION,
    TAS_SLICE_REQUIRED_ANNOTATION,
    TAS_UNCONSTRAINED_ANNOTATION,
)

_TAS_POD_ANNOTATIONS = (
    TAS_REQUIRED_ANNOTATION,
    TAS_PREFERRED_ANNOTATION,
    TAS_SLICE_REQUIRED_ANNOTATION,
    TAS_UNCONSTRAINED_ANNOTATION,
)


class TASState:
    """Topologies, nodes and TAS usage per leaf; flavor trees built on first use."""

    def __init__(
        self,
        topologies: Iterable[Topology],
        nodes: Iterable[TASNode],
        non_tas: Mapping[str, Mapping[str, int]] | None = None,
    ) -> None:
        self.topologies = {t.name: t for t in topologies}
        self.nodes = list(nodes)
        self.non_tas = {k: dict(v) for k, v in (non_tas or {}).items()}
        self.usage: dict[LeafKey, dict[str, int]] = {}
        self.charged: dict[str, list[tuple[LeafKey, dict[str, int]]]] = {}
        #: Changes of each leaf's usage so far: placement keeps counts of unchanged leaves.
        self.version: dict[LeafKey, int] = {}
        #: Every leaf whose usage changed, in order: incremental placement (`live_counts`) recounts these.
        self.changes: list[LeafKey] = []
        self._trees: dict[str, tuple[ResourceFlavor, FlavorTopology | None]] = {}

    def tree(self, flavor: ResourceFlavor) -> FlavorTopology | None:
        """The flavor's domain tree, or None when it is no TAS flavor or its Topology is missing."""
        if flavor.topology_name is None:
            return None
        hit = self._trees.get(flavor.name)
        if hit is not None and hit[0] is flavor:
            return hit[1]
        topo = self.topologies.get(flavor.topology_name)
        tree = None if topo is None else FlavorTopology(flavor, topo, self.nodes, self.non_tas)
        self._trees[flavor.name] = (flavor, tree)
        return tree

    def domain_usage(self, wl: Workload) -> list[tuple[LeafKey, dict[str, int]]]:
        """The usage an admitted workload's topology assignments put on each leaf."""
        out: list[tuple[LeafKey, dict[str, int]]] = []
        if wl.admission is None:
            return out
        by_name = {ps.name: ps for ps in wl.pod_sets}
        for psa in wl.admission.pod_set_assignments:
            ta = psa.topology_assignment
            ps = by_name.get(psa.name)
            if ta is None or ps is None:
                continue
            hostname = bool(ta.levels) and ta.levels[-1] == HOSTNAME_LABEL
            for d in ta.domains:
                amount = {res: q * d.count for res, q in ps.per_pod.items()}
                amount["pods"] = amount.get("pods", 0) + POD * d.count
                out.append((leaf_key_of(ta.levels, d.values, hostname), amount))
        return out

    def charge(self, wl: Workload) -> None:
        """Add an admitted workload's domains (idempotent per workload)."""
        if wl.key in self.charged:
            self.release(wl.key)
        parts = self.domain_usage(wl)
        if not parts:
            return
        self.charged[wl.key] = parts
        self.shift(parts, 1)

    def release(self, key: str) -> None:
        """Take a workload's domains back."""
        parts = self.charged.pop(key, None)
        if parts:
            self.shift(parts, -1)

    def shift_workloads(self, keys: Iterable[str], sign: int) -> None:
        """Remove (sign -1) or give back (1) admitted workloads' domains, as a preemption search does."""
        for key in keys:
            parts = self.charged.get(key)
            if parts:
                self.shift(parts, sign)

    def shift(self, parts: Iterable[tuple[LeafKey, Mapping[str, int]]], sign: int) -> None:
        """Add (sign 1) or remove (-1) usage per leaf."""
        version = self.version
        changes = self.changes
        for key, amount in parts:
            version[key] = version.get(key, 0) + 1
            changes.append(key)
            acc = self.usage.setdefault(key, {})
            for res, q in amount.items():
                acc[res] = acc.get(res, 0) + sign * q


# ---------------------------------------------------------------------- reading Node and Pod objects
def _m(x: object) -> Mapping[str, Any]:
    return x if isinstance(x, Mapping) else {}


def _qty(value: object) -> int | None:
    try:
        return parse_quantity(str(value))
    except (ValueError, TypeError):
        return None


def node_from_object(obj: Mapping[str, Any]) -> TASNode | None:
    """A Node object as TAS reads it (Ready condition, unschedulable, taints, allocatable)."""
    meta, spec, status = _m(obj.get("metadata")), _m(obj.get("spec")), _m(obj.get("status"))
    name = str(meta.get("name") or "")
    if not name:
        return None
    alloc = {}
    for res, q in _m(status.get("allocatable")).items():
        v = _qty(q)
        if v is not None:
            alloc[str(res)] = v
    conds = [c for c in status.get("conditions") or () if isinstance(c, Mapping)]
    ready = any(c.get("type") == "Ready" and str(c.get("status")) == "True" for c in conds)
    taints = tuple(
        Taint(str(t.get("key", "")), str(t.get("value", "") or ""), str(t.get("effect", "NoSchedule")))
        for t in spec.get("taints") or ()
        if isinstance(t, Mapping)
    )
    labels = {str(k): str(v) for k, v in _m(meta.get("labels")).items()}
    return TASNode(name, labels, alloc, taints, ready, spec.get("unschedulable") is True)


def non_tas_pod_usage(obj: Mapping[str, Any]) -> tuple[str, dict[str, int]] | None:
    """(node, requests + one pod) of a bound, running or pending, non-TAS Pod; None otherwise."""
    meta, spec, status = _m(obj.get("metadata")), _m(obj.get("spec")), _m(obj.get("status"))
    node = spec.get("nodeName")
    if not node or status.get("phase") in ("Succeeded", "Failed"):
        return None
    annotations = _m(meta.get("annotations"))
    if any(a in annotations for a in _TAS_POD_ANNOTATIONS):
        return None
    usage: dict[str, int] = {}
    for c in spec.get("containers") or ():
        for res, q in _m(_m(_m(c).get("resources")).get("requests")).items():
            v = _qty(q)
            if v is not None:
                usage[str(res)] = usage.get(str(res), 0) + v
    usage["pods"] = usage.get("pods", 0) + POD
    return str(node), usage


def state_from_objects(topologies: Iterable[Topology], raw: Iterable[Mapping[str, Any]]) -> TASState | None:
    """The TAS state of an input: None when it has no Topology."""
    topos = list(topologies)
    if not topos:
        return None
    nodes: list[TASNode] = []
    non_tas: dict[str, dict[str, int]] = {}
    for obj in raw:
        kind = obj.get("kind")
        if kind == "Node":
            node = node_from_object(obj)
            if node is not None:
                nodes.append(node)
        elif kind == "Pod" and str(obj.get("apiVersion", "")) == "v1":
            got = non_tas_pod_usage(obj)
            if got is not None:
                acc = non_tas.setdefault(got[0], {})
                for res, q in got[1].items():
                    acc[res] = acc.get(res, 0) + q
    return TASState(topos, nodes, non_tas)
