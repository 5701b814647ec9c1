"""Node pools as the twin sees them: what one node advertises, what it costs, where it may run.

Built from the platform spec through `gpuplane.spec.derived` (one label schema, one resource
model, one price rule) so the twin's nodes are exactly the nodes `render` describes.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuplane.costs import PoolPrice, pool_price
from gpuplane.sharing.resources import shared_resource_name
from gpuplane.spec import NodePool, PlatformSpec, derived
from gpuplane.vocab import GPU_RESOURCE, mig_resource


@dataclass(frozen=True)
class PoolModel:
    """One pool: per-GPU resources (MIG slices, replicas), labels, taints, limits and price.

    `per_gpu` maps each resource to the units one physical GPU offers (extended resources, or a DRA
    pool's quota names); `unit_gpu` is the share of a physical GPU one unit is (1 whole GPU,
    1/replicas, MIG compute slices / 7); `request_names` maps what a trace workload asks in the
    device plugin's names (a whole GPU, a shared GPU, a MIG profile) to the name it takes on this
    pool (`derived.request_resource`: itself, or the DRA claim's quota name).
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
    request_names: tuple[tuple[str, str], ...]

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

    def request_name(self, wanted: str) -> str | None:
        """The name a request for `wanted` (a device-plugin name) takes on this pool, or None when
        the pool offers no such device."""
        for name, on_pool in self.request_names:
            if name == wanted:
                return on_pool
        return None


def _request_names(pool: NodePool, per_gpu: dict[str, int]) -> tuple[tuple[str, str], ...]:
    """`derived.request_resource` for every device-plugin name a trace workload can ask of this
    pool: a whole or shared GPU, the pool's own resources and the MIG profiles of its layout."""
    layout = derived.mig_layout(pool) or []
    wanted = {GPU_RESOURCE, shared_resource_name(True), *per_gpu, *(mig_resource(p) for p in layout)}
    out = ((name, derived.request_resource(pool, name)) for name in sorted(wanted))
    return tuple((name, on_pool) for name, on_pool in out if on_pool is not None)


def pool_model(spec: PlatformSpec, pool: NodePool, index: int) -> PoolModel:
    """The twin's view of one spec pool."""
    per_gpu = derived.resources_per_gpu(pool) if pool.is_gpu else {}
    return PoolModel(
        index=index,
        name=pool.name,
        accelerator=pool.accelerator or "",
        gpus_per_node=pool.gpus,
        per_gpu=tuple(sorted(per_gpu.items())),
        unit_gpu=tuple((res, derived.unit_gpu_share(pool, res)) for res in sorted(per_gpu)),
        labels=tuple(sorted(derived.node_labels(pool).items())),
        taints=tuple((t.key, t.value, t.effect) for t in pool.taints),
        zones=tuple(pool.zones) or ("",),
        min_nodes=pool.min_nodes,
        max_nodes=pool.max_nodes,
        spot=pool.spot.enabled,
        price=pool_price(spec, pool),
        workload_classes=tuple(pool.workload_classes),
        sharing=pool.sharing.mode,
        request_names=_request_names(pool, per_gpu),
    )


def pool_models(spec: PlatformSpec) -> list[PoolModel]:
    """Every GPU pool of the spec (CPU pools carry no GPU work and are left out)."""
    gpu_pools = [p for p in spec.node_pools if p.is_gpu and p.gpus > 0]
    return [pool_model(spec, pool, i) for i, pool in enumerate(gpu_pools)]
