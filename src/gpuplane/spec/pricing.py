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


def declared_cost_problems(spec: PlatformSpec, at: Locate) -> list[Problem]:
    """What the spec declares for the overhead terms must be computable: a control-plane tier the
    catalog prices, a price for declared storage and traffic, volumes of known teams and pools.
    A CPU pool without a price is a warning (its nodes' term is then "not declared")."""
    from gpuplane.catalog.control_plane import control_plane_fee, control_plane_tiers

    costs, provider = spec.costs, spec.cluster.provider
    given = costs.model_fields_set
    problems: list[Problem] = []
    if costs.control_plane_tier and control_plane_fee(provider, costs.control_plane_tier) is None:
        tiers = ", ".join(control_plane_tiers(provider)) or "none"
        problems.append(
            at(
                ("costs", "controlPlaneTier"),
                f"no control-plane fee for tier {costs.control_plane_tier!r} on {provider} (catalog tiers: {tiers})",
            )
        )
    if costs.storage and "storage_per_gib_month" not in given:
        problems.append(
            at(("costs", "storage"), "storage volumes are declared: set costs.storagePerGiBMonth")
        )
    teams = {t.name for t in spec.teams}
    pools = {p.name for p in spec.node_pools}
    for i, volume in enumerate(costs.storage):
        if volume.team is not None and volume.team not in teams:
            problems.append(at(("costs", "storage", i, "team"), f"unknown team {volume.team!r}"))
        if volume.pool is not None and volume.pool not in pools:
            problems.append(at(("costs", "storage", i, "pool"), f"unknown pool {volume.pool!r}"))
    if costs.network is not None and "network_per_gib" not in given:
        problems.append(at(("costs", "network"), "network traffic is declared: set costs.networkPerGiB"))
    return problems


def cpu_price_warnings(
    spec: PlatformSpec, at: Callable[[tuple[str | int, ...], str], Problem]
) -> list[Problem]:
    """A warning per CPU pool without a price, neither `costs.pools` nor a catalog row for its VM
    size (the CPU nodes' term is then not declared)."""
    out = []
    catalog = load_catalog()
    for index, pool in enumerate(spec.node_pools):
        override = spec.costs.pools.get(pool.name)
        row = (
            catalog.price(spec.cluster.provider, pool.vm_size, spec.cluster.region) if pool.vm_size else None
        )
        if not pool.is_gpu and row is None and (override is None or override.on_demand_hourly is None):
            out.append(
                at(
                    ("nodePools", index, "name"),
                    f"CPU pool {pool.name!r} has no price, so its nodes' cost is 'not declared': "
                    f"set costs.pools.{pool.name}.onDemandHourly",
                )
            )
    return out


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
