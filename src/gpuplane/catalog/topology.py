"""Topology and fabric facts: each provider's topology node labels (providers.yaml `topology`) and
the fabrics' devices, NCCL environment and per-tier runtime factors (fabric.yaml), with sources.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from gpuplane.catalog.loader import CatalogDataError, read_yaml

FABRICS: tuple[str, ...] = ("none", "EFA", "InfiniBand", "RoCE", "TCPXO")
TIERS: tuple[str, ...] = ("tier1", "tier2", "tier3", "tier4", "cluster")


@dataclass(frozen=True)
class ProviderTopology:
    """A provider's topology labels, coarse to fine (None: the provider publishes none)."""

    provider: str
    levels: tuple[str, ...] | None
    placement: dict[str, Any] | None
    note: str
    source: str
    date: str

    def cite(self) -> str:
        """The fact's source and the date it was read, for a citation."""
        return f"{self.source}, read {self.date}"


@dataclass(frozen=True)
class Fabric:
    """One fabric: the extended resource a pod requests for it, NCCL env, runtime factor per tier."""

    name: str
    device_resource: str | None
    nccl_env: dict[str, str]
    runtime_factor: dict[str, float]
    note: str
    busbw: dict[str, Any] = field(default_factory=dict)


@functools.cache
def provider_topology(provider: str) -> ProviderTopology | None:
    """The `topology` fact of a provider in providers.yaml (None when the provider has none)."""
    data = read_yaml("providers.yaml")
    raw = ((data.get("providers") or {}).get(provider) or {}).get("topology")
    if raw is None:
        return None
    if not isinstance(raw, dict) or not raw.get("source") or not raw.get("date"):
        raise CatalogDataError(f"providers.yaml {provider}.topology: a fact with value, source and date")
    value = raw.get("value")
    levels = tuple(str(v) for v in value) if isinstance(value, list) else None
    placement = raw.get("placement") if isinstance(raw.get("placement"), dict) else None
    return ProviderTopology(
        provider,
        levels,
        placement,
        " ".join(str(raw.get("note") or "").split()),
        str(raw["source"]),
        str(raw["date"]),
    )


@functools.cache
def fabrics() -> dict[str, Fabric]:
    """Every fabric of fabric.yaml."""
    data = read_yaml("fabric.yaml")
    out: dict[str, Fabric] = {}
    for name, raw in (data.get("fabrics") or {}).items():
        factors = raw.get("runtime_factor") or {}
        missing = [t for t in TIERS if t not in factors]
        if missing:
            raise CatalogDataError(f"fabric.yaml {name}: runtime_factor misses {', '.join(missing)}")
        out[str(name)] = Fabric(
            str(name),
            raw.get("device_resource"),
            {str(k): str(v) for k, v in (raw.get("nccl_env") or {}).items()},
            {str(k): float(v) for k, v in factors.items()},
            " ".join(str(raw.get("note") or "").split()),
            dict(raw.get("busbw_gbps") or {}),
        )
    if set(out) != set(FABRICS):
        raise CatalogDataError(f"fabric.yaml: expected fabrics {', '.join(FABRICS)}")
    return out


def kubelet_max_pods() -> int:
    """The kubelet's default maxPods (fabric.yaml `kubelet_max_pods`)."""
    return int(read_yaml("fabric.yaml")["kubelet_max_pods"]["value"])


def fabric_source() -> str:
    """The fabric file's citation."""
    data = read_yaml("fabric.yaml")
    return f"{' '.join(str(data.get('source')).split())}, read {data.get('date')}"
