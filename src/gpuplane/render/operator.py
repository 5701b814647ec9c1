"""The GPU device stack: NVIDIA GPU Operator Helm values, the mig-parted ConfigMap for MIG pools
and the device-plugin ConfigMap for time-slicing and MPS pools (nvidia.md sections 2, 3 and 5).

Nodes pick their MIG layout with the `nvidia.com/mig.config` label and their sharing config with
`nvidia.com/device-plugin.config`; `device_node_labels` gives both, and the node-pool scripts put
them on the pool's nodes.

Who installs what differs by provider: on AKS the pools skip the AKS driver (`--gpu-driver none`)
and the operator manages driver, toolkit, device plugin and MIG; on EKS the accelerated AMI ships
driver and toolkit; on GKE the node pools use GKE's own driver, device plugin, MIG partitioning and
time-sharing (`--accelerator ...gpu-partition-size/gpu-sharing-strategy`), so the operator only runs
the DCGM exporter and the MIG and sharing ConfigMaps are not written.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from gpuplane.catalog import load_catalog
from gpuplane.render.common import GPU_OPERATOR_NAMESPACE, gpu_pools, k8s_object, metadata
from gpuplane.render.writer import to_yaml
from gpuplane.sharing import deviceplugin
from gpuplane.spec import derived
from gpuplane.spec.models import NodePool, PlatformSpec
from gpuplane.vocab import DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL

MIG_CONFIGMAP = "gpuplane-mig-parted-config"
DEVICE_PLUGIN_CONFIGMAP = "gpuplane-device-plugin-config"
MIG_DISABLED_CONFIG = "all-disabled"  # ClusterPolicy migManager.config.default (nvidia.md 2.3)
DEFAULT_PLUGIN_KEY = "default"
MIG_PARTED_VERSION = "v1"  # mig-parted api/spec/v1 (nvidia.md 2.1)
# Helm value keys follow NVIDIA/gpu-operator deployments/gpu-operator/values.yaml @ v26.7.0.
OPERATOR_CHART = "nvidia/gpu-operator"
OPERATOR_CHART_VERSION = "v26.7.0"
DCGM_SERVICE_MONITOR_INTERVAL = "15s"  # chart default (nvidia.md section 5)
GKE_DRIVER_DIR = "/home/kubernetes/bin/nvidia"  # where GKE installs the driver on its nodes


def uses_operator_sharing(spec: PlatformSpec) -> bool:
    """Whether MIG and sharing are configured through the operator (not GKE's native features)."""
    return spec.cluster.provider != "gke"


def mig_config_name(pool: NodePool) -> str | None:
    """The mig-parted config a MIG pool's nodes select: its operator config or `gpuplane-<pool>`."""
    if pool.sharing.mode != "mig":
        return None
    return pool.sharing.config or f"gpuplane-{pool.name}"


def device_node_labels(spec: PlatformSpec, pool: NodePool) -> dict[str, str]:
    """NVIDIA config-selection labels a pool's nodes need (none on GKE, none for exclusive pools)."""
    if not uses_operator_sharing(spec) or not pool.is_gpu:
        return {}
    labels: dict[str, str] = {}
    name = mig_config_name(pool)
    if name:
        labels[MIG_CONFIG_LABEL] = name
    if pool.sharing.mode in ("time-slicing", "mps"):
        labels[DEVICE_PLUGIN_CONFIG_LABEL] = pool.name
    return labels


def provisioning_labels(spec: PlatformSpec, pool: NodePool) -> dict[str, str]:
    """Every label the node-pool scripts put on a pool's nodes."""
    labels = derived.node_labels(pool)
    labels.update(device_node_labels(spec, pool))
    return dict(sorted(labels.items()))


def mig_strategy(spec: PlatformSpec) -> str:
    """The operator's one cluster-wide MIG strategy: mixed if any MIG pool is mixed."""
    strategies = {p.sharing.strategy for p in gpu_pools(spec) if p.sharing.mode == "mig"}
    return "mixed" if "mixed" in strategies else "single"


def _mig_entries(pool: NodePool) -> list[dict[str, Any]]:
    layout = derived.mig_layout(pool) or []
    counts = Counter(layout)
    entry: dict[str, Any] = {}
    acc = load_catalog().accelerator(pool.accelerator or "")
    if pool.sharing.config and acc is not None and acc.pci_device_ids:
        entry["device-filter"] = list(acc.pci_device_ids)
    entry["devices"] = "all"
    entry["mig-enabled"] = True
    entry["mig-devices"] = {profile: counts[profile] for profile in sorted(counts)}
    return [entry]


def mig_parted_config(spec: PlatformSpec) -> dict[str, Any] | None:
    """The mig-parted config file: all-disabled plus one config per MIG pool's selection."""
    if not uses_operator_sharing(spec):
        return None
    configs: dict[str, list[dict[str, Any]]] = {}
    for pool in gpu_pools(spec):
        name = mig_config_name(pool)
        if name is None:
            continue
        entries = _mig_entries(pool)
        existing = configs.setdefault(name, [])
        for entry in entries:
            if entry not in existing:
                existing.append(entry)
    if not configs:
        return None
    mig_configs: dict[str, Any] = {MIG_DISABLED_CONFIG: [{"devices": "all", "mig-enabled": False}]}
    mig_configs.update(sorted(configs.items()))
    return {"version": MIG_PARTED_VERSION, "mig-configs": mig_configs}


def mig_parted_configmap(spec: PlatformSpec) -> dict[str, Any] | None:
    """The ConfigMap MIG Manager reads (key `config.yaml`)."""
    config = mig_parted_config(spec)
    if config is None:
        return None
    return k8s_object(
        "v1",
        "ConfigMap",
        metadata(MIG_CONFIGMAP, namespace=GPU_OPERATOR_NAMESPACE),
        data={"config.yaml": to_yaml(config)},
    )


def device_plugin_configs(spec: PlatformSpec) -> dict[str, dict[str, Any]]:
    """Device-plugin config per key: `default` for unshared nodes, one per shared pool."""
    if not uses_operator_sharing(spec):
        return {}
    shared = [p for p in gpu_pools(spec) if p.sharing.mode in ("time-slicing", "mps")]
    if not shared:
        return {}
    configs: dict[str, dict[str, Any]] = {
        DEFAULT_PLUGIN_KEY: {
            "version": deviceplugin.plugin_facts()["version"],
            "flags": {"migStrategy": mig_strategy(spec)},
        },
    }
    for pool in shared:
        configs[pool.name] = deviceplugin.sharing_config(
            pool.sharing.mode, pool.sharing.replicas, pool.sharing.rename_shared, mig_strategy="none"
        )
    return configs


def device_plugin_configmap(spec: PlatformSpec) -> dict[str, Any] | None:
    """The ConfigMap the device plugin reads; nodes pick a key with `nvidia.com/device-plugin.config`."""
    configs = device_plugin_configs(spec)
    if not configs:
        return None
    data = {key: to_yaml(value) for key, value in sorted(configs.items())}
    return k8s_object(
        "v1", "ConfigMap", metadata(DEVICE_PLUGIN_CONFIGMAP, namespace=GPU_OPERATOR_NAMESPACE), data=data
    )


def driver_version(spec: PlatformSpec) -> tuple[str | None, list[str]]:
    """The one driver version the operator installs, and notes when pools disagree."""
    versions = sorted({p.driver_version for p in gpu_pools(spec) if p.driver_version})
    if not versions:
        return None, []
    notes = []
    if len(versions) > 1:
        notes.append(
            f"pools ask for driver versions {', '.join(versions)}; the operator installs one "
            f"({versions[-1]}); use NVIDIADriver objects for per-pool drivers"
        )
    return versions[-1], notes


def _driver_values(spec: PlatformSpec) -> dict[str, Any]:
    provider = spec.cluster.provider
    if provider in ("eks", "gke"):
        return {"enabled": False}
    version, _ = driver_version(spec)
    out: dict[str, Any] = {"enabled": True}
    if version:
        out["version"] = version
    return out


def operator_values(spec: PlatformSpec) -> dict[str, Any]:
    """GPU Operator Helm values: driver, toolkit, device plugin and its config, DCGM exporter with a
    ServiceMonitor, MIG manager with its config, and the MIG strategy."""
    native = not uses_operator_sharing(spec)
    has_mig = any(p.sharing.mode == "mig" for p in gpu_pools(spec))
    values: dict[str, Any] = {"driver": _driver_values(spec)}
    values["toolkit"] = {"enabled": spec.cluster.provider not in ("eks", "gke")}
    plugin: dict[str, Any] = {"enabled": not native}
    if device_plugin_configs(spec):
        plugin["config"] = {"create": False, "name": DEVICE_PLUGIN_CONFIGMAP, "default": DEFAULT_PLUGIN_KEY}
    values["devicePlugin"] = plugin
    values["dcgmExporter"] = {
        "enabled": True,
        # honorLabels keeps the exporter's pod/namespace labels (the GPU's workload) instead of
        # the scrape target's (the exporter's own pod); gpuplane account joins on them.
        "serviceMonitor": {"enabled": True, "interval": DCGM_SERVICE_MONITOR_INTERVAL, "honorLabels": True},
    }
    mig_manager: dict[str, Any] = {"enabled": has_mig and not native}
    if mig_parted_config(spec):
        mig_manager["config"] = {"create": False, "name": MIG_CONFIGMAP, "default": MIG_DISABLED_CONFIG}
    values["migManager"] = mig_manager
    values["mig"] = {"strategy": mig_strategy(spec)}
    if native:
        values["hostPaths"] = {"driverInstallDir": GKE_DRIVER_DIR}
    return values


def operator_values_text(spec: PlatformSpec) -> str:
    """The values file with a header that says how to install it."""
    header = (
        "# GPU Operator Helm values generated by gpuplane render from the platform spec.\n"
        f"# Install: helm upgrade --install gpu-operator {OPERATOR_CHART} --version {OPERATOR_CHART_VERSION} \\\n"
        f"#   --namespace {GPU_OPERATOR_NAMESPACE} --create-namespace -f gpu-operator-values.yaml\n"
        "# Apply the ConfigMaps in this folder first: the values name them and set create: false.\n"
    )
    return header + to_yaml(operator_values(spec))


def operator_notes(spec: PlatformSpec) -> list[str]:
    """Things the reader should know about the device stack of this spec."""
    notes = list(driver_version(spec)[1])
    pools = gpu_pools(spec)
    strategies = {p.sharing.strategy for p in pools if p.sharing.mode == "mig"}
    if len(strategies) > 1:
        notes.append(
            "MIG pools mix the single and mixed strategies; the operator applies one "
            "(mixed) cluster-wide, so single-strategy pools advertise nvidia.com/mig-* resources"
        )
    if not uses_operator_sharing(spec):
        notes.append(
            "GKE: driver, device plugin, MIG partitions and time-sharing come from GKE "
            "(see nodepools/gke-node-pools.sh); the GPU Operator values only run the DCGM exporter"
        )
    return notes
