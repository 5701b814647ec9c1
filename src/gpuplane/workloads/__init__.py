"""Every workload kind gpuplane reads, in one registry: where its pods are, how Kueue queues it.

Used by `audit` (pod templates, to judge GPU requests, tolerations, images...) and by `explain`
(the Workloads Kueue's jobframework would create: pod sets, counts, names). One module per family:

- `batch`    batch/v1 Job and CronJob, JobSet
- `kubeflow` PyTorchJob, TFJob, XGBoostJob, PaddleJob, JAXJob, MPIJob, TrainJob
- `ray`      RayJob, RayCluster, RayService
- `apps`     Pod (and pod groups), Deployment, StatefulSet, DaemonSet, ReplicaSet, LeaderWorkerSet
- `serving`  KServe InferenceService, Knative Service (no Kueue integration)

Usage::

    from gpuplane.workloads import lookup, pod_templates

    kind = lookup(obj)                 # WorkloadKind or None
    templates = pod_templates(obj)     # [PodTemplate] (generic search for unknown kinds)
    if kind and kind.kueue:
        specs = kind.kueue.workloads(obj, lookup_other_objects)   # [WorkloadSpec]

Unknown kinds that ask for GPUs in a shape no reader understands are reported by
`not_understood(obj)` instead of being skipped silently.
"""

from __future__ import annotations

from gpuplane.workloads import apps, batch, kubeflow, ray, serving  # noqa: F401  (register the kinds)
from gpuplane.workloads.fields import Path, api_group, as_dict, as_int, as_list, as_str, get
from gpuplane.workloads.model import (
    GPU_RESOURCE_PREFIXES,
    Container,
    PodSetSpec,
    PodTemplate,
    WorkloadSpec,
    is_gpu_resource,
    quantity,
)
from gpuplane.workloads.registry import (
    BATCH,
    CATEGORIES,
    NODE_AGENT,
    NON_WORKLOAD_KINDS,
    POD,
    SERVING,
    TRAINING,
    KueueIntegration,
    Lookup,
    NotModelled,
    WorkloadKind,
    kind_names,
    kinds,
    lookup,
    not_understood,
    pod_templates,
    register,
    register_fallback,
)

__all__ = [
    "BATCH",
    "CATEGORIES",
    "GPU_RESOURCE_PREFIXES",
    "NODE_AGENT",
    "NON_WORKLOAD_KINDS",
    "POD",
    "SERVING",
    "TRAINING",
    "Container",
    "KueueIntegration",
    "Lookup",
    "NotModelled",
    "Path",
    "PodSetSpec",
    "PodTemplate",
    "WorkloadKind",
    "WorkloadSpec",
    "api_group",
    "as_dict",
    "as_int",
    "as_list",
    "as_str",
    "get",
    "is_gpu_resource",
    "kind_names",
    "kinds",
    "lookup",
    "not_understood",
    "pod_templates",
    "quantity",
    "register",
    "register_fallback",
]
