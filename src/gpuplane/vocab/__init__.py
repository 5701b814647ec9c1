"""Every label, annotation, taint and resource name gpuplane uses, defined once.

gpuplane's own names (`gpuplane.io/...`) are decisions of this project and are written here.
Names that other systems define (NVIDIA's device plugin and feature discovery, Kueue,
Kubernetes) are facts and come from `vocab/names.yaml`, which cites where each is
defined. spec, render, sharing, sim, audit, account and explain import from here; nothing else
spells these strings.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import Any

import yaml

# -- gpuplane's own label schema (node labels, workload labels, cost tags) --------------------
GROUP = "gpuplane.io"
SPEC_VERSION = "v1alpha1"
SPEC_API_VERSION = f"{GROUP}/{SPEC_VERSION}"
SPEC_SCHEMA_ID = f"https://{GROUP}/schemas/platform-{SPEC_VERSION}.json"  # `$id` of `gpuplane spec schema`
LABEL_POOL = f"{GROUP}/pool"
LABEL_ACCELERATOR = f"{GROUP}/accelerator"
LABEL_SHARING = f"{GROUP}/sharing"
LABEL_CAPACITY = f"{GROUP}/capacity"
LABEL_TEAM = f"{GROUP}/team"
LABEL_CLASS = f"{GROUP}/workload-class"
LABEL_KUEUE_MANAGED = f"{GROUP}/kueue-managed"
ANNOTATION_IGNORE = f"{GROUP}/ignore"
LABEL_ACCEPTANCE = f"{GROUP}/acceptance"  # the acceptance suite an object belongs to (runner cleanup)
LABEL_ACCEPTANCE_STEP = f"{GROUP}/acceptance-step"
LABEL_ACCEPTANCE_RUN = f"{GROUP}/acceptance-run"  # the run id of `acceptance run` on what that run created
ANNOTATION_ACCEPTANCE_RUN = f"{GROUP}/acceptance-run"  # who created the namespace and when it goes
ANNOTATION_DEFAULT_PRIORITY = f"{GROUP}/default-priority-class"
ANNOTATION_EXPECTED_RUNTIME = f"{GROUP}/expected-runtime"
MANAGED_BY = "gpuplane"
# DRA: the quota names Kueue maps gpuplane's DeviceClasses to, and the classes' name suffix.
DRA_RESOURCE_PREFIX = f"dra.{GROUP}/"
DRA_CLASS_SUFFIX = f".{GROUP}"


@cache
def _names() -> dict[str, Any]:
    text = (resources.files("gpuplane.vocab") / "names.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def _n(*path: str) -> str:
    node: Any = _names()
    for key in path:
        node = node[key]
    return str(node)


# -- NVIDIA (device plugin, GPU feature discovery, mig-parted, GPU Operator) ------------------
NVIDIA_PREFIX = _n("nvidia", "resource_prefix")
GPU_RESOURCE = _n("nvidia", "gpu_resource")
MIG_RESOURCE_PREFIX = _n("nvidia", "mig_resource_prefix")
SHARED_SUFFIX = _n("nvidia", "shared_suffix")
GPU_SHARED_RESOURCE = GPU_RESOURCE + SHARED_SUFFIX
GPU_TAINT_KEY = _n("nvidia", "gpu_taint", "key")
GPU_TAINT_VALUE = _n("nvidia", "gpu_taint", "value")
GPU_TAINT_EFFECT = _n("nvidia", "gpu_taint", "effect")
GFD_GPU_PRESENT = _n("nvidia", "labels", "gpu_present")
GFD_GPU_COUNT = _n("nvidia", "labels", "gpu_count")
GFD_GPU_PRODUCT = _n("nvidia", "labels", "gpu_product")
GFD_GPU_MEMORY = _n("nvidia", "labels", "gpu_memory")
GFD_GPU_REPLICAS = _n("nvidia", "labels", "gpu_replicas")
GFD_SHARING_STRATEGY = _n("nvidia", "labels", "gpu_sharing_strategy")
MIG_CONFIG_LABEL = _n("nvidia", "labels", "mig_config")
MIG_STRATEGY_LABEL = _n("nvidia", "labels", "mig_strategy")
MIG_CAPABLE_LABEL = _n("nvidia", "labels", "mig_capable")
DEVICE_PLUGIN_CONFIG_LABEL = _n("nvidia", "labels", "device_plugin_config")
CUDA_DRIVER_VERSION_FULL = _n("nvidia", "labels", "cuda_driver_version_full")
CUDA_DRIVER_MAJOR = _n("nvidia", "labels", "cuda_driver_major")
CUDA_DRIVER_VERSION_MAJOR = _n("nvidia", "labels", "cuda_driver_version_major")
CUDA_RUNTIME_VERSION_FULL = _n("nvidia", "labels", "cuda_runtime_version_full")
CUDA_RUNTIME_MAJOR = _n("nvidia", "labels", "cuda_runtime_major")
AMD_GPU_RESOURCE = _n("other_gpu_resources", "amd_gpu")
DEPLOY_DEVICE_PLUGIN_LABEL = _n("nvidia", "labels", "deploy_device_plugin")

# -- NVIDIA DRA driver ------------------------------------------------------------------------
DRA_DRIVER = _n("nvidia_dra", "driver")
DRA_GPU_CLASS = _n("nvidia_dra", "gpu_device_class")
DRA_MIG_CLASS = _n("nvidia_dra", "mig_device_class")
DRA_ATTRIBUTE_DOMAIN = _n("nvidia_dra", "attribute_domain")
DRA_CONFIG_API_VERSION = _n("nvidia_dra", "config_api_version")
DRA_GPU_CONFIG_KIND = _n("nvidia_dra", "gpu_config_kind")
DRA_SHARING_STRATEGIES: dict[str, str] = dict(_names()["nvidia_dra"]["strategies"])

# -- Kueue ------------------------------------------------------------------------------------
KUEUE_GROUP = _n("kueue", "group")
QUEUE_NAME_LABEL = _n("kueue", "queue_name_label")
PRIORITY_CLASS_LABEL = _n("kueue", "priority_class_label")
POD_GROUP_NAME_LABEL = _n("kueue", "pod_group_name_label")
POD_GROUP_TOTAL_COUNT_ANNOTATION = _n("kueue", "pod_group_total_count_annotation")
JOB_MIN_PARALLELISM_ANNOTATION = _n("kueue", "job_min_parallelism_annotation")
KUEUE_CONFIG_GROUP = _n("kueue", "config_group")
TAS_ANNOTATIONS: tuple[str, ...] = tuple(str(a) for a in _names()["kueue"]["tas_annotations"])
POD_ROLE_HASH_ANNOTATION = _n("kueue", "pod_role_hash_annotation")
POD_GROUP_FAST_ADMISSION_ANNOTATION = _n("kueue", "pod_group_fast_admission_annotation")
KUEUE_ADMISSION_GATE = _n("kueue", "admission_gate")
MAX_EXEC_TIME_SECONDS_LABEL = _n("kueue", "max_exec_time_seconds_label")
DEFAULT_LOCAL_QUEUE = _n("kueue", "default_local_queue")
DEFAULT_WORKLOAD_PRIORITY_CLASS = _n("kueue", "default_workload_priority_class")

# -- Kueue topology-aware scheduling (pod template annotations, the gate, the hostname level) -----
TAS_REQUIRED_ANNOTATION = _n("kueue_tas", "required_topology")
TAS_PREFERRED_ANNOTATION = _n("kueue_tas", "preferred_topology")
TAS_UNCONSTRAINED_ANNOTATION = _n("kueue_tas", "unconstrained_topology")
TAS_SLICE_REQUIRED_ANNOTATION = _n("kueue_tas", "slice_required_topology")
TAS_SLICE_SIZE_ANNOTATION = _n("kueue_tas", "slice_size")
TAS_PODSET_GROUP_ANNOTATION = _n("kueue_tas", "podset_group_name")
TAS_TOPOLOGY_GATE = _n("kueue_tas", "topology_gate")
HOSTNAME_LABEL = _n("kueue_tas", "hostname_label")
PROVISIONING_REQUEST_CONTROLLER = _n("kueue_tas", "provisioning_request_controller")

# -- Kubernetes -------------------------------------------------------------------------------
LABEL_MANAGED_BY = _n("kubernetes", "managed_by_label")
INSTANCE_TYPE_LABEL = _n("kubernetes", "instance_type_label")
ZONE_LABEL = _n("kubernetes", "zone_label")
DRA_GROUP = _n("kubernetes", "dra_group")
DRA_QUOTA_SUFFIX = _n("kubernetes", "dra_quota_suffix")
JOB_NAME_LABEL = _n("kubernetes_workloads", "job_name_label")
APP_NAME_LABEL = _n("kubernetes_workloads", "app_name_label")
APP_COMPONENT_LABEL = _n("kubernetes_workloads", "app_component_label")

# -- Node provisioners: the label Karpenter and eksctl put on the nodes of a pool ------------------
KARPENTER_GROUP = _n("node_provisioners", "karpenter_group")
KARPENTER_NODEPOOL_LABEL = _n("node_provisioners", "karpenter_nodepool")
KARPENTER_CAPACITY_TYPE_LABEL = _n("node_provisioners", "karpenter_capacity_type")
#: NodePool requirement keys that only GPU instance types have (AWS, EKS Auto Mode, Azure providers).
KARPENTER_GPU_KEYS: tuple[str, ...] = tuple(_names()["node_provisioners"]["karpenter_gpu_keys"])
KARPENTER_INSTANCE_FAMILY_KEYS: tuple[str, ...] = tuple(
    _names()["node_provisioners"]["karpenter_instance_family_keys"]
)
KARPENTER_INSTANCE_CATEGORY_KEYS: tuple[str, ...] = tuple(
    _names()["node_provisioners"]["karpenter_instance_category_keys"]
)
EKSCTL_NODEGROUP_LABEL = _n("node_provisioners", "eksctl_nodegroup")

# -- Helm's standard chart labels ----------------------------------------------------------------
HELM_CHART_LABEL = _n("helm_labels", "chart_label")
APP_VERSION_LABEL = _n("helm_labels", "app_version_label")

# -- Cloud GPU node labels: what marks a GPU node on each cloud ----------------------------------
GKE_ACCELERATOR_LABEL = _n("cloud_gpu_labels", "gke_accelerator")
GKE_GPU_SHARING_LABEL = _n("cloud_gpu_labels", "gke_gpu_sharing_strategy")
AKS_ACCELERATOR_LABEL = _n("cloud_gpu_labels", "aks_accelerator")
EKS_ACCELERATOR_LABEL = _n("cloud_gpu_labels", "eks_accelerator")
CLOUD_ACCELERATOR_LABELS = (GKE_ACCELERATOR_LABEL, AKS_ACCELERATOR_LABEL, EKS_ACCELERATOR_LABEL)

# -- Cloud node pools: the label each managed node pool puts on its nodes ----------------------
AKS_AGENTPOOL_LABEL = _n("cloud", "node_pool_labels", "aks_agentpool")
AKS_LEGACY_AGENTPOOL_LABEL = _n("cloud", "node_pool_labels", "aks_legacy_agentpool")
GKE_NODEPOOL_LABEL = _n("cloud", "node_pool_labels", "gke_nodepool")
EKS_NODEGROUP_LABEL = _n("cloud", "node_pool_labels", "eks_nodegroup")
#: The cloud node-pool labels, in the order `account` trusts them after `gpuplane.io/pool`.
CLOUD_NODE_POOL_LABELS = (
    AKS_AGENTPOOL_LABEL,
    AKS_LEGACY_AGENTPOOL_LABEL,
    GKE_NODEPOOL_LABEL,
    EKS_NODEGROUP_LABEL,
)
NAMESPACE_NAME_LABEL = _n("kubernetes", "namespace_name_label")
POD_SECURITY_ENFORCE_LABEL = _n("pod_security", "enforce_label")
POD_SECURITY_WARN_LABEL = _n("pod_security", "warn_label")
POD_SECURITY_AUDIT_LABEL = _n("pod_security", "audit_label")
#: Cluster autoscaler's Auto Scaling Group tags describing a zero-size group's nodes.
AUTOSCALER_NODE_TEMPLATE_TAG = _n("cluster_autoscaler", "node_template_tag_prefix")

# -- dcgm-exporter ----------------------------------------------------------------------------
#: One series per pod sharing a GPU (time-slicing, MPS) instead of one naming a single pod.
DCGM_VIRTUAL_GPUS_ENV = _n("dcgm_exporter", "virtual_gpus_env")
DCGM_VIRTUAL_GPUS_FLAG = _n("dcgm_exporter", "virtual_gpus_flag")


def mig_resource(profile: str) -> str:
    """The mixed-strategy extended resource of a MIG profile (k8s-device-plugin: '+' -> '.')."""
    return MIG_RESOURCE_PREFIX + profile.replace("+", ".")


def is_mig_resource(name: str) -> bool:
    """True for `<mig prefix><profile>` (and its `.shared` time-sliced form)."""
    return name.startswith(MIG_RESOURCE_PREFIX)


def is_dra_resource(name: str) -> bool:
    """True for a quota name Kueue charges gpuplane's DRA DeviceClasses to (`dra.gpuplane.io/...`)."""
    return name.startswith(DRA_RESOURCE_PREFIX)


def ksm_label(name: str) -> str:
    """kube-state-metrics' series label for a Kubernetes label: `gpuplane.io/pool` -> `label_gpuplane_io_pool`.

    kube-state-metrics internal/store/utils.go `labelName` (v2.20): `label_` + the key with
    `[^a-zA-Z0-9_]` -> `_`, then snake-cased (`([a-z0-9])([A-Z])` -> `$1_$2`) and lower-cased.
    """
    return "label_" + re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", ksm_resource(name)).lower()


def ksm_resource(name: str) -> str:
    """kube-state-metrics' spelling of a resource name: `nvidia.com/mig-1g.10gb` -> `nvidia_com_mig_1g_10gb`.

    kube-state-metrics internal/store/utils.go sanitizes with `[^a-zA-Z0-9_]` -> `_` (v2.20).
    """
    return re.sub(r"[^a-zA-Z0-9_]", "_", name)


# -- fabric devices (AWS EFA device plugin, NVIDIA Network Operator RDMA shared device plugin) --
EFA_RESOURCE = _n("fabric_devices", "efa_resource")
RDMA_SHARED_RESOURCE = _n("fabric_devices", "rdma_shared_resource")
#: Fabric device resources by the key `acceptance/data/fabrics.yaml` names them with.
FABRIC_RESOURCES = {"efa": EFA_RESOURCE, "rdma_shared": RDMA_SHARED_RESOURCE}
JOB_COMPLETION_INDEX_ANNOTATION = _n("job_identity", "job_completion_index_annotation")
