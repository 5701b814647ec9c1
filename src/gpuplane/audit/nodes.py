"""GPU facts read from Node objects: GPU resources, taints, driver, CUDA and sharing labels.

Label names are GPU Feature Discovery's and the GPU Operator's (see `nvidia.md` section 4 of the
shared reference, k8s-device-plugin `internal/lm` @1b826ac).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuplane.audit.objects import K8sObject, as_dict, as_list, as_str, get
from gpuplane.audit.workloads import checked_quantity, is_gpu_resource
from gpuplane.vocab import (
    CLOUD_ACCELERATOR_LABELS,
    CLOUD_NODE_POOL_LABELS,
    CUDA_DRIVER_MAJOR,
    CUDA_DRIVER_VERSION_FULL,
    CUDA_DRIVER_VERSION_MAJOR,
    CUDA_RUNTIME_MAJOR,
    CUDA_RUNTIME_VERSION_FULL,
    EKSCTL_NODEGROUP_LABEL,
    GFD_GPU_COUNT,
    GFD_GPU_PRESENT,
    GFD_GPU_PRODUCT,
    GFD_GPU_REPLICAS,
    GFD_SHARING_STRATEGY,
    GKE_GPU_SHARING_LABEL,
    KARPENTER_NODEPOOL_LABEL,
    LABEL_POOL,
    LABEL_SHARING,
    SHARED_SUFFIX,
)

# The label that names a node's pool, first match wins: gpuplane's, the provisioners', the clouds'.
POOL_LABELS = (LABEL_POOL, KARPENTER_NODEPOOL_LABEL, *CLOUD_NODE_POOL_LABELS, EKSCTL_NODEGROUP_LABEL)
# Labels that mark a GPU node besides its GPU resources (GFD's count and product, the clouds'
# accelerator labels); GFD's `gpu.present` counts only when it is "true".
GPU_NODE_LABELS = (
    GFD_GPU_COUNT,
    GFD_GPU_PRODUCT,
    *CLOUD_ACCELERATOR_LABELS,
)


@dataclass
class NodeInfo:
    """One Node's GPU-relevant facts."""

    obj: K8sObject
    resources: dict[str, int] = field(default_factory=dict)
    taints: list[tuple[str, str, str]] = field(default_factory=list)
    driver: str | None = None
    cuda: tuple[int, int] | None = None
    time_sliced: bool = False
    pool: str = ""

    @property
    def name(self) -> str:
        """The node's name."""
        return self.obj.name

    @property
    def labels(self) -> dict[str, str]:
        """The node's labels."""
        return self.obj.labels

    @property
    def gpu(self) -> bool:
        """Whether the node has GPUs (a GPU label, GPU feature discovery, or GPU resources)."""
        labels = self.labels
        if any(k in labels for k in GPU_NODE_LABELS):
            return True
        return labels.get(GFD_GPU_PRESENT) == "true" or bool(self.resources)


def _resources(obj: K8sObject) -> dict[str, int]:
    out: dict[str, int] = {}
    for section in ("capacity", "allocatable"):
        for key, value in as_dict(get(obj.data, "status", section)).items():
            if not is_gpu_resource(str(key)):
                continue
            amount = checked_quantity(obj, ("status", section, str(key)), value)
            if amount is not None and amount > 0:
                out[str(key)] = int(amount)
    return out


def _version_tuple(text: str) -> tuple[int, int] | None:
    parts = text.split(".")
    try:
        return (int(parts[0]), int(parts[1]) if len(parts) > 1 and parts[1] else 0)
    except ValueError:
        return None


def _sibling(label: str, part: str) -> str:
    """`<prefix>cuda.driver.major` -> `<prefix>cuda.driver.minor` (GFD's split version labels)."""
    return label.rsplit(".", 1)[0] + "." + part


def _driver(labels: dict[str, str]) -> str | None:
    """The node's driver version: GFD's full label, else its parts."""
    if CUDA_DRIVER_VERSION_FULL in labels:
        return labels[CUDA_DRIVER_VERSION_FULL]
    for major, parts in (
        (CUDA_DRIVER_MAJOR, ("major", "minor", "rev")),
        (CUDA_DRIVER_VERSION_MAJOR, ("major", "minor", "revision")),
    ):
        if major in labels:
            values = [labels.get(_sibling(major, p), "") for p in parts]
            return ".".join(v for v in values if v)
    return None


def node_info(obj: K8sObject) -> NodeInfo:
    """Read the GPU facts of one Node."""
    labels = obj.labels
    info = NodeInfo(obj=obj, resources=_resources(obj))
    for t in as_list(get(obj.data, "spec", "taints")):
        if isinstance(t, dict):
            info.taints.append((as_str(t.get("key")), as_str(t.get("value")), as_str(t.get("effect"))))
    info.driver = _driver(labels)
    if CUDA_RUNTIME_VERSION_FULL in labels:
        info.cuda = _version_tuple(labels[CUDA_RUNTIME_VERSION_FULL])
    elif CUDA_RUNTIME_MAJOR in labels:
        minor = labels.get(_sibling(CUDA_RUNTIME_MAJOR, "minor"), "0")
        info.cuda = _version_tuple(f"{labels[CUDA_RUNTIME_MAJOR]}.{minor}")
    replicas = checked_quantity(obj, ("metadata", "labels", GFD_GPU_REPLICAS), labels.get(GFD_GPU_REPLICAS))
    checked_quantity(obj, ("metadata", "labels", GFD_GPU_COUNT), labels.get(GFD_GPU_COUNT))
    info.time_sliced = (
        labels.get(GFD_SHARING_STRATEGY) == "time-slicing"
        or (replicas is not None and replicas > 1 and labels.get(GFD_SHARING_STRATEGY) != "mps")
        or any(k.endswith(SHARED_SUFFIX) for k in info.resources)
        or labels.get(LABEL_SHARING) == "time-slicing"
        or labels.get(GKE_GPU_SHARING_LABEL) == "time-sharing"
    )
    info.pool = next((labels[k] for k in POOL_LABELS if k in labels), "")
    return info
