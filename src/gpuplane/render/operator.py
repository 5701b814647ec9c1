"""The NVIDIA GPU Operator's Helm values for the spec: driver, toolkit, device plugin with its
per-node configs, DCGM exporter with a ServiceMonitor, MIG Manager with the mig-parted configs
(`device_configs`), and what the provider's GPU stack changes (`gpuplane.providers`: AKS skips
its own driver, GKE follows NVIDIA's GKE guide, EKS's AMI brings driver and toolkit).

`mig.strategy` is left empty so that each node's device-plugin config decides its MIG strategy:
with a strategy in the ClusterPolicy the operator sets MIG_STRATEGY on the device plugin and GFD,
which overrides every config's `flags.migStrategy` (gpu-operator controllers/object_controls.go
applyMIGConfiguration, templates/clusterpolicy.yaml @v26.7.0; k8s-device-plugin
api/config/v1/flags.go updateFromCLIFlag @1b826ac), and a cluster mixing single- and
mixed-strategy pools would advertise the wrong names on one of them.
"""

from __future__ import annotations

from typing import Any

from gpuplane import providers
from gpuplane.catalog.providers import chart_facts
from gpuplane.providers.base import deep_merge
from gpuplane.render.common import GPU_OPERATOR_NAMESPACE, gpu_pools
from gpuplane.render.device_configs import (
    DEFAULT_PLUGIN_KEY,
    DEVICE_PLUGIN_CONFIGMAP,
    MIG_CONFIGMAP,
    MIG_DISABLED_CONFIG,
    device_plugin_configs,
    mig_by_operator,
    mig_parted_config,
)
from gpuplane.render.output import to_yaml
from gpuplane.spec import derived
from gpuplane.spec.models import PlatformSpec
from gpuplane.vocab import DCGM_VIRTUAL_GPUS_ENV

DCGM_SERVICE_MONITOR_INTERVAL = "15s"  # chart default (nvidia.md section 5)


def chart() -> dict[str, Any]:
    """The GPU Operator chart facts (name, version, default driver; nvidia_charts.yaml)."""
    facts: dict[str, Any] = chart_facts()["gpu_operator"]
    return facts


def driver_version(spec: PlatformSpec) -> tuple[str | None, list[str]]:
    """The one driver version the operator installs (the pools' pin, else the chart's default),
    and notes when pools disagree."""
    versions = sorted({p.driver_version for p in gpu_pools(spec) if p.driver_version})
    if not versions:
        return str(chart()["default_driver_version"]), []
    notes = []
    if len(versions) > 1:
        notes.append(
            f"pools ask for driver versions {', '.join(versions)}; the operator installs one "
            f"({versions[-1]}); use NVIDIADriver objects for per-pool drivers"
        )
    return versions[-1], notes


def shares_gpus(spec: PlatformSpec) -> bool:
    """Whether some GPU pool time-slices or uses MPS (pods share one physical GPU)."""
    return any(p.sharing.mode in ("time-slicing", "mps") for p in gpu_pools(spec))


def dcgm_exporter_values(spec: PlatformSpec) -> dict[str, Any]:
    """The chart's `dcgmExporter` block: a ServiceMonitor that keeps the pod labels, and one series
    per sharing pod on shared GPUs (docs/account.md, "What account depends on")."""
    values: dict[str, Any] = {
        "enabled": True,
        # honorLabels keeps the exporter's pod/namespace labels (the GPU's workload) instead of
        # renaming them exported_* in favour of the scrape target's (the exporter's own pod); the
        # chart's default is false (values.yaml dcgmExporter.serviceMonitor.honorLabels @ v26.7.0).
        "serviceMonitor": {"enabled": True, "interval": DCGM_SERVICE_MONITOR_INTERVAL, "honorLabels": True},
    }
    if shares_gpus(spec):
        # Without it a shared GPU has one series naming one of its pods at a time
        # (dcgm-exporter pkg/cmd/app.go, the env var of flag kubernetes-virtual-gpus: vocab/names.yaml;
        # transformation/kubernetes.go toDeviceToSharingPods). The chart passes `env` to the
        # ClusterPolicy's dcgmExporter.env (templates/clusterpolicy.yaml), a list of EnvVar.
        values["env"] = [{"name": DCGM_VIRTUAL_GPUS_ENV, "value": "true"}]
    return values


def _base_values(spec: PlatformSpec) -> dict[str, Any]:
    pools = gpu_pools(spec)
    plugin: dict[str, Any] = {"enabled": any(not derived.is_dra(p) for p in pools) or not pools}
    if device_plugin_configs(spec):
        plugin["config"] = {"create": False, "name": DEVICE_PLUGIN_CONFIGMAP, "default": DEFAULT_PLUGIN_KEY}
    mig_manager: dict[str, Any] = {
        "enabled": mig_by_operator(spec) and any(p.sharing.mode == "mig" for p in pools)
    }
    if mig_parted_config(spec):
        mig_manager["config"] = {"create": False, "name": MIG_CONFIGMAP, "default": MIG_DISABLED_CONFIG}
    return {
        "driver": {"enabled": True},
        "toolkit": {"enabled": True},
        "devicePlugin": plugin,
        "dcgmExporter": dcgm_exporter_values(spec),
        "migManager": mig_manager,
        "mig": {"strategy": ""},
    }


def operator_values(spec: PlatformSpec) -> dict[str, Any] | None:
    """GPU Operator Helm values (keys of the chart's values.yaml), or None when the spec's GPU
    stack installs no GPU Operator (GKE's own stack)."""
    stack = providers.get(spec.cluster.provider).operator_values(spec)
    if stack is None:
        return None
    base = _base_values(spec)
    if not base["migManager"]["enabled"]:
        stack.get("migManager", {}).pop("env", None)
    values = deep_merge(base, stack)
    if values["driver"].get("enabled"):
        values["driver"]["version"] = driver_version(spec)[0]
    return values


def operator_values_text(spec: PlatformSpec) -> str | None:
    """The values file with a header that says how to install it (None without the operator)."""
    values = operator_values(spec)
    if values is None:
        return None
    facts = chart()
    header = (
        "# GPU Operator Helm values generated by gpuplane render from the platform spec.\n"
        f"# Install: helm upgrade --install gpu-operator {facts['chart']} --version {facts['version']} \\\n"
        f"#   --namespace {GPU_OPERATOR_NAMESPACE} --create-namespace -f gpu-operator-values.yaml\n"
        "# Apply the objects in this folder first: the values name the ConfigMaps and set create: false.\n"
        "# mig.strategy is empty on purpose: each node's device-plugin config sets its own MIG strategy.\n"
    )
    return header + to_yaml(values)


def operator_notes(spec: PlatformSpec) -> list[str]:
    """Things the reader should know about the device stack of this spec."""
    values = operator_values(spec)
    notes = list(driver_version(spec)[1]) if values and values["driver"].get("enabled") else []
    notes += providers.get(spec.cluster.provider).notes(spec)
    return notes
