"""GPU facts read from Node objects: GPU resources, taints, driver, CUDA and sharing labels.

Label names are GPU Feature Discovery's and the GPU Operator's (see `nvidia.md` section 4 of the
shared reference, k8s-device-plugin `internal/lm` @1b826ac).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuplane.audit.objects import K8sObject, as_dict, as_list, as_str, get
from gpuplane.audit.workloads import checked_quantity, is_gpu_resource
from gpuplane.vocab import GFD_GPU_COUNT, GFD_GPU_REPLICAS

POOL_LABELS = (
    "gpuplane.io/pool",
    "karpenter.sh/nodepool",
    "eks.amazonaws.com/nodegroup",
    "alpha.eksctl.io/nodegroup-name",
    "kubernetes.azure.com/agentpool",
    "agentpool",
    "cloud.google.com/gke-nodepool",
)
GPU_NODE_LABELS = (
    "nvidia.com/gpu.present",
    "nvidia.com/gpu.count",
    "nvidia.com/gpu.product",
    "cloud.google.com/gke-accelerator",
    "kubernetes.azure.com/accelerator",
    "k8s.amazonaws.com/accelerator",
)


@dataclass
class NodeInfo:
    """One Node's GPU-relevant facts."""

    obj: K8sObject
    resources: dict[str, int] = field(default_factory=dict)
    taints: list[tuple[str, str, str]] = field(default_factory=list)
    driver: str | None = None
    driver_label: str = ""
    cuda: tuple[int, int] | None = None
    time_sliced: bool = False
    pool: str = ""

    @property
    def name(self) -> str:
        return self.obj.name

    @property
    def labels(self) -> dict[str, str]:
        return self.obj.labels

    @property
    def gpu(self) -> bool:
        labels = self.labels
        if any(k in labels for k in GPU_NODE_LABELS if k != "nvidia.com/gpu.present"):
            return True
        return labels.get("nvidia.com/gpu.present") == "true" or bool(self.resources)


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


def node_info(obj: K8sObject) -> NodeInfo:
    """Read the GPU facts of one Node."""
    labels = obj.labels
    info = NodeInfo(obj=obj, resources=_resources(obj))
    for t in as_list(get(obj.data, "spec", "taints")):
        if isinstance(t, dict):
            info.taints.append((as_str(t.get("key")), as_str(t.get("value")), as_str(t.get("effect"))))
    if "nvidia.com/cuda.driver-version.full" in labels:
        info.driver, info.driver_label = (
            labels["nvidia.com/cuda.driver-version.full"],
            "nvidia.com/cuda.driver-version.full",
        )
    elif "nvidia.com/cuda.driver.major" in labels:
        parts = [labels.get(f"nvidia.com/cuda.driver.{p}", "") for p in ("major", "minor", "rev")]
        info.driver, info.driver_label = ".".join(p for p in parts if p), "nvidia.com/cuda.driver.major"
    elif "nvidia.com/cuda.driver-version.major" in labels:
        parts = [
            labels.get(f"nvidia.com/cuda.driver-version.{p}", "") for p in ("major", "minor", "revision")
        ]
        info.driver, info.driver_label = (
            ".".join(p for p in parts if p),
            "nvidia.com/cuda.driver-version.major",
        )
    if "nvidia.com/cuda.runtime-version.full" in labels:
        info.cuda = _version_tuple(labels["nvidia.com/cuda.runtime-version.full"])
    elif "nvidia.com/cuda.runtime.major" in labels:
        info.cuda = _version_tuple(
            f"{labels['nvidia.com/cuda.runtime.major']}.{labels.get('nvidia.com/cuda.runtime.minor', '0')}"
        )
    replicas = checked_quantity(obj, ("metadata", "labels", GFD_GPU_REPLICAS), labels.get(GFD_GPU_REPLICAS))
    checked_quantity(obj, ("metadata", "labels", GFD_GPU_COUNT), labels.get(GFD_GPU_COUNT))
    info.time_sliced = (
        labels.get("nvidia.com/gpu.sharing-strategy") == "time-slicing"
        or (replicas is not None and replicas > 1 and labels.get("nvidia.com/gpu.sharing-strategy") != "mps")
        or any(k.endswith(".shared") for k in info.resources)
        or labels.get("gpuplane.io/sharing") == "time-slicing"
        or labels.get("cloud.google.com/gke-gpu-sharing-strategy") == "time-sharing"
    )
    info.pool = next((labels[k] for k in POOL_LABELS if k in labels), "")
    return info
