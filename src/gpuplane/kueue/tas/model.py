"""Topology-aware scheduling records: Topology, a pod set's request, a node, an assignment.

Shapes follow Kueue v0.19.2 (`apis/kueue/v1beta2/topology_types.go`, `workload_types.go`):
`TopologyRequest` is a Workload pod set's `topologyRequest` (or the pod template annotations
jobframework reads), `TopologyAssignment` is `status.admission.podSetAssignments[].topologyAssignment`
in the v1beta1 shape (levels + domains of values and count); `to_v1beta2` writes the v1beta2
shape (levels + slices of values per level and pod counts). Quantities are milli-units as
everywhere in `gpuplane.kueue`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuplane.kueue.objects import Taint
from gpuplane.vocab import (
    HOSTNAME_LABEL,
    TAS_PODSET_GROUP_ANNOTATION,
    TAS_PREFERRED_ANNOTATION,
    TAS_REQUIRED_ANNOTATION,
    TAS_SLICE_REQUIRED_ANNOTATION,
    TAS_SLICE_SIZE_ANNOTATION,
    TAS_UNCONSTRAINED_ANNOTATION,
)


@dataclass(frozen=True)
class Topology:
    """A `Topology` object: node-label levels, coarse to fine (hostname, if present, last)."""

    name: str
    levels: tuple[str, ...]

    @property
    def lowest_is_hostname(self) -> bool:
        """Whether the topology's lowest level is the node (kubernetes.io/hostname)."""
        return bool(self.levels) and self.levels[-1] == HOSTNAME_LABEL


@dataclass(frozen=True)
class TopologyRequest:
    """A pod set's `topologyRequest`: at most one of required / preferred / unconstrained."""

    required: str | None = None
    preferred: str | None = None
    unconstrained: bool = False
    group: str | None = None
    slice_level: str | None = None
    slice_size: int | None = None

    @property
    def explicit(self) -> bool:
        """IsExplicitlyRequestingTAS: any of the three modes or a slice request."""
        return bool(self.required or self.preferred or self.unconstrained or self.slice_level)


@dataclass(frozen=True)
class TASNode:
    """A Node as TAS sees it: labels, allocatable (milli-units), taints, and whether it counts."""

    name: str
    labels: Mapping[str, str]
    allocatable: Mapping[str, int]
    taints: tuple[Taint, ...] = ()
    ready: bool = True
    unschedulable: bool = False


@dataclass(frozen=True)
class DomainCount:
    """One domain of an assignment: its label values (for `levels`) and how many pods go there."""

    values: tuple[str, ...]
    count: int


@dataclass(frozen=True)
class TopologyAssignment:
    """`topologyAssignment`: the levels named and the pods per domain, sorted by values."""

    levels: tuple[str, ...]
    domains: tuple[DomainCount, ...]

    def to_v1beta1(self) -> dict[str, Any]:
        """The v1beta1 shape: `{levels: [...], domains: [{values: [...], count: N}]}`."""
        return {
            "levels": list(self.levels),
            "domains": [{"values": list(d.values), "count": d.count} for d in self.domains],
        }

    def to_v1beta2(self) -> dict[str, Any]:
        """The v1beta2 shape: one slice, values per level (universal when all equal), pod counts."""
        per_level: list[dict[str, Any]] = []
        for i in range(len(self.levels)):
            vals = [d.values[i] for d in self.domains]
            if vals and all(v == vals[0] for v in vals):
                per_level.append({"universal": vals[0]})
            else:
                per_level.append({"individual": {"roots": vals}})
        counts = [d.count for d in self.domains]
        pod_counts: dict[str, Any] = (
            {"universal": counts[0]}
            if counts and all(c == counts[0] for c in counts)
            else {"individual": counts}
        )
        slices = [{"domainCount": len(self.domains), "valuesPerLevel": per_level, "podCounts": pod_counts}]
        return {"levels": list(self.levels), "slices": slices if self.domains else []}

    def pods(self) -> int:
        """Pods assigned over every domain."""
        return sum(d.count for d in self.domains)


@dataclass
class TASPodSetRequest:
    """One pod set's TAS request in one flavor (`TASPodSetRequests`): per-pod requests with `pods`."""

    name: str
    count: int
    per_pod: dict[str, int]
    request: TopologyRequest
    implied: bool = False
    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: tuple[Any, ...] = ()
    affinity_terms: tuple[tuple[Any, ...], ...] | None = None

    # Written out: mypyc compiles this one (the dataclass-generated one runs interpreted, and TAS
    # builds a request per pod set on every nomination); None stands for the default_factory.
    def __init__(
        self,
        name: str,
        count: int,
        per_pod: dict[str, int],
        request: TopologyRequest,
        implied: bool = False,
        node_selector: Mapping[str, str] | None = None,
        tolerations: tuple[Any, ...] = (),
        affinity_terms: tuple[tuple[Any, ...], ...] | None = None,
    ) -> None:
        self.name = name
        self.count = count
        self.per_pod = per_pod
        self.request = request
        self.implied = implied
        self.node_selector = {} if node_selector is None else node_selector
        self.tolerations = tolerations
        self.affinity_terms = affinity_terms


def from_v1beta1(data: Mapping[str, Any]) -> TopologyAssignment:
    """Read a v1beta1 `topologyAssignment` (levels + domains)."""
    levels = tuple(str(x) for x in data.get("levels") or ())
    domains = []
    for d in data.get("domains") or ():
        if isinstance(d, Mapping):
            domains.append(DomainCount(tuple(str(v) for v in d.get("values") or ()), int(d.get("count", 0))))
    return TopologyAssignment(levels, tuple(domains))


def from_v1beta2(data: Mapping[str, Any]) -> TopologyAssignment:
    """Read a v1beta2 `topologyAssignment` (levels + slices with prefix/suffix/roots or universal)."""
    levels = tuple(str(x) for x in data.get("levels") or ())
    domains: list[DomainCount] = []
    for sl in data.get("slices") or ():
        if not isinstance(sl, Mapping):
            continue
        n = int(sl.get("domainCount", 0))
        columns: list[list[str]] = []
        for vl in sl.get("valuesPerLevel") or ():
            vl = vl if isinstance(vl, Mapping) else {}
            if "universal" in vl:
                columns.append([str(vl["universal"])] * n)
            else:
                ind = vl.get("individual") or {}
                pre, suf = str(ind.get("prefix") or ""), str(ind.get("suffix") or "")
                columns.append([pre + str(r) + suf for r in ind.get("roots") or ()])
        pc = sl.get("podCounts") or {}
        counts = (
            [int(pc["universal"])] * n if "universal" in pc else [int(c) for c in pc.get("individual") or ()]
        )
        for i in range(n):
            values = tuple(col[i] if i < len(col) else "" for col in columns)
            domains.append(DomainCount(values, counts[i] if i < len(counts) else 0))
    return TopologyAssignment(levels, tuple(domains))


def read_assignment(data: object) -> TopologyAssignment | None:
    """A `topologyAssignment` in either API shape, or None."""
    if not isinstance(data, Mapping):
        return None
    if "slices" in data:
        return from_v1beta2(data)
    return from_v1beta1(data)


def topology_request(api: object, annotations: object = None) -> TopologyRequest | None:
    """A pod set's request from its Workload `topologyRequest`, else its template's annotations."""
    if isinstance(api, Mapping) and api:
        size = api.get("podSetSliceSize")
        return TopologyRequest(
            required=_opt(api.get("required")),
            preferred=_opt(api.get("preferred")),
            unconstrained=api.get("unconstrained") is True,
            group=_opt(api.get("podSetGroupName")),
            slice_level=_opt(api.get("podSetSliceRequiredTopology")),
            slice_size=int(size) if isinstance(size, int | str) and str(size).isdigit() else None,
        )
    if not isinstance(annotations, Mapping):
        return None
    ann = {str(k): str(v) for k, v in annotations.items()}
    size_text = ann.get(TAS_SLICE_SIZE_ANNOTATION, "")
    req = TopologyRequest(
        required=ann.get(TAS_REQUIRED_ANNOTATION) or None,
        preferred=ann.get(TAS_PREFERRED_ANNOTATION) or None,
        unconstrained=ann.get(TAS_UNCONSTRAINED_ANNOTATION, "").lower() == "true",
        group=ann.get(TAS_PODSET_GROUP_ANNOTATION) or None,
        slice_level=ann.get(TAS_SLICE_REQUIRED_ANNOTATION) or None,
        slice_size=int(size_text) if size_text.isdigit() else None,
    )
    return req if req.explicit or req.group else None


def _opt(value: object) -> str | None:
    return str(value) if value not in (None, "") else None
