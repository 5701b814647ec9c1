"""Every GPU pool has a price: the catalog's row for its VM size in the cluster's region, or the
spec's `costs.pools` override. A pool without one is an error here (never a silent 0 in the
twin, plan or account), and so is a spot pool whose VM has no spot price there.

Also the "did you mean" for a VM size the catalog does not list (difflib over the provider's
catalog names)."""

from __future__ import annotations

import difflib
from collections.abc import Callable

from gpuplane.catalog import load_catalog
from gpuplane.errors import Problem
from gpuplane.spec.models import NodePool, PlatformSpec

Locate = Callable[[tuple[str | int, ...], str], Problem]


def vm_suggestions(provider: str, name: str, limit: int = 3) -> list[str]:
    """Catalog VM sizes of `provider` closest to `name` (case-insensitive), best first."""
    names = [sku.name for sku in load_catalog().vm_skus(provider)]
    by_lower = {n.lower(): n for n in names}
    close = difflib.get_close_matches(name.lower(), list(by_lower), n=limit, cutoff=0.6)
    return [by_lower[c] for c in close]


def did_you_mean(provider: str, name: str) -> str:
    """` (did you mean X or Y?)`, or ``."""
    found = vm_suggestions(provider, name)
    return f" (did you mean {' or '.join(found)}?)" if found else ""


def _override_hint(pool: NodePool, spot: bool) -> str:
    key = "spotHourly" if spot else "onDemandHourly"
    return f"set costs.pools.{pool.name}.{key} (USD per node-hour)"


def price_problems(spec: PlatformSpec, at: Locate) -> list[Problem]:
    """One error per GPU pool whose node-hour price cannot be found (see the module docstring)."""
    catalog = load_catalog()
    provider, region = spec.cluster.provider, spec.cluster.region
    problems: list[Problem] = []
    for index, pool in enumerate(spec.node_pools):
        if not pool.is_gpu:
            continue
        override = spec.costs.pools.get(pool.name)
        on_demand = override.on_demand_hourly if override else None
        spot = override.spot_hourly if override else None
        where: tuple[str | int, ...] = ("nodePools", index, "vmSize" if pool.vm_size else "accelerator")
        row = catalog.price(provider, pool.vm_size, region) if pool.vm_size else None
        needs_spot = pool.spot.enabled
        have = spot if needs_spot else on_demand
        if have is not None:
            continue
        if row is not None:
            if not needs_spot or row.spot_hourly is not None:
                continue
            problems.append(
                at(
                    where,
                    f"pool {pool.name!r} runs on spot but the catalog has no spot price for {pool.vm_size} in"
                    f" {region} ({row.source}, {row.date}: {row.note or 'on-demand only'}): "
                    + _override_hint(pool, True),
                )
            )
            continue
        problems.append(at(where, _no_price(spec, pool, needs_spot)))
    return problems


def _no_price(spec: PlatformSpec, pool: NodePool, spot: bool) -> str:
    catalog = load_catalog()
    provider, region = spec.cluster.provider, spec.cluster.region
    hint = _override_hint(pool, spot)
    if not pool.vm_size:
        return f"pool {pool.name!r} has no vmSize, so no catalog price: set vmSize or {hint}"
    sku = catalog.vm_sku(provider, pool.vm_size)
    if sku is None:
        return (
            f"no price for pool {pool.name!r}: VM size {pool.vm_size!r} is not in the {provider} catalog"
            f"{did_you_mean(provider, pool.vm_size)}: fix the name or {hint}"
        )
    regions = sorted({p.region for p in sku.prices})
    if not regions:
        where = "the catalog has no price for it in any region (no public source found)"
    else:
        where = f"priced in: {', '.join(regions[:8])}{' ...' if len(regions) > 8 else ''}"
    return f"no price for pool {pool.name!r}: {sku.name} in {region}: {where}: {hint}"
