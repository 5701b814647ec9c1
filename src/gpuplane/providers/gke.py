"""GKE: one `gcloud container node-pools create` per pool with the accelerator type and count,
total-size autoscaling, spot, node labels and taints.

With the GPU Operator (operator stack) the pools follow NVIDIA's GKE guide ("Using the Google Driver
Installer"): GKE's device plugin off (node label), GKE's driver installation off
(`gpu-driver-version=disabled`) and Google's driver installer DaemonSet applied instead, COS nodes;
the operator's values put the toolkit and driver paths at /home/kubernetes/bin/nvidia with CDI on,
and a ResourceQuota admits its system-critical pods. With GKE's own stack (provider stack) the
`--accelerator` flag carries `gpu-driver-version=latest`, `gpu-partition-size` (one MIG size per
pool) and `gpu-sharing-strategy` with `max-shared-clients-per-gpu` (keys as gcloud validates them).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

from gpuplane.catalog import load_catalog
from gpuplane.catalog.topology import provider_topology
from gpuplane.errors import Problem
from gpuplane.k8s_versions import version_at_least
from gpuplane.providers.base import BaseProvider, NodePoolFile, PoolSetup, Report
from gpuplane.providers.shell import PROLOGUE, command, env_default, q
from gpuplane.spec import derived
from gpuplane.spec.models import NodePool, PlatformSpec
from gpuplane.vocab import DCGM_VIRTUAL_GPUS_ENV, DCGM_VIRTUAL_GPUS_FLAG, GPU_RESOURCE

WHY = "creates the GKE node pools (gcloud container node-pools create) with accelerators, GPU stack flags, labels, taints and autoscaling"
GKE_SHARING = {"time-slicing": "time-sharing", "mps": "mps"}


def _partition_keys(pool: NodePool) -> tuple[list[str], list[str]]:
    layout = sorted(set(derived.mig_layout(pool) or []))
    if len(layout) == 1:
        return [f"gpu-partition-size={layout[0]}"], []
    return [], [
        f"pool {pool.name}: GKE partitions a pool's GPUs into one size only; "
        f"the layout {', '.join(layout)} cannot be expressed, no partition size set"
    ]


def accelerator_flag(spec: PlatformSpec, pool: NodePool) -> tuple[str | None, list[str]]:
    """The `--accelerator` value and notes about what GKE cannot express for this pool."""
    if not pool.is_gpu:
        return None, []
    notes: list[str] = []
    gke_type = load_catalog().gke_accelerator_type(pool.accelerator or "", pool.vm_size or None)
    if gke_type is None:
        notes.append(
            f"pool {pool.name}: no GKE accelerator type known for {pool.accelerator}; check the script"
        )
        gke_type = (pool.accelerator or "").lower()
    parts = [f"type={gke_type}", f"count={pool.gpus}"]
    parts += [f"{k}={v}" for k, v in (PROVIDER.stack(spec).get("accelerator_keys") or {}).items()]
    sharing = pool.sharing
    if PROVIDER.mig_method(spec) == "partition-size" and sharing.mode == "mig":
        keys, more = _partition_keys(pool)
        parts += keys
        notes += more
    elif PROVIDER.sharing_method(spec) == "provider" and sharing.mode in GKE_SHARING:
        parts += [
            f"gpu-sharing-strategy={GKE_SHARING[sharing.mode]}",
            f"max-shared-clients-per-gpu={sharing.replicas}",
        ]
    return ",".join(parts), notes


def _purchase_words(pool: NodePool) -> list[str]:
    """Flags of the pool's purchase segments (gcloud container node-pools create --help, SDK 528):
    a named reservation (reserved / calendar-reservation with `reservation:`) is consumed with
    `--reservation-affinity=specific --reservation=NAME`; a flex-start segment adds `--flex-start`
    (GKE DWS: cloud.google.com/kubernetes-engine/docs/concepts/dws)."""
    words: list[str] = []
    named = [
        s.reservation
        for s in pool.purchase
        if s.reservation and s.option in ("reserved", "calendar-reservation")
    ]
    if named:
        words += ["--reservation-affinity", "specific", "--reservation", q(named[0])]
    if any(s.option == "flex-start" for s in pool.purchase):
        words.append("--flex-start")
    return words


def _pool_command(spec: PlatformSpec, setup: PoolSetup) -> str:
    pool = setup.pool
    words = ["gcloud container node-pools create", q(pool.name), "--cluster", '"$CLUSTER_NAME"']
    words += ["--region", '"$REGION"']
    if pool.vm_size:
        words += ["--machine-type", q(pool.vm_size)]
    accel, _ = accelerator_flag(spec, pool)
    if accel:
        words += ["--accelerator", q(accel)]
        image = PROVIDER.stack(spec).get("image_type")
        if image:
            words += ["--image-type", q(image)]
    if pool.zones:
        words += ["--node-locations", q(",".join(pool.zones))]
    per_zone = math.ceil(pool.min_nodes / max(len(pool.zones), 1))
    words += ["--num-nodes", q(per_zone), "--enable-autoscaling"]
    words += ["--total-min-nodes", q(pool.min_nodes), "--total-max-nodes", q(pool.max_nodes)]
    if pool.spot.enabled:
        words.append("--spot")
    words += _purchase_words(pool)
    placement = _compact_placement(spec, pool)
    if placement:
        words += list(placement)
    words += ["--node-labels", q(",".join(f"{k}={v}" for k, v in setup.labels.items()))]
    words += ["--labels", q(",".join(f"{k}={v}" for k, v in setup.cost_tags.items()))]
    if setup.taints:
        words += ["--node-taints", q(",".join(f"{t.key}={t.value}:{t.effect}" for t in setup.taints))]
    return (
        f"# pool {pool.name}: {pool.accelerator or 'CPU'} x{pool.gpus} per node, {pool.min_nodes}-{pool.max_nodes} nodes\n"
        + command(words)
    )


def _compact_placement(spec: PlatformSpec, pool: NodePool) -> tuple[str, str] | None:
    """GKE compact placement for a topology pool that asks for it (providers.yaml gke.topology)."""
    if pool.topology is None or not pool.topology.compact_placement:
        return None
    fact = provider_topology(spec.cluster.provider)
    flag = fact.placement if fact is not None else None
    if not flag:
        return None
    return str(flag["flag"]), q(str(flag["value"]))


class GkeProvider(BaseProvider):
    """Google Kubernetes Engine."""

    name = "gke"

    def nodepool_file(self, spec: PlatformSpec, pools: Sequence[PoolSetup]) -> NodePoolFile:
        """The whole GKE provisioning script (and, operator stack, Google's driver installer)."""
        parts = [PROLOGUE, env_default("CLUSTER_NAME", spec.cluster.name)]
        parts += [env_default("REGION", spec.cluster.region), "\n"]
        for setup in pools:
            parts += [_pool_command(spec, setup), "\n"]
        installer = self.stack(spec).get("driver_installer")
        if installer and any(s.pool.is_gpu for s in pools):
            parts.append(
                "# GKE's driver installation is off on these pools (gpu-driver-version=disabled), as\n"
                "# NVIDIA's GKE guide asks when the GPU Operator runs: Google's installer DaemonSet\n"
                "# installs the driver on the COS nodes instead.\n"
                f"kubectl apply -f {q(installer)}\n"
            )
        notes = [n for s in pools for n in accelerator_flag(spec, s.pool)[1]]
        return NodePoolFile("nodepools/gke-node-pools.sh", "".join(parts), WHY, notes)

    def operator_values(self, spec: PlatformSpec) -> dict[str, Any] | None:
        """The stack's values, plus the toolkit's RUNTIME_CONFIG_SOURCE=file on GKE 1.33 and later."""
        values = super().operator_values(spec)
        extra = self.stack(spec).get("toolkit_env_from")
        if (
            values is not None
            and extra
            and version_at_least(spec.cluster.kubernetes_version, extra["version"])
        ):
            values.setdefault("toolkit", {})["env"] = [dict(e) for e in extra["env"]]
        return values

    def namespace_objects(self, spec: PlatformSpec, namespace: str) -> list[dict[str, Any]]:
        """The ResourceQuota NVIDIA's GKE guide requires for the operator's system-critical pods."""
        quota = self.stack(spec).get("operator_quota")
        if not quota:
            return []
        scope = {"operator": "In", "scopeName": "PriorityClass", "values": list(quota["priority_classes"])}
        return [
            {
                "apiVersion": "v1",
                "kind": "ResourceQuota",
                "metadata": {"name": quota["name"], "namespace": namespace},
                "spec": {"hard": {"pods": quota["pods"]}, "scopeSelector": {"matchExpressions": [scope]}},
            }
        ]

    def notes(self, spec: PlatformSpec) -> list[str]:
        """With GKE's own stack no GPU Operator runs, so nothing exports DCGM metrics in-cluster; on
        time-shared pools the dcgm-exporter the user installs needs one series per sharing pod."""
        if spec.cluster.gpu_stack != "provider":
            return []
        note = (
            "GKE's own GPU stack: driver, device plugin, MIG partitions and time-sharing come from the node "
            "pools' --accelerator flag and no GPU Operator is installed; the alerts, dashboard and gpuplane "
            "account read DCGM exporter metrics, so install dcgm-exporter yourself"
        )
        # dcgm-exporter reads GKE's device plugin IDs too: with the setting on, GKE's shared-GPU IDs
        # (`nvidia0/vgpu1`) give one series per sharing pod (internal/pkg/transformation/kubernetes.go
        # getSharedGPU, toDeviceToSharingPods @4.5.3-4.8.2).
        shared = [p.name for p in spec.node_pools if p.is_gpu and p.sharing.mode in GKE_SHARING]
        if shared:
            note += (
                f"; pool(s) {', '.join(shared)} share GPUs ({' and '.join(sorted(GKE_SHARING.values()))}): "
                f"run it with {DCGM_VIRTUAL_GPUS_ENV}=true (flag {DCGM_VIRTUAL_GPUS_FLAG}, off by default), "
                "or a shared GPU has one series naming one of its pods at a time and account has to "
                "approximate each pod's activity (docs/account.md)"
            )
        return [note]

    def design_problems(self, spec: PlatformSpec, at: Report) -> Iterator[Problem]:
        """With GKE's own stack: MIG sizes GKE can partition, and what its device plugin advertises."""
        if spec.cluster.gpu_stack != "provider":
            return
        for index, pool in enumerate(spec.node_pools):
            if pool.sharing.mode == "mig":
                yield from self._mig_problems(index, pool, at)
            elif pool.sharing.mode in GKE_SHARING:
                yield from self._sharing_problems(spec, index, pool, at)

    def _mig_problems(self, index: int, pool: NodePool, at: Report) -> Iterator[Problem]:
        fact = self.facts["mig"]
        base: tuple[str | int, ...] = ("nodePools", index, "sharing")
        if pool.accelerator not in (fact.get("accelerators") or []):
            yield at(
                (*base, "mode"),
                f"GKE partitions only {', '.join(fact.get('accelerators'))} ({fact.cite()})",
                "error",
            )
            return
        layout = derived.mig_layout(pool) or []
        acc = load_catalog().accelerator(pool.accelerator or "")
        profile = acc.mig_profile(layout[0]) if acc and layout else None
        if profile is None or layout != [profile.name] * profile.max_count:
            yield at(
                base,
                "GKE splits every GPU of a pool into as many instances of one gpu-partition-size as fit; "
                f"{', '.join(layout)} is not such a layout ({fact.cite()})",
                "error",
            )
        if pool.sharing.strategy == "mixed":
            yield at(
                (*base, "strategy"),
                f"GKE's device plugin advertises each partition as one {GPU_RESOURCE}; use strategy single ({fact.cite()})",
                "error",
            )

    def _sharing_problems(
        self, spec: PlatformSpec, index: int, pool: NodePool, at: Report
    ) -> Iterator[Problem]:
        base: tuple[str | int, ...] = ("nodePools", index, "sharing")
        fact = self.facts["time_slicing" if pool.sharing.mode == "time-slicing" else "mps"]
        if pool.sharing.rename_shared:
            yield at(
                (*base, "renameShared"),
                f"GKE's shared GPUs keep the name {GPU_RESOURCE} ({fact.cite()})",
                "error",
            )
        minimum = fact.get("min_version")
        if minimum and not version_at_least(spec.cluster.kubernetes_version, minimum):
            yield at(
                (*base, "mode"),
                f"GKE offers {pool.sharing.mode} from {minimum}; check the cluster's patch version ({fact.cite()})",
                "warning",
            )


PROVIDER = GkeProvider()
