"""Everything one audit run knows, indexed for the rules: objects, workloads, nodes, pools.

Also the shared judgements rules agree on: which objects are GPU system components, which
namespaces are tenants', what class a workload is, and whether it lands on spot capacity.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from gpuplane.audit.claims import attach_claim_gpus
from gpuplane.audit.config import AuditConfig
from gpuplane.audit.images import image_repository
from gpuplane.audit.nodes import POOL_LABELS, NodeInfo, node_info
from gpuplane.audit.objects import K8sObject, Path, as_dict, as_list, as_str, get
from gpuplane.audit.pools import Pool
from gpuplane.audit.readers import Inputs
from gpuplane.audit.specinput import SpecInput
from gpuplane.audit.workloads import (
    BATCH_KINDS,
    SERVING_KINDS,
    PodTemplate,
    check_gpu_quantities,
    pod_templates,
)
from gpuplane.catalog.providers import provider_facts
from gpuplane.vocab import AMD_GPU_RESOURCE, GPU_TAINT_KEY, LABEL_CAPACITY
from gpuplane.workloads import SERVING, TRAINING, kind_names, lookup

CLUSTER_SCOPED = frozenset(
    {
        "Namespace",
        "Node",
        "ClusterRole",
        "ClusterRoleBinding",
        "PriorityClass",
        "ClusterPolicy",
        "ClusterQueue",
        "ResourceFlavor",
        "WorkloadPriorityClass",
        "DeviceClass",
        "ResourceSlice",
        "CustomResourceDefinition",
        "PersistentVolume",
        "StorageClass",
        "NVIDIADriver",
        "GPUOperatorValues",
        "MigPartedConfig",
        "DRADriverValues",
        "DevicePluginValues",
        "Cohort",
        "RuntimeClass",
    }
)
NAMESPACED_CLUSTER_KINDS = frozenset({"ClusterServiceVersion"})  # OLM: namespaced despite its name
TRAINING_KINDS = kind_names(TRAINING)  # the workload registry's training kinds


def _category(data: dict[str, object]) -> str:
    """The workload registry's category of an object ('' for a kind it does not know)."""
    found = lookup(data)
    return found.category if found is not None else ""


GPU_TAINT_KEYS = frozenset({GPU_TAINT_KEY, AMD_GPU_RESOURCE})


@dataclass
class Workload:
    """A workload object and its pod templates."""

    obj: K8sObject
    templates: list[PodTemplate]
    namespace: str

    def gpu_templates(self) -> list[PodTemplate]:
        """The pod templates that request GPUs."""
        return [t for t in self.templates if t.is_gpu()]

    def is_gpu(self) -> bool:
        """Whether any pod template requests GPUs."""
        return any(t.is_gpu() for t in self.templates)

    def labels(self) -> dict[str, str]:
        """Labels of the object merged with those of its pod templates."""
        merged: dict[str, str] = {}
        for t in self.templates:
            merged.update(t.labels)
        if self.obj.kind == "CronJob":  # the Jobs it creates carry jobTemplate.metadata.labels
            job_labels = as_dict(get(self.obj.data, "spec", "jobTemplate", "metadata", "labels"))
            merged.update({str(k): as_str(v) for k, v in job_labels.items()})
        merged.update(self.obj.labels)
        return merged


def selector(t: PodTemplate) -> dict[str, set[str]]:
    """Node labels a pod template requires: nodeSelector plus required node-affinity `In` terms."""
    out: dict[str, set[str]] = {str(k): {as_str(v)} for k, v in as_dict(t.spec.get("nodeSelector")).items()}
    terms = as_list(
        get(
            t.spec,
            "affinity",
            "nodeAffinity",
            "requiredDuringSchedulingIgnoredDuringExecution",
            "nodeSelectorTerms",
        )
    )
    if len(terms) == 1:  # several terms are ORed: only a single term is a hard requirement
        for expr in as_list(get(terms[0], "matchExpressions")):
            if isinstance(expr, dict) and as_str(expr.get("operator")) == "In":
                out.setdefault(as_str(expr.get("key")), set()).update(
                    as_str(v) for v in as_list(expr.get("values"))
                )
    return out


# Audit pool sources and the provider whose facts (catalog/data/providers.yaml) describe their nodes.
_SOURCE_PROVIDER = {"aks": "aks", "gke": "gke", "eksctl": "eks"}


def pool_labels(pool: Pool) -> dict[str, str]:
    """Labels every node of a pool carries, including the provider's pool and capacity labels (the
    spot label from the provider facts; EKS labels on-demand nodes too)."""
    labels = dict(pool.labels)
    for key in POOL_LABELS:
        labels.setdefault(key, pool.name)
    name = _SOURCE_PROVIDER.get(pool.source)
    spot = provider_facts(name)["spot"] if name else None
    label = spot.get("label") if spot else None
    if spot is not None and isinstance(label, dict):
        if pool.spot:
            labels[label["key"]] = label["value"]
        elif spot.get("on_demand_value"):
            labels[label["key"]] = spot.get("on_demand_value")
    labels.setdefault(LABEL_CAPACITY, "spot" if pool.spot else "on-demand")
    return labels


@dataclass
class Bundle:
    """The indexed inputs of one audit run."""

    config: AuditConfig
    objects: list[K8sObject]
    pools: list[Pool]
    specs: list[SpecInput]
    live: bool = False
    workloads: list[Workload] = field(default_factory=list)
    pods: list[Workload] = field(default_factory=list)
    nodes: list[NodeInfo] = field(default_factory=list)
    namespaces: dict[str, K8sObject] = field(default_factory=dict)
    by_ns: dict[str, dict[str, list[K8sObject]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    by_kind: dict[str, list[K8sObject]] = field(default_factory=lambda: defaultdict(list))
    priority_values: dict[str, int] = field(default_factory=dict)
    _system: dict[tuple[str, str], bool] = field(default_factory=dict, repr=False)
    _system_images: dict[int, bool] = field(default_factory=dict, repr=False)
    _gpu_workloads: dict[bool, list[Workload]] = field(default_factory=dict, repr=False)
    _taint_keys: set[str] | None = field(default=None, repr=False)

    @classmethod
    def build(cls, inputs: Inputs, config: AuditConfig) -> Bundle:
        """Index the inputs by kind, namespace and node for the rules."""
        b = cls(
            config=config, objects=inputs.objects, pools=inputs.pools, specs=inputs.specs, live=inputs.live
        )
        for obj in inputs.objects:
            b.by_kind[obj.kind].append(obj)
            ns = b.ns_of(obj)
            if ns:
                b.by_ns[ns][obj.kind].append(obj)
            if obj.kind == "Namespace" and obj.name:
                b.namespaces[obj.name] = obj
            elif obj.kind == "Node":
                b.nodes.append(node_info(obj))
            elif obj.kind == "PriorityClass" and isinstance(obj.data.get("value"), int):
                b.priority_values[obj.name] = obj.data["value"]
            templates = pod_templates(obj)
            check_gpu_quantities(obj, templates)
            if templates:
                w = Workload(obj, templates, ns)
                if obj.kind == "Pod":
                    b.pods.append(w)
                owned = obj.kind == "Pod" and any(
                    isinstance(o, dict) and o.get("controller")
                    for o in as_list(get(obj.data, "metadata", "ownerReferences"))
                )
                if not owned:
                    b.workloads.append(w)
        attach_claim_gpus(b)
        return b

    # --- identity and tenancy -------------------------------------------------------------

    def ns_of(self, obj: K8sObject) -> str:
        """Effective namespace: `default` for namespaced objects that name none. Cluster-scoped
        kinds have none: the known ones, and by the Kubernetes naming convention every `Cluster*`
        kind (ClusterRole, ClusterTrainingRuntime, ClusterServingRuntime...)."""
        cluster_named = obj.kind.startswith("Cluster") and obj.kind not in NAMESPACED_CLUSTER_KINDS
        if obj.kind in CLUSTER_SCOPED or cluster_named or not obj.kind:
            return ""
        return obj.namespace or "default"

    def is_system(self, obj: K8sObject) -> bool:
        """A GPU system component: by namespace and name (`systemComponents`), or a node agent
        (DaemonSet) outside tenant namespaces whose every container runs an NVIDIA system image
        (`systemImages`): NVIDIA's static manifests name no namespace, so they land in `default`."""
        key = (self.ns_of(obj), obj.name)
        if key not in self._system:
            self._system[key] = self.config.is_system(*key)
        return self._system[key] or self._system_node_agent(obj)

    def _system_node_agent(self, obj: K8sObject) -> bool:
        if obj.kind != "DaemonSet" or obj.group != "apps" or self.is_tenant_ns(self.ns_of(obj)):
            return False
        if id(obj) not in self._system_images:
            containers = [c for t in pod_templates(obj) for c in t.containers]
            self._system_images[id(obj)] = bool(containers) and all(
                self.config.is_system_image(image_repository(c.image)) for c in containers
            )
        return self._system_images[id(obj)]

    def is_tenant_ns(self, ns: str) -> bool:
        """Whether `ns` is a tenant's namespace (named, and not a platform namespace)."""
        return bool(ns) and not self.config.is_platform_namespace(ns)

    def ns_known(self, ns: str) -> bool:
        """Whether the input shows enough of a namespace to judge namespace-wide rules."""
        if self.live or ns in self.namespaces:
            return True
        kinds = self.by_ns.get(ns, {})
        return any(kinds.get(k) for k in ("ResourceQuota", "NetworkPolicy", "LimitRange", "LocalQueue"))

    def judges_ns(self, ns: str, policy_kind: str) -> bool:
        """Whether a namespace-wide rule about `policy_kind` objects can judge `ns`: the namespace is
        shown in the input, or the input carries such policies for some namespace (a platform bundle)."""
        return self.ns_known(ns) or bool(self.by_kind.get(policy_kind))

    def in_ns(self, ns: str, kind: str) -> list[K8sObject]:
        """The objects of `kind` in namespace `ns`."""
        return list(self.by_ns.get(ns, {}).get(kind, []))

    def gpu_workloads(self, *, system: bool = False) -> list[Workload]:
        """GPU workloads, without GPU system components unless `system`."""
        if system not in self._gpu_workloads:
            self._gpu_workloads[system] = [
                w for w in self.workloads if w.is_gpu() and (system or not self.is_system(w.obj))
            ]
        return self._gpu_workloads[system]

    # --- classes and capacity -------------------------------------------------------------

    def workload_class(self, w: Workload) -> str:
        """training, batch, inference or '' (unknown), from class labels, else from the kind."""
        labels = w.labels()
        for key in self.config.class_labels:
            value = labels.get(key, "").lower()
            if "train" in value:
                return "training"
            if "batch" in value:
                return "batch"
            if "infer" in value or "serv" in value:
                return "inference"
            if value:
                return value
        kind = w.obj.kind
        if kind == "InferenceService":
            return "inference"
        if kind in TRAINING_KINDS:
            return "training"
        if kind in BATCH_KINDS - {"RayCluster"} or (
            kind == "Pod" and as_str(get(w.obj.data, "spec", "restartPolicy")) in ("Never", "OnFailure")
        ):
            return "batch"
        if kind in SERVING_KINDS and w.is_gpu() and _category(w.obj.data) == SERVING:
            return "inference"
        registered = lookup(w.obj.data)  # serving kinds of the workload registry (LLMInferenceService...)
        if registered is not None and registered.category == SERVING and w.is_gpu():
            return "inference"
        return ""

    def gpu_taint_keys(self) -> set[str]:
        """Taint keys that keep pods off GPU nodes: the usual ones plus those the input's GPU nodes and pools carry."""
        if self._taint_keys is not None:
            return self._taint_keys
        keys = set(GPU_TAINT_KEYS)
        spot = set(self.config.spot_taints)
        for p in self.pools:
            if p.gpu:
                keys.update(
                    t[0] for t in p.taints if t[2] in ("NoSchedule", "NoExecute") and t[0] not in spot
                )
        for n in self.nodes:
            if n.gpu:
                keys.update(
                    t[0] for t in n.taints if t[2] in ("NoSchedule", "NoExecute") and t[0] not in spot
                )
        self._taint_keys = keys
        return keys

    def matching_pools(self, t: PodTemplate, *, gpu_only: bool = True) -> list[Pool]:
        """Pools a template can land on: those whose labels satisfy every selector key they define."""
        sel = selector(t)
        out = []
        for p in self.pools:
            if gpu_only and not p.gpu:
                continue
            labels = pool_labels(p)
            relevant = [k for k in sel if k in labels]
            if all(labels[k] in sel[k] for k in relevant):
                out.append(p)
        return out

    def matching_nodes(self, t: PodTemplate) -> list[NodeInfo]:
        """The GPU nodes whose labels satisfy the template's node selector."""
        sel = selector(t)
        return [n for n in self.nodes if n.gpu and all(n.labels.get(k) in v for k, v in sel.items())]

    def spot_reason(self, t: PodTemplate) -> tuple[str, Path] | None:
        """Why a template lands on spot capacity, with the offending field; None if it does not."""
        spot_labels = self.config.spot_node_labels
        hard = selector(t)
        for key, values in sorted(hard.items()):
            if key in spot_labels and spot_labels[key].lower() in {v.lower() for v in values}:
                where: Path = (
                    ("nodeSelector", key) if key in as_dict(t.spec.get("nodeSelector")) else ("affinity",)
                )
                return (f"requires node label {key}={spot_labels[key]}", (*t.path, *where))
        if hard:
            pools = self.matching_pools(t)
            named = [p for p in pools if any(k in pool_labels(p) for k in hard)]
            if named and all(p.spot for p in named):
                field_ = ("nodeSelector",) if t.spec.get("nodeSelector") else ("affinity",)
                return (f"selects spot node pool {named[0].name}", (*t.path, *field_))
        for i, tol in enumerate(as_list(t.spec.get("tolerations"))):
            if isinstance(tol, dict) and as_str(tol.get("key")) in self.config.spot_taints:
                return (f"tolerates the spot taint {as_str(tol.get('key'))}", (*t.path, "tolerations", i))
        return None
