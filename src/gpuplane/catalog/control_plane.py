"""Managed control-plane fees per provider and tier (`data/control_plane.yaml`, each with its source)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from gpuplane.catalog.loader import CatalogDataError, read_yaml


@dataclass(frozen=True)
class ControlPlaneFee:
    """What one cluster's managed control plane costs per hour on one provider tier."""

    provider: str
    tier: str
    hourly: float
    source: str
    date: str


@functools.cache
def control_plane_fees() -> dict[tuple[str, str], ControlPlaneFee]:
    """Every (provider, tier) fee in the catalog."""
    out: dict[tuple[str, str], ControlPlaneFee] = {}
    for provider, tiers in (read_yaml("control_plane.yaml") or {}).items():
        for tier, entry in tiers.items():
            try:
                fee = ControlPlaneFee(
                    provider, tier, float(entry["hourly"]), str(entry["source"]), str(entry["date"])
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise CatalogDataError(f"control_plane.yaml {provider}.{tier}: {exc}") from exc
            out[(provider, tier)] = fee
    return out


def control_plane_fee(provider: str, tier: str) -> ControlPlaneFee | None:
    """The fee of `tier` (case-insensitive) on `provider`, or None when the catalog has none."""
    return control_plane_fees().get((provider.lower(), tier.strip().lower()))


def control_plane_tiers(provider: str) -> list[str]:
    """The tiers the catalog prices for `provider`."""
    return [tier for (p, tier) in control_plane_fees() if p == provider.lower()]
