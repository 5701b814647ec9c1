"""Per-node configs of the GPU Operator's operands: the mig-parted ConfigMap for MIG pools, the
device-plugin ConfigMap (one key per MIG pool with its own `flags.migStrategy`, one per time-sliced
or MPS pool), and the node labels that select them (nvidia.md sections 2, 3 and 5).

Nodes pick their MIG layout with mig-parted's label (`vocab.MIG_CONFIG_LABEL`) and their
device-plugin config with the device plugin's (`vocab.DEVICE_PLUGIN_CONFIG_LABEL`); GPU feature discovery reads the same device-plugin config (its
config-manager sidecar watches the same label: gpu-operator assets/gpu-feature-discovery/
0500_daemonset.yaml @v26.7.0), so a pool's advertised resources and its GFD labels follow its own
MIG strategy. DRA pools get `vocab.DEPLOY_DEVICE_PLUGIN_LABEL=false`: no device plugin may run
where NVIDIA's DRA driver hands out the GPUs.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from gpuplane import providers
from gpuplane.catalog import load_catalog
from gpuplane.providers.base import MIG_PARTED, OPERATOR
from gpuplane.render.common import GPU_OPERATOR_NAMESPACE, gpu_pools, k8s_object, metadata
from gpuplane.render.output import to_yaml
from gpuplane.sharing import deviceplugin
from gpuplane.spec import derived
from gpuplane.spec.models import NodePool, PlatformSpec
from gpuplane.vocab import DEPLOY_DEVICE_PLUGIN_LABEL, DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL

MIG_CONFIGMAP = "gpuplane-mig-parted-config"
DEVICE_PLUGIN_CONFIGMAP = "gpuplane-device-plugin-config"
MIG_DISABLED_CONFIG = "all-disabled"  # ClusterPolicy migManager.config.default (nvidia.md 2.3)
DEFAULT_PLUGIN_KEY = "default"
MIG_PARTED_VERSION = "v1"  # mig-parted api/spec/v1 (nvidia.md 2.1)
NO_MIG = "none"  # k8s-device-plugin api/config/v1 consts.go MigStrategyNone


def mig_by_operator(spec: PlatformSpec) -> bool:
    """Whether MIG Manager partitions the MIG pools (not the provider's own switch)."""
    return providers.get(spec.cluster.provider).mig_method(spec) == MIG_PARTED


def sharing_by_operator(spec: PlatformSpec) -> bool:
    """Whether time-slicing and MPS come from the device plugin's config (not the provider's)."""
    return providers.get(spec.cluster.provider).sharing_method(spec) == OPERATOR


def operator_installed(spec: PlatformSpec) -> bool:
    """Whether the spec's GPU stack runs the GPU Operator at all."""
    return providers.get(spec.cluster.provider).operator_values(spec) is not None


def mig_config_name(pool: NodePool) -> str | None:
    """The mig-parted config a MIG pool's nodes select: its operator config or `gpuplane-<pool>`."""
    if pool.sharing.mode != "mig":
        return None
    return pool.sharing.config or f"gpuplane-{pool.name}"


def _plugin_key(spec: PlatformSpec, pool: NodePool) -> str | None:
    """The device-plugin config key a pool's nodes select (None: the default key or no plugin)."""
    if not operator_installed(spec) or derived.is_dra(pool) or not pool.is_gpu:
        return None
    if pool.sharing.mode == "mig" or (
        pool.sharing.mode in ("time-slicing", "mps") and sharing_by_operator(spec)
    ):
        return pool.name if pool.name != DEFAULT_PLUGIN_KEY else f"pool-{pool.name}"
    return None


def device_node_labels(spec: PlatformSpec, pool: NodePool) -> dict[str, str]:
    """NVIDIA config-selection labels a pool's nodes need, and the device plugin off on DRA pools."""
    if not pool.is_gpu:
        return {}
    labels: dict[str, str] = {}
    name = mig_config_name(pool)
    if name and mig_by_operator(spec) and operator_installed(spec):
        labels[MIG_CONFIG_LABEL] = name
    key = _plugin_key(spec, pool)
    if key:
        labels[DEVICE_PLUGIN_CONFIG_LABEL] = key
    if derived.is_dra(pool):
        labels[DEPLOY_DEVICE_PLUGIN_LABEL] = "false"
    return labels


def provisioning_labels(spec: PlatformSpec, pool: NodePool) -> dict[str, str]:
    """Every label the node-pool files put on a pool's nodes: gpuplane's schema, the NVIDIA config
    selectors and what the provider's GPU stack needs."""
    labels = derived.node_labels(pool)
    labels.update(device_node_labels(spec, pool))
    labels.update(providers.get(spec.cluster.provider).stack_node_labels(spec, pool))
    return dict(sorted(labels.items()))


def _mig_entries(pool: NodePool) -> list[dict[str, Any]]:
    counts = Counter(derived.mig_layout(pool) or [])
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
    if not (mig_by_operator(spec) and operator_installed(spec)):
        return None
    configs: dict[str, list[dict[str, Any]]] = {}
    for pool in gpu_pools(spec):
        name = mig_config_name(pool)
        if name is None:
            continue
        existing = configs.setdefault(name, [])
        existing.extend(e for e in _mig_entries(pool) if e not in existing)
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
    meta = metadata(MIG_CONFIGMAP, namespace=GPU_OPERATOR_NAMESPACE)
    return k8s_object("v1", "ConfigMap", meta, data={"config.yaml": to_yaml(config)})


def _plugin_config(pool: NodePool) -> dict[str, Any]:
    if pool.sharing.mode == "mig":
        return {
            "version": deviceplugin.plugin_facts()["version"],
            "flags": {"migStrategy": pool.sharing.strategy},
        }
    sharing = pool.sharing
    return deviceplugin.sharing_config(
        sharing.mode, sharing.replicas, sharing.rename_shared, mig_strategy=NO_MIG
    )


def device_plugin_configs(spec: PlatformSpec) -> dict[str, dict[str, Any]]:
    """Device-plugin config per key: `default` (no MIG, no sharing), then one per MIG or shared pool."""
    keyed = {key: pool for pool in gpu_pools(spec) if (key := _plugin_key(spec, pool))}
    if not keyed:
        return {}
    version = deviceplugin.plugin_facts()["version"]
    configs = {DEFAULT_PLUGIN_KEY: {"version": version, "flags": {"migStrategy": NO_MIG}}}
    configs.update({key: _plugin_config(pool) for key, pool in keyed.items()})
    return configs


def device_plugin_configmap(spec: PlatformSpec) -> dict[str, Any] | None:
    """The ConfigMap the device plugin (and GFD) read; nodes pick a key with `DEVICE_PLUGIN_CONFIG_LABEL`."""
    configs = device_plugin_configs(spec)
    if not configs:
        return None
    data = {key: to_yaml(value) for key, value in sorted(configs.items())}
    meta = metadata(DEVICE_PLUGIN_CONFIGMAP, namespace=GPU_OPERATOR_NAMESPACE)
    return k8s_object("v1", "ConfigMap", meta, data=data)
