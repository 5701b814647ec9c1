"""AKS: one `az aks nodepool add` per pool, with taints, labels, zones, the cluster autoscaler
(min 0 allowed), spot priority with eviction policy Delete and max price, and `--gpu-driver none`
so the GPU Operator manages the driver (Azure CLI >= 2.72.2; AKS "Use the NVIDIA GPU Operator",
https://learn.microsoft.com/azure/aks/nvidia-gpu-operator, read 2026-11)."""

from __future__ import annotations

import re

from gpuplane.render.common import cost_tags
from gpuplane.render.nodepools.shell import PROLOGUE, command, env_default, q
from gpuplane.render.operator import provisioning_labels
from gpuplane.spec.models import NodePool, PlatformSpec

WHY = "creates the AKS node pools (az aks nodepool add) with the labels, taints and autoscaling the rest of the output relies on"
# AKS Linux node pool names: lowercase letters and digits, start with a letter, at most 12 characters.
AKS_POOL_NAME_MAX = 12


def aks_pool_names(spec: PlatformSpec) -> dict[str, str]:
    """Spec pool name -> a valid, unique AKS pool name (the gpuplane.io/pool label keeps the spec name)."""
    names: dict[str, str] = {}
    used: set[str] = set()
    for pool in spec.node_pools:
        base = re.sub(r"[^a-z0-9]", "", pool.name.lower())
        if not base or not base[0].isalpha():
            base = "p" + base
        base = base[:AKS_POOL_NAME_MAX]
        name, n = base, 1
        while name in used:
            suffix = str(n)
            name = base[: AKS_POOL_NAME_MAX - len(suffix)] + suffix
            n += 1
        used.add(name)
        names[pool.name] = name
    return names


def _pool_command(spec: PlatformSpec, pool: NodePool, aks_name: str) -> str:
    words = [
        "az aks nodepool add",
        "--resource-group",
        '"$RESOURCE_GROUP"',
        "--cluster-name",
        '"$CLUSTER_NAME"',
        "--name",
        q(aks_name),
        "--mode",
        "User",
        "--os-type",
        "Linux",
    ]
    if pool.vm_size:
        words += ["--node-vm-size", q(pool.vm_size)]
    words += [
        "--node-count",
        q(pool.min_nodes),
        "--enable-cluster-autoscaler",
        "--min-count",
        q(pool.min_nodes),
        "--max-count",
        q(max(pool.max_nodes, 1)),
    ]
    if pool.zones:
        words += ["--zones", " ".join(q(z) for z in pool.zones)]
    labels = provisioning_labels(spec, pool)
    words += ["--labels", " ".join(q(f"{k}={v}") for k, v in labels.items())]
    if pool.taints:
        taints = ",".join(
            f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}" for t in pool.taints
        )
        words += ["--node-taints", q(taints)]
    if pool.spot.enabled:
        words += [
            "--priority",
            "Spot",
            "--eviction-policy",
            "Delete",
            "--spot-max-price",
            q(f"{pool.spot.max_price:g}"),
        ]
    if pool.is_gpu:
        words += ["--gpu-driver", "none"]
    words += ["--tags", " ".join(q(f"{k}={v}") for k, v in cost_tags(spec, pool).items())]
    return (
        f"# pool {pool.name}: {pool.accelerator or 'CPU'} x{pool.gpus} per node, {pool.min_nodes}-{pool.max_nodes} nodes\n"
        + command(words)
    )


def script(spec: PlatformSpec) -> str:
    """The whole AKS provisioning script."""
    names = aks_pool_names(spec)
    parts = [
        PROLOGUE,
        "# Spot pools: AKS adds the taint kubernetes.azure.com/scalesetpriority=spot:NoSchedule itself.\n",
        env_default("RESOURCE_GROUP", spec.cluster.resource_group or f"rg-{spec.cluster.name}"),
        env_default("CLUSTER_NAME", spec.cluster.name),
        "\n",
    ]
    for pool in spec.node_pools:
        parts.append(_pool_command(spec, pool, names[pool.name]))
        parts.append("\n")
    return "".join(parts)
