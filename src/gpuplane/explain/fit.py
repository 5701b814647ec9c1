"""Admitted but unschedulable (kueue #2665): quota says yes, no node of the flavor can hold a pod.

Kueue admits on quota only. With node shapes in the input (Node objects: labels and
`status.allocatable`; or a platform spec: each pool's node labels and what one node advertises,
from `gpuplane.spec.derived`), every pod set Kueue admitted is checked: some node whose labels
carry each assigned flavor's `nodeLabels` (and the pod's `nodeSelector`) must hold one pod's
requests. Spec pools are checked on extended resources (GPUs, MIG slices, shared GPUs) only: their
allocatable CPU and memory are not known. Pod-to-node packing and taints are not modelled.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gpuplane.kube.quantity import QuantityError, format_quantity, parse_quantity
from gpuplane.kueue.objects import ResourceFlavor, Workload
from gpuplane.kueue.parse import RawObject
from gpuplane.workloads import as_dict, as_str, get


@dataclass(frozen=True)
class NodeShape:
    """One node (or every node of one pool): labels and allocatable resources in milli-units."""

    name: str
    labels: Mapping[str, str]
    allocatable: Mapping[str, int]
    extended_only: bool = False

    def knows(self, resource: str) -> bool:
        """Whether this shape can judge `resource` (spec pools: extended resources only)."""
        return not self.extended_only or "/" in resource


@dataclass(frozen=True)
class Unfit:
    """A pod set Kueue admitted that no node of its flavor can run."""

    workload: str
    pod_set: str
    message: str


def nodes_from_objects(raws: Iterable[RawObject]) -> list[NodeShape]:
    """Node objects of the input as shapes (unreadable quantities are left out)."""
    out = []
    for raw in raws:
        data = raw.data
        if as_str(data.get("kind")) != "Node":
            continue
        alloc: dict[str, int] = {}
        for key, value in as_dict(get(dict(data), "status", "allocatable")).items():
            try:
                alloc[str(key)] = parse_quantity(value)
            except QuantityError:
                continue
        labels = {str(k): as_str(v) for k, v in as_dict(get(dict(data), "metadata", "labels")).items()}
        out.append(NodeShape(as_str(get(dict(data), "metadata", "name")), labels, alloc))
    return out


def nodes_from_spec(spec: Any) -> list[NodeShape]:
    """One shape per node pool of a platform spec (labels and extended resources per node)."""
    from gpuplane.spec import derived

    out = []
    for pool in spec.node_pools:
        per_node = {k: v * 1000 for k, v in derived.resources_per_node(pool).items()}
        out.append(NodeShape(f"pool {pool.name}", derived.node_labels(pool), per_node, extended_only=True))
    return out


def _matches(node: NodeShape, labels: Mapping[str, str]) -> bool:
    return all(node.labels.get(k) == v for k, v in labels.items())


def check(
    admitted: Iterable[Workload], flavors: Mapping[str, ResourceFlavor], nodes: list[NodeShape]
) -> list[Unfit]:
    """Pod sets of admitted workloads that fit no node of their flavors."""
    out: list[Unfit] = []
    for wl in admitted:
        if wl.admission is None:
            continue
        by_name = {ps.name: ps for ps in wl.pod_sets}
        for psa in wl.admission.pod_set_assignments:
            ps = by_name.get(psa.name)
            if ps is None:
                continue
            wanted: dict[str, str] = dict(ps.node_selector)
            for flavor in sorted(set(psa.flavors.values())):
                if flavor in flavors:
                    wanted.update(flavors[flavor].node_labels)
            message = _why_not(ps.per_pod, wanted, sorted(set(psa.flavors.values())), nodes)
            if message:
                out.append(Unfit(wl.key, ps.name, message))
    return out


def _why_not(
    per_pod: Mapping[str, int], labels: Mapping[str, str], flavors: list[str], nodes: list[NodeShape]
) -> str:
    """'' when some node matching `labels` holds one pod, else why not."""
    candidates = [n for n in nodes if _matches(n, labels)]
    where = f"flavor {', '.join(flavors)}"
    if not candidates:
        return f"no node in the input carries the labels of {where}"
    shortfalls: dict[str, int] = {}
    for node in candidates:
        short = [r for r, v in per_pod.items() if v > 0 and node.knows(r) and v > node.allocatable.get(r, 0)]
        if not short:
            return ""
        for r in short:
            shortfalls[r] = shortfalls.get(r, 0) + 1
    res = min(shortfalls, key=lambda r: (-shortfalls[r], r))  # short on the most nodes
    have = max(n.allocatable.get(res, 0) for n in candidates)
    return f"one pod asks for {format_quantity(per_pod[res])} {res}; nodes of {where} hold at most {format_quantity(have)}"
