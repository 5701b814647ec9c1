"""Resolve a typed spec against the catalog: canonical accelerator names, GPUs, vCPUs and memory
per node from the VM SKU. Mutates the spec in place; returns located problems."""

from __future__ import annotations

from collections.abc import Callable

from gpuplane.catalog import load_catalog
from gpuplane.errors import Problem
from gpuplane.spec.models import NodePool, PlatformSpec
from gpuplane.spec.pricing import did_you_mean

Locate = Callable[[tuple[str | int, ...], str], Problem]


def _resolve_pool(spec: PlatformSpec, index: int, pool: NodePool, at: Locate) -> list[Problem]:
    catalog = load_catalog()
    problems: list[Problem] = []
    base: tuple[str | int, ...] = ("nodePools", index)
    if pool.accelerator:
        acc = catalog.accelerator(pool.accelerator)
        if acc is None:
            known = ", ".join(a.name for a in catalog.accelerators())
            problems.append(
                at((*base, "accelerator"), f"unknown accelerator {pool.accelerator!r} (known: {known})")
            )
            return problems
        pool.accelerator = acc.name
        if pool.sharing.layout:
            # Canonical profile names (1g.10gb.me -> 1g.10gb+me); unknown ones are left for the checks.
            pool.sharing.layout = [
                profile.name if (profile := acc.mig_profile(p)) else p for p in pool.sharing.layout
            ]
    sku = catalog.vm_sku(spec.cluster.provider, pool.vm_size) if pool.vm_size else None
    if sku is not None:
        if pool.accelerator and sku.accelerator and sku.accelerator != pool.accelerator:
            problems.append(
                at((*base, "vmSize"), f"{sku.name} carries {sku.accelerator}, not {pool.accelerator}")
            )
        if pool.gpus_per_node is None:
            pool.gpus_per_node = sku.gpus
        elif pool.accelerator and pool.gpus_per_node != sku.gpus:
            problems.append(
                at(
                    (*base, "gpusPerNode"),
                    f"{sku.name} has {sku.gpus} GPUs per node, not {pool.gpus_per_node}",
                )
            )
        if pool.cpu_per_node is None and sku.vcpus:
            pool.cpu_per_node = float(sku.vcpus)
        if pool.memory_gib_per_node is None and sku.memory_gb:
            pool.memory_gib_per_node = float(sku.memory_gb)
    if pool.accelerator and pool.gpus_per_node is None:
        what = (
            f"VM size {pool.vm_size!r} is not in the {spec.cluster.provider} catalog"
            f"{did_you_mean(spec.cluster.provider, pool.vm_size)}"
            if pool.vm_size
            else "no vmSize given"
        )
        problems.append(
            at(
                (*base, "vmSize" if pool.vm_size else "gpusPerNode"),
                f"{what}: fix vmSize, or set gpusPerNode and costs.pools.{pool.name} (its price)",
            )
        )
    if pool.accelerator and pool.gpus_per_node == 0:
        problems.append(at((*base, "gpusPerNode"), "a GPU pool needs at least one GPU per node"))
    return problems


def _inherit_device_api(spec: PlatformSpec, pool: NodePool) -> None:
    """A pool without `deviceApi` takes the cluster's; it still counts as not set on the pool."""
    if pool.device_api is None:
        pool.device_api = spec.cluster.device_api
        pool.model_fields_set.discard("device_api")


def resolve_spec(spec: PlatformSpec, at: Locate) -> list[Problem]:
    """Fill derived per-pool facts from the catalog and the cluster defaults; report unknown
    accelerators and mismatches."""
    problems: list[Problem] = []
    for index, pool in enumerate(spec.node_pools):
        _inherit_device_api(spec, pool)
        problems += _resolve_pool(spec, index, pool, at)
    return problems
