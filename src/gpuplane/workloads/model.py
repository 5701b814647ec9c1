"""What the workload readers produce: pod templates (for audit) and Kueue pod sets (for explain).

A `PodTemplate` is a pod spec found inside a workload object, with its path so findings can point
at it. A `PodSetSpec` is one pod set of the Workload Kueue's jobframework would create for the
object: a name, a count and the pod spec Kueue reads requests from. A `WorkloadSpec` is one such
Workload (most kinds make one; a Deployment makes one per pod, a LeaderWorkerSet one per group).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuplane.kube.quantity import quantity_value
from gpuplane.vocab import AMD_GPU_RESOURCE, GPU_RESOURCE, MIG_RESOURCE_PREFIX
from gpuplane.workloads.fields import Path, as_dict, as_list, as_str, get

GPU_RESOURCE_PREFIXES = (GPU_RESOURCE, MIG_RESOURCE_PREFIX, AMD_GPU_RESOURCE)


def is_gpu_resource(name: str) -> bool:
    """Whether an extended resource name is a GPU, MIG slice or shared GPU."""
    return name.startswith(GPU_RESOURCE_PREFIXES)


def quantity(value: Any) -> float | None:
    """A resource quantity as a number of units (`gpuplane.kube.quantity`'s grammar, so `1000m` is
    1); None if it is not a non-negative quantity. Raises QuantityRangeError past 2^63-1 (`1e400`)."""
    return quantity_value(value)


@dataclass
class Container:
    """One container (or init container) of a pod template, with its path in the object."""

    data: dict[str, Any]
    path: Path
    init: bool = False
    _gpus: dict[str, float] | None = field(default=None, repr=False, compare=False)

    @property
    def name(self) -> str:
        """The container's name."""
        return as_str(self.data.get("name"))

    @property
    def image(self) -> str:
        """The container's image."""
        return as_str(self.data.get("image"))

    @property
    def sidecar(self) -> bool:
        """A native sidecar: an init container with `restartPolicy: Always` (it keeps running)."""
        return self.init and as_str(self.data.get("restartPolicy")) == "Always"

    def resources(self, section: str) -> dict[str, Any]:
        """The container's `resources.requests` or `resources.limits` (`section`)."""
        return as_dict(get(self.data, "resources", section))

    def gpu_amounts(self, section: str) -> dict[str, float]:
        """GPU resources of `requests` or `limits` with a positive amount."""
        out: dict[str, float] = {}
        for key, value in self.resources(section).items():
            amount = quantity(value)
            if is_gpu_resource(str(key)) and amount is not None and amount > 0:
                out[str(key)] = amount
        return out

    def gpus(self) -> dict[str, float]:
        """The GPU resources this container gets (limits win; a request alone counts too)."""
        if self._gpus is None:
            merged = dict(self.gpu_amounts("requests"))
            merged.update(self.gpu_amounts("limits"))
            self._gpus = merged
        return self._gpus

    def env(self) -> list[tuple[int, dict[str, Any]]]:
        """The container's env entries that are objects, with their index."""
        return [(i, e) for i, e in enumerate(as_list(self.data.get("env"))) if isinstance(e, dict)]


@dataclass
class PodTemplate:
    """A pod spec inside a workload: where it is, its metadata and its containers."""

    spec: dict[str, Any]
    path: Path
    meta: dict[str, Any]
    role: str = ""
    containers: list[Container] = field(default_factory=list)
    # GPU devices the pod's DRA claims request, by ResourceQuota item (`gpuplane.audit.claims`),
    # and where each is claimed in the object.
    claim_gpus: dict[str, float] = field(default_factory=dict)
    claim_paths: dict[str, Path] = field(default_factory=dict)
    _gpus: dict[str, float] | None = field(default=None, repr=False, compare=False)

    @property
    def labels(self) -> dict[str, str]:
        """The pod template's labels, values as strings."""
        return {str(k): as_str(v) for k, v in as_dict(self.meta.get("labels")).items()}

    def gpus(self) -> dict[str, float]:
        """GPU resources of one pod, as Kubernetes counts them: app containers and native sidecars
        summed, each ordinary init container (plus the sidecars started before it) as a maximum,
        plus the GPU devices its DRA claims request."""
        if self._gpus is not None:
            return self._gpus
        total: dict[str, float] = dict(self.claim_gpus)
        for c in self.containers:
            if not c.init or c.sidecar:
                for k, v in c.gpus().items():
                    total[k] = total.get(k, 0.0) + v
        sidecars: dict[str, float] = {}
        for c in self.containers:
            if not c.init:
                continue
            if c.sidecar:
                for k, v in c.gpus().items():
                    sidecars[k] = sidecars.get(k, 0.0) + v
                continue
            for k in set(c.gpus()) | set(sidecars):
                total[k] = max(total.get(k, 0.0), c.gpus().get(k, 0.0) + sidecars.get(k, 0.0))
        self._gpus = total
        return total

    def is_gpu(self) -> bool:
        """Whether a pod requests any GPU."""
        return bool(self.gpus())

    def reset_gpus(self) -> None:
        """Forget the cached total (after claims were attached)."""
        self._gpus = None

    def resource_claims(self) -> list[dict[str, Any]]:
        """The pod's `resourceClaims` (DRA): each names a ResourceClaim or a ResourceClaimTemplate."""
        return [c for c in as_list(self.spec.get("resourceClaims")) if isinstance(c, dict)]

    def claim_template_names(self) -> list[str]:
        """ResourceClaimTemplates the pod's claims are made from (one claim per pod each)."""
        return [
            as_str(c.get("resourceClaimTemplateName"))
            for c in self.resource_claims()
            if as_str(c.get("resourceClaimTemplateName"))
        ]


@dataclass
class PodSetSpec:
    """One pod set of the Workload Kueue creates: name, pod count, optional minCount, pod spec.

    `template.spec` is the pod spec Kueue reads requests from; for some kinds Kueue adds
    containers (the Ray autoscaler, a RayJob submitter), and then the spec is a modified copy.
    """

    name: str
    count: int
    template: PodTemplate
    min_count: int | None = None


@dataclass
class WorkloadSpec:
    """A Workload Kueue's jobframework would create for a job object.

    `name` is Kueue's name when it can be known (it hashes the object's UID); `name_note` says why
    not otherwise. `priority_class` is the PriorityClass the integration reads for the Workload's
    priority (Kueue's `JobWithPriorityClass`; '' means the first pod set's `priorityClassName`).
    """

    name: str
    pod_sets: list[PodSetSpec]
    name_note: str = ""
    priority_class: str = ""
    group_total: int = 0
    """For a pod group member: the group's `pod-group-total-count` (pods of one group are merged)."""
