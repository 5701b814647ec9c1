"""What a multi-node suite pod needs to use the pool's fabric: device requests and NCCL environment.

    fabric_for(suite)   # Fabric(devices={EFA_RESOURCE: "32"}, env={"FI_PROVIDER": "efa", ...}, note=None)

Facts per fabric (resource, devices per pod, environment, sources) are `data/fabrics.yaml`;
resource names come from `gpuplane.vocab`. A fabric whose device count is not known for the
pool's VM size is a usage error, never a silent pod without devices.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml

from gpuplane.errors import UsageError
from gpuplane.vocab import FABRIC_RESOURCES

__all__ = ["Fabric", "fabric_for", "fabrics"]


@dataclass(frozen=True)
class Fabric:
    """Devices (resource -> quantity string) and environment one multi-node pod gets."""

    name: str | None
    devices: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    note: str | None = None


@functools.cache
def fabrics() -> dict[str, Any]:
    """`data/fabrics.yaml`."""
    text = resources.files("gpuplane.acceptance").joinpath("data/fabrics.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def fabric_for(name: str | None, vm_size: str, nodes: int) -> Fabric:
    """The fabric devices and environment of a suite on `nodes` nodes of `vm_size` (none on one node)."""
    entry = fabrics().get(name or "")
    if nodes < 2 or entry is None:
        return Fabric(name)
    env = {str(k): str(v) for k, v in (entry.get("env") or {}).items()}
    if "resource" not in entry:
        return Fabric(name, {}, env, entry.get("note"))
    resource = FABRIC_RESOURCES[entry["resource"]]
    count = entry.get("per_node") or (entry.get("per_vm_size") or {}).get(vm_size)
    if count is None:
        known = ", ".join(sorted(entry.get("per_vm_size") or {})) or "none"
        raise UsageError(
            f"no {resource} device count is known for VM size {vm_size!r} on fabric {name} "
            f"(data/fabrics.yaml knows: {known}); choose another --fabric or add the VM size to the data",
            option="--fabric",
        )
    return Fabric(name, {resource: str(int(count))}, env, entry.get("note"))
