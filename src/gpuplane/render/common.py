"""Small helpers every renderer shares: object metadata, labels, quantities and tolerations."""

from __future__ import annotations

import math
from typing import Any

from gpuplane import providers
from gpuplane.spec import derived
from gpuplane.spec.models import NodePool, PlatformSpec, Taint
from gpuplane.vocab import LABEL_ACCELERATOR, LABEL_CAPACITY, LABEL_MANAGED_BY, LABEL_POOL, MANAGED_BY

GPU_OPERATOR_NAMESPACE = "gpu-operator"


def managed_labels(extra: dict[str, str] | None = None) -> dict[str, str]:
    """`LABEL_MANAGED_BY: gpuplane` plus `extra`, sorted by key."""
    labels = {LABEL_MANAGED_BY: MANAGED_BY}
    labels.update(extra or {})
    return dict(sorted(labels.items()))


def metadata(
    name: str,
    namespace: str | None = None,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    """An object's metadata block in the conventional key order."""
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    meta["labels"] = managed_labels(labels)
    if annotations:
        meta["annotations"] = dict(sorted(annotations.items()))
    return meta


def k8s_object(api_version: str, kind: str, meta: dict[str, Any], **body: Any) -> dict[str, Any]:
    """apiVersion, kind, metadata, then the body keys in the order given."""
    obj: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "metadata": meta}
    obj.update({k: v for k, v in body.items() if v is not None})
    return obj


def effective_taints(spec: PlatformSpec, pool: NodePool) -> list[Taint]:
    """The pool's spec taints plus the ones its provider adds on its own (AKS spot, from the
    provider facts), which the pool's flavor must also carry."""
    taints = list(pool.taints)
    for taint in providers.get(spec.cluster.provider).pool_taints(spec, pool):
        if all(t.key != taint.key for t in taints):
            taints.append(taint)
    return taints


def taint_dict(taint: Taint) -> dict[str, str]:
    """A core/v1 Taint."""
    out = {"key": taint.key}
    if taint.value:
        out["value"] = taint.value
    out["effect"] = taint.effect
    return out


def toleration_for(taint: Taint) -> dict[str, str]:
    """The core/v1 Toleration that tolerates exactly this taint."""
    if taint.value:
        return {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect}
    return {"key": taint.key, "operator": "Exists", "effect": taint.effect}


def cpu_quantity(cores: float) -> int | str:
    """CPU as a Kubernetes quantity, rounded down to whole millicores (never above the node)."""
    milli = math.floor(cores * 1000 + 1e-6)
    return milli // 1000 if milli % 1000 == 0 else f"{milli}m"


def memory_quantity(gib: float) -> str:
    """Memory as a Kubernetes quantity in Gi, or Mi rounded down when not whole GiB."""
    mib = math.floor(gib * 1024 + 1e-6)
    return f"{mib // 1024}Gi" if mib % 1024 == 0 else f"{mib}Mi"


def number(value: float) -> int | str:
    """An int when whole, else a decimal string (Kueue quantities accept both)."""
    return int(value) if float(value).is_integer() else f"{value:g}"


def gpu_pools(spec: PlatformSpec) -> list[NodePool]:
    """The pools with GPUs, in spec order."""
    return [p for p in spec.node_pools if p.is_gpu]


def cost_tags(spec: PlatformSpec, pool: NodePool) -> dict[str, str]:
    """Cloud resource tags/labels for billing, carrying the same schema as the node labels.

    Keys use `-` instead of `/` and values are lowercase, which Azure tags, GCE labels and AWS
    tags all accept.
    """
    labels = derived.node_labels(pool)
    tags = {"gpuplane-cluster": spec.cluster.name}
    for key in (LABEL_POOL, LABEL_ACCELERATOR, LABEL_CAPACITY):
        if key in labels:
            tags["gpuplane-" + key.split("/", 1)[1]] = labels[key].lower()
    return dict(sorted(tags.items()))
