"""Finding the pod templates inside workload kinds, and reading GPU requests from them.

Covers Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, JobSet, Kubeflow
training jobs (PyTorchJob and the other *ReplicaSpecs kinds, TrainJob), RayJob/RayCluster/RayService,
KServe InferenceService (with multi-node `workerSpec`), Knative Service, LeaderWorkerSet, and, for unknown kinds, any nested `template.spec.containers`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from gpuplane.audit.objects import K8sObject, Path, as_dict, as_list, as_str, get

GPU_RESOURCE_PREFIXES = ("nvidia.com/gpu", "nvidia.com/mig-", "amd.com/gpu")
BATCH_KINDS = frozenset(
    {
        "Job",
        "CronJob",
        "JobSet",
        "PyTorchJob",
        "TFJob",
        "MPIJob",
        "XGBoostJob",
        "PaddleJob",
        "JAXJob",
        "TrainJob",
        "RayJob",
        "RayCluster",
    }
)
SERVING_KINDS = frozenset(
    {
        "Deployment",
        "StatefulSet",
        "InferenceService",
        "LeaderWorkerSet",
        "ReplicaSet",
        "RayService",
        "KnativeService",
    }
)
KNATIVE_GROUP = "serving.knative.dev"
KSERVE_COMPONENTS = ("predictor", "transformer", "explainer")
# KServe predictor keys that hold one container-like model server spec.
KSERVE_RUNTIMES = (
    "model",
    "pytorch",
    "tensorflow",
    "triton",
    "huggingface",
    "sklearn",
    "xgboost",
    "onnx",
    "lightgbm",
    "paddle",
    "pmml",
    "custom",
)
KSERVE_CONTAINER = "kserve-container"
BUILTIN_GROUPS = frozenset({"", "apps", "batch", "extensions"})
MAX_GENERIC_DEPTH = 8


def is_gpu_resource(name: str) -> bool:
    """Whether an extended resource name is a GPU, MIG slice or shared GPU."""
    return name.startswith(GPU_RESOURCE_PREFIXES)


def quantity(value: Any) -> float | None:
    """A resource quantity as a number (only plain numbers matter for GPUs); None if unreadable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    text = as_str(value).strip()
    try:
        return float(text)
    except ValueError:
        return None


@dataclass
class Container:
    """One container (or init container) of a pod template, with its path in the object."""

    data: dict[str, Any]
    path: Path
    init: bool = False
    _gpus: dict[str, float] | None = field(default=None, repr=False, compare=False)

    @property
    def name(self) -> str:
        return as_str(self.data.get("name"))

    @property
    def image(self) -> str:
        return as_str(self.data.get("image"))

    def resources(self, section: str) -> dict[str, Any]:
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
        return {str(k): as_str(v) for k, v in as_dict(self.meta.get("labels")).items()}

    def all_containers(self) -> list[Container]:
        return self.containers

    def main_containers(self) -> list[Container]:
        return [c for c in self.containers if not c.init]

    def gpus(self) -> dict[str, float]:
        """GPU resources of one pod: sum over app containers, or the largest init container, plus
        the GPU devices its DRA claims request."""
        if self._gpus is not None:
            return self._gpus
        total: dict[str, float] = dict(self.claim_gpus)
        for c in self.main_containers():
            for k, v in c.gpus().items():
                total[k] = total.get(k, 0.0) + v
        for c in self.containers:
            if c.init:
                for k, v in c.gpus().items():
                    total[k] = max(total.get(k, 0.0), v)
        self._gpus = total
        return total

    def is_gpu(self) -> bool:
        return bool(self.gpus())

    def reset_gpus(self) -> None:
        """Forget the cached total (after claims were attached)."""
        self._gpus = None


def _containers(spec: dict[str, Any], path: Path) -> list[Container]:
    out: list[Container] = []
    for key, init in (("initContainers", True), ("containers", False)):
        for i, c in enumerate(as_list(spec.get(key))):
            if isinstance(c, dict):
                out.append(Container(c, (*path, key, i), init))
    return out


def _template(obj: K8sObject, path: Path, role: str = "") -> PodTemplate | None:
    """The pod template at `path` (a mapping with `metadata` and `spec`)."""
    tmpl = get(obj.data, *path)
    if not isinstance(tmpl, dict):
        return None
    spec = tmpl.get("spec")
    if not isinstance(spec, dict):
        return None
    t = PodTemplate(spec=spec, path=(*path, "spec"), meta=as_dict(tmpl.get("metadata")), role=role)
    t.containers = _containers(spec, t.path)
    return t


def _replica_specs(obj: K8sObject) -> Iterator[PodTemplate]:
    spec = as_dict(obj.data.get("spec"))
    for key in sorted(spec):
        if key.endswith("ReplicaSpecs") and isinstance(spec[key], dict):
            for role in sorted(spec[key]):
                t = _template(obj, ("spec", key, role, "template"), role)
                if t:
                    yield t


def _ray(obj: K8sObject, base: Path) -> Iterator[PodTemplate]:
    head = _template(obj, (*base, "headGroupSpec", "template"), "head")
    if head:
        yield head
    for i, group in enumerate(as_list(get(obj.data, *base, "workerGroupSpecs"))):
        if isinstance(group, dict):
            t = _template(
                obj,
                (*base, "workerGroupSpecs", i, "template"),
                as_str(group.get("groupName")) or f"worker{i}",
            )
            if t:
                yield t


def _kserve(obj: K8sObject) -> Iterator[PodTemplate]:
    """KServe components embed a PodSpec inline plus one runtime container (e.g. `model`)."""
    for comp in KSERVE_COMPONENTS:
        spec = get(obj.data, "spec", comp)
        if not isinstance(spec, dict):
            continue
        path: Path = ("spec", comp)
        t = PodTemplate(spec=spec, path=path, meta=as_dict(obj.data.get("metadata")), role=comp)
        t.containers = _containers(spec, path)
        for runtime in KSERVE_RUNTIMES:
            if isinstance(spec.get(runtime), dict):
                data = spec[runtime]
                if "name" not in data:  # KServe names the runtime container kserve-container
                    data = {**data, "name": KSERVE_CONTAINER}
                t.containers.append(Container(data, (*path, runtime)))
        yield t
        worker = spec.get("workerSpec")  # multi-node serving: the worker pods' inline PodSpec
        if isinstance(worker, dict):
            w = PodTemplate(spec=worker, path=(*path, "workerSpec"), meta=t.meta, role=f"{comp}-worker")
            w.containers = _containers(worker, w.path)
            yield w


def _trainjob(obj: K8sObject) -> Iterator[PodTemplate]:
    """Kubeflow Trainer v2 TrainJob: no pod template, the trainer block is container-like."""
    trainer = get(obj.data, "spec", "trainer")
    if not isinstance(trainer, dict):
        return
    container = dict(trainer)
    container.setdefault("name", "trainer")
    if "resourcesPerNode" in trainer:
        container["resources"] = trainer["resourcesPerNode"]
    spec, path = _trainjob_overrides(obj)
    t = PodTemplate(spec=spec, path=path, meta=as_dict(obj.data.get("metadata")), role="trainer")
    t.containers = [Container(container, ("spec", "trainer"))]
    yield t


def _trainjob_overrides(obj: K8sObject) -> tuple[dict[str, Any], Path]:
    """The pod-level fields a TrainJob sets for its trainer nodes (nodeSelector, tolerations,
    volumes): `podTemplateOverrides[].spec` (Trainer v2.1+) or inline `podSpecOverrides[]` (v2.0),
    preferring the entry that targets the `node` job. Without one, the TrainJob spec itself."""
    spec = as_dict(obj.data.get("spec"))
    for key, inner in (("podTemplateOverrides", "spec"), ("podSpecOverrides", "")):
        entries = [(i, e) for i, e in enumerate(as_list(spec.get(key))) if isinstance(e, dict)]
        targets_node = [
            (i, e)
            for i, e in entries
            if any(as_str(get(t, "name")) == "node" for t in as_list(e.get("targetJobs")))
        ]
        for i, entry in targets_node or entries:
            found = as_dict(entry.get(inner)) if inner else entry
            if found:
                return found, ("spec", key, i, *((inner,) if inner else ()))
    return spec, ("spec",)


def _generic(obj: K8sObject, node: Any, path: Path, depth: int) -> Iterator[PodTemplate]:
    """Any `template: {spec: {containers: [...]}}` nested in an unknown kind."""
    if depth > MAX_GENERIC_DEPTH or not isinstance(node, dict):
        return
    for key in sorted(node):
        child = node[key]
        if (
            key == "template"
            and isinstance(child, dict)
            and isinstance(get(child, "spec", "containers"), list)
        ):
            t = _template(obj, (*path, key))
            if t:
                yield t
        elif key in ("container", "script") and isinstance(child, dict) and "image" in child:
            # Argo Workflows-style step: one container next to pod-level fields.
            t = PodTemplate(
                spec=node, path=path, meta=as_dict(node.get("metadata")), role=as_str(node.get("name"))
            )
            t.containers = [Container(child, (*path, key))]
            yield t
        elif isinstance(child, dict):
            yield from _generic(obj, child, (*path, key), depth + 1)
        elif isinstance(child, list):
            for i, item in enumerate(child[:64]):
                yield from _generic(obj, item, (*path, key, i), depth + 1)


def pod_templates(obj: K8sObject) -> list[PodTemplate]:
    """Every pod template of a workload object (empty for non-workloads)."""
    kind = obj.kind
    if kind == "Pod":
        spec = obj.data.get("spec")
        if not isinstance(spec, dict):
            return []
        t = PodTemplate(spec=spec, path=("spec",), meta=as_dict(obj.data.get("metadata")))
        t.containers = _containers(spec, ("spec",))
        return [t]
    if kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "ReplicationController"):
        if obj.group in BUILTIN_GROUPS:
            return [t for t in [_template(obj, ("spec", "template"))] if t]
        # Same kind name from another API group (Volcano `batch.volcano.sh` Job, OpenKruise
        # CloneSet-like StatefulSet): look for its pod templates wherever they are.
        return list(_generic(obj, obj.data.get("spec"), ("spec",), 0))
    if kind == "CronJob":
        return [t for t in [_template(obj, ("spec", "jobTemplate", "spec", "template"))] if t]
    if kind == "JobSet":
        out: list[PodTemplate] = []
        for i, rj in enumerate(as_list(get(obj.data, "spec", "replicatedJobs"))):
            found = _template(
                obj, ("spec", "replicatedJobs", i, "template", "spec", "template"), as_str(get(rj, "name"))
            )
            if found:
                out.append(found)
        return out
    if kind == "LeaderWorkerSet":
        base: Path = ("spec", "leaderWorkerTemplate")
        return [
            t
            for t in (
                _template(obj, (*base, "leaderTemplate"), "leader"),
                _template(obj, (*base, "workerTemplate"), "worker"),
            )
            if t
        ]
    if kind == "RayCluster":
        return list(_ray(obj, ("spec",)))
    if kind == "RayJob":
        return list(_ray(obj, ("spec", "rayClusterSpec")))
    if kind == "RayService":
        return list(_ray(obj, ("spec", "rayClusterConfig")))
    if kind == "Service" and obj.group == KNATIVE_GROUP:
        return [t for t in [_template(obj, ("spec", "template"))] if t]
    if kind == "InferenceService":
        return list(_kserve(obj))
    if kind == "TrainJob":
        return list(_trainjob(obj))
    if kind.endswith("Job") and any(k.endswith("ReplicaSpecs") for k in as_dict(obj.data.get("spec"))):
        return list(_replica_specs(obj))
    if kind in NON_WORKLOAD_KINDS or not kind:
        return []
    return list(_generic(obj, obj.data.get("spec"), ("spec",), 0))


NON_WORKLOAD_KINDS = frozenset(
    {
        "Namespace",
        "Node",
        "ResourceQuota",
        "LimitRange",
        "NetworkPolicy",
        "Role",
        "ClusterRole",
        "RoleBinding",
        "ClusterRoleBinding",
        "ConfigMap",
        "Secret",
        "Service",
        "ServiceAccount",
        "PriorityClass",
        "ClusterPolicy",
        "LocalQueue",
        "ClusterQueue",
        "ResourceFlavor",
        "WorkloadPriorityClass",
        "CustomResourceDefinition",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "StorageClass",
        "Ingress",
        "PodDisruptionBudget",
        "HorizontalPodAutoscaler",
        "Platform",
        "ClusterConfig",
        "Endpoints",
        "EndpointSlice",
        "Event",
        "Lease",
        "DeviceClass",
        "ResourceClaim",
        "ResourceClaimTemplate",
        "ResourceSlice",
        "Configuration",
    }
)
