"""GKE: one `gcloud container node-pools create` per pool with the accelerator type and count,
GKE's own driver install, `gpu-partition-size` for MIG, `gpu-sharing-strategy` (time-sharing or
mps) with `max-shared-clients-per-gpu`, spot, total-size autoscaling, node labels and taints
(gcloud reference "container node-pools create", https://cloud.google.com/sdk/gcloud/reference/container/node-pools/create,
read 2026-11)."""

from __future__ import annotations

import math

from gpuplane.catalog import load_catalog
from gpuplane.render.common import cost_tags
from gpuplane.render.nodepools.shell import PROLOGUE, command, env_default, q
from gpuplane.render.operator import provisioning_labels
from gpuplane.spec import derived
from gpuplane.spec.models import NodePool, PlatformSpec

WHY = "creates the GKE node pools (gcloud container node-pools create) with accelerators, MIG partitions, GPU sharing, labels, taints and autoscaling"
GKE_SHARING = {"time-slicing": "time-sharing", "mps": "mps"}
GKE_DRIVER_VERSION = "latest"  # GKE installs the latest driver for the node version


def accelerator_flag(pool: NodePool) -> tuple[str | None, list[str]]:
    """The `--accelerator` value and notes about what GKE cannot express for this pool."""
    if not pool.is_gpu:
        return None, []
    notes: list[str] = []
    gke_type = load_catalog().gke_accelerator_type(pool.accelerator or "")
    if gke_type is None:
        notes.append(
            f"pool {pool.name}: no GKE accelerator type known for {pool.accelerator}; check the script"
        )
        gke_type = (pool.accelerator or "").lower()
    parts = [f"type={gke_type}", f"count={pool.gpus}", f"gpu-driver-version={GKE_DRIVER_VERSION}"]
    sharing = pool.sharing
    if sharing.mode == "mig":
        layout = sorted(set(derived.mig_layout(pool) or []))
        if len(layout) == 1:
            parts.append(f"gpu-partition-size={layout[0]}")
        else:
            notes.append(
                f"pool {pool.name}: GKE partitions a pool's GPUs into one size only; "
                f"the layout {', '.join(layout)} cannot be expressed, no partition size set"
            )
    elif sharing.mode in GKE_SHARING:
        parts += [
            f"gpu-sharing-strategy={GKE_SHARING[sharing.mode]}",
            f"max-shared-clients-per-gpu={sharing.replicas}",
        ]
        if sharing.rename_shared:
            notes.append(
                f"pool {pool.name}: GKE shared GPUs keep the name nvidia.com/gpu (renameShared ignored)"
            )
    return ",".join(parts), notes


def _pool_command(spec: PlatformSpec, pool: NodePool) -> str:
    words = [
        "gcloud container node-pools create",
        q(pool.name),
        "--cluster",
        '"$CLUSTER_NAME"',
        "--region",
        '"$REGION"',
    ]
    if pool.vm_size:
        words += ["--machine-type", q(pool.vm_size)]
    accel, _ = accelerator_flag(pool)
    if accel:
        words += ["--accelerator", q(accel)]
    if pool.zones:
        words += ["--node-locations", q(",".join(pool.zones))]
    per_zone = math.ceil(pool.min_nodes / max(len(pool.zones), 1))
    words += [
        "--num-nodes",
        q(per_zone),
        "--enable-autoscaling",
        "--total-min-nodes",
        q(pool.min_nodes),
        "--total-max-nodes",
        q(pool.max_nodes),
    ]
    if pool.spot.enabled:
        words.append("--spot")
    labels = provisioning_labels(spec, pool)
    words += ["--node-labels", q(",".join(f"{k}={v}" for k, v in labels.items()))]
    words += ["--labels", q(",".join(f"{k}={v}" for k, v in cost_tags(spec, pool).items()))]
    if pool.taints:
        words += ["--node-taints", q(",".join(f"{t.key}={t.value}:{t.effect}" for t in pool.taints))]
    return (
        f"# pool {pool.name}: {pool.accelerator or 'CPU'} x{pool.gpus} per node, {pool.min_nodes}-{pool.max_nodes} nodes\n"
        + command(words)
    )


def script(spec: PlatformSpec) -> str:
    """The whole GKE provisioning script."""
    parts = [
        PROLOGUE,
        env_default("CLUSTER_NAME", spec.cluster.name),
        env_default("REGION", spec.cluster.region),
        "\n",
    ]
    for pool in spec.node_pools:
        parts.append(_pool_command(spec, pool))
        parts.append("\n")
    return "".join(parts)


def notes(spec: PlatformSpec) -> list[str]:
    """What the GKE script could not express."""
    out: list[str] = []
    for pool in spec.node_pools:
        out += accelerator_flag(pool)[1]
    return out
