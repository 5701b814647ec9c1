"""Node pools as the twin sees them: what one node advertises, what it costs, where it may run.

Built from the platform spec through `gpuplane.spec.derived` (one label schema, one resource
model, one price rule) so the twin's nodes are exactly the nodes `render` describes.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from gpuplane.costs import PoolPrice, pool_price
from gpuplane.spec import NodePool, PlatformSpec, derived
from gpuplane.vocab import is_mig_resource


@dataclass(frozen=True)
class PoolModel:
    """One pool: per-GPU resources (MIG slices, replicas), labels, taints, limits and price.

    `per_gpu` maps each extended resource to the units one physical GPU offers; `unit_gpu` is the
    share of a physical GPU one unit is (1 whole GPU, 1/replicas, MIG compute slices / 7).
    """

    index: int
    name: str
    accelerator: str
    gpus_per_node: int
    per_gpu: tuple[tuple[str, int], ...]
    unit_gpu: tuple[tuple[str, float], ...]
    labels: tuple[tuple[str, str], ...]
    taints: tuple[tuple[str, str, str], ...]
    zones: tuple[str, ...]
    min_nodes: int
    max_nodes: int
    spot: bool
    price: PoolPrice
    workload_classes: tuple[str, ...]
    sharing: str

    @property
    def per_node(self) -> dict[str, int]:
        """Units of each resource one node offers."""
        return {res: units * self.gpus_per_node for res, units in self.per_gpu}

    @property
    def node_hourly(self) -> float:
        """What one node costs per hour (through the one cost model)."""
        return self.price.node_hourly

    @property
    def gpu_second_price(self) -> float:
        """Price of one physical GPU-second (the node price split over its GPUs)."""
        return self.price.gpu_hourly / 3600.0

    def fraction(self, resource: str) -> float:
        """Share of a physical GPU that one unit of `resource` is."""
        return dict(self.unit_gpu).get(resource, 1.0)


def _unit_fractions(pool: NodePool, per_gpu: dict[str, int]) -> tuple[tuple[str, float], ...]:
    from gpuplane.catalog import load_catalog
    from gpuplane.sharing import resources

    acc = load_catalog().accelerator(pool.accelerator) if pool.accelerator else None
    out: list[tuple[str, float]] = []
    for res, units in sorted(per_gpu.items()):
        share = 1.0 / units if units else 1.0
        if acc is not None and is_mig_resource(res):
            with contextlib.suppress(ValueError):
                share = resources.gpu_fraction(res, acc)
        out.append((res, share))
    return tuple(out)


def pool_model(spec: PlatformSpec, pool: NodePool, index: int) -> PoolModel:
    """The twin's view of one spec pool."""
    per_gpu = derived.resources_per_gpu(pool) if pool.is_gpu else {}
    return PoolModel(
        index=index,
        name=pool.name,
        accelerator=pool.accelerator or "",
        gpus_per_node=pool.gpus,
        per_gpu=tuple(sorted(per_gpu.items())),
        unit_gpu=_unit_fractions(pool, per_gpu),
        labels=tuple(sorted(derived.node_labels(pool).items())),
        taints=tuple((t.key, t.value, t.effect) for t in pool.taints),
        zones=tuple(pool.zones) or ("",),
        min_nodes=pool.min_nodes,
        max_nodes=pool.max_nodes,
        spot=pool.spot.enabled,
        price=pool_price(spec, pool),
        workload_classes=tuple(pool.workload_classes),
        sharing=pool.sharing.mode,
    )


def pool_models(spec: PlatformSpec) -> list[PoolModel]:
    """Every GPU pool of the spec (CPU pools carry no GPU work and are left out)."""
    gpu_pools = [p for p in spec.node_pools if p.is_gpu and p.gpus > 0]
    return [pool_model(spec, pool, i) for i, pool in enumerate(gpu_pools)]
