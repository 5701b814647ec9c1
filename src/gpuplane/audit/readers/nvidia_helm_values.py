"""Helm values of NVIDIA's device plugin and DRA driver charts, read as one object each.

Recognised by the charts' own top-level keys (no `kind`, and none of the GPU Operator chart's
`toolkit`/`operator`/`driver` sections, which `gpu_operator_values` reads):

- the DRA driver (kubernetes-sigs/dra-driver-nvidia-gpu v0.4.1 deployments/helm/dra-driver-nvidia-gpu/
  values.yaml, the chart render writes values for): `gpuResourcesEnabledOverride`, `kubeletPlugin`,
  or `resources` with `gpus` / `computeDomains`; pseudo-kind `DRADriverValues`;
- the device plugin (NVIDIA/k8s-device-plugin deployments/helm/nvidia-device-plugin/values.yaml):
  `migStrategy`, `deviceListStrategy`, `deviceIDStrategy`, `failOnInitError` or
  `compatWithCPUManager`; pseudo-kind `DevicePluginValues`.

Both carry the chart's `image.tag` (the component version GPU013 judges against the advisories).
"""

from __future__ import annotations

from typing import Any

from gpuplane.audit.objects import K8sObject, as_dict, as_str
from gpuplane.audit.readers.registry import Document, Inputs, Reader, register_reader

DRA_DRIVER_VALUES = "DRADriverValues"
DEVICE_PLUGIN_VALUES = "DevicePluginValues"
OPERATOR_KEYS = ("toolkit", "operator", "driver")
DRA_KEYS = ("gpuResourcesEnabledOverride", "kubeletPlugin")
DEVICE_PLUGIN_KEYS = (
    "migStrategy",
    "deviceListStrategy",
    "deviceIDStrategy",
    "failOnInitError",
    "compatWithCPUManager",
)


def kind_of(data: Any) -> str:
    """The pseudo-kind of a values mapping, or '' when it is neither chart's."""
    if not isinstance(data, dict) or as_str(data.get("kind")) or any(k in data for k in OPERATOR_KEYS):
        return ""
    resources = as_dict(data.get("resources"))
    if any(k in data for k in DRA_KEYS) or "gpus" in resources or "computeDomains" in resources:
        return DRA_DRIVER_VALUES
    if any(k in data for k in DEVICE_PLUGIN_KEYS):
        return DEVICE_PLUGIN_VALUES
    return ""


def recognises(data: Any) -> bool:
    """Helm values of NVIDIA's device plugin or DRA driver chart (a mapping without `kind`)."""
    return bool(kind_of(data))


def read(doc: Document) -> Inputs:
    """One values object, kind set to the chart it belongs to."""
    doc.data["kind"] = kind_of(doc.data)
    return Inputs(objects=[K8sObject(doc.data, doc.file, doc.line)])


READER = register_reader(
    Reader(
        name="nvidia-helm-values",
        reads="NVIDIA device plugin and DRA driver Helm values",
        recognises=recognises,
        read=read,
    )
)
