"""A team's quota per pool as Kueue sees it: GPU resources from the spec, plus cpu and memory
in proportion to the GPU share, because Kueue admits a workload only when every resource it
requests is covered by the ClusterQueue (kueue.md section 5, "resource X unavailable").

One unit of a GPU resource stands for a share of a physical GPU: a whole GPU, 1/replicas of a
time-sliced or MPS GPU, 1/instances of a single-strategy MIG GPU, or compute slices / 7 of a
mixed-strategy or DRA MIG instance (a DRA claim of a whole or shared GPU is a whole GPU). Its cpu
and memory are that share of the pool's per-GPU cpu and memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuplane.render.common import cpu_quantity, memory_quantity
from gpuplane.spec import derived
from gpuplane.spec.models import NodePool, PlatformSpec, Team


@dataclass(frozen=True)
class ResourceQuota:
    """nominalQuota / borrowingLimit / lendingLimit of one resource (None = Kueue default)."""

    nominal: int | str
    borrowing: int | str | None = None
    lending: int | str | None = None


@dataclass
class FlavorQuota:
    """One flavor (pool) of a team's ClusterQueue with its resources."""

    flavor: str
    pool: NodePool
    resources: dict[str, ResourceQuota] = field(default_factory=dict)
    gpu_caps: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class _GpuQuota:
    nominal: int
    borrowing: int | None
    lending: int | None


def unit_gpu_share(pool: NodePool, resource: str) -> float:
    """The share of one physical GPU that one unit of `resource` is on this pool."""
    return derived.unit_gpu_share(pool, resource)


def _gpu_quotas(pool: NodePool, team: Team) -> dict[str, _GpuQuota]:
    """The team's GPU quotas on a pool, by resource; resources it has none of get nominal 0."""
    out: dict[str, _GpuQuota] = {}
    for quota in team.quotas:
        if quota.pool != pool.name:
            continue
        resource = derived.quota_resource(pool, quota)
        if resource is None:
            continue
        out[resource] = _GpuQuota(quota.nominal, quota.borrowing_limit, quota.lending_limit)
    for resource in derived.resources_per_node(pool):
        out.setdefault(resource, _GpuQuota(0, None, None))
    return dict(sorted(out.items()))


def _scaled(
    gpu: dict[str, _GpuQuota], pool: NodePool, per_gpu: float
) -> tuple[float, float | None, float | None]:
    """cpu or memory (per physical GPU = `per_gpu`) that goes with the GPU quotas."""
    share = {r: unit_gpu_share(pool, r) * per_gpu for r in gpu}
    nominal = sum(q.nominal * share[r] for r, q in gpu.items())
    borrowing: float | None = None
    if all(q.borrowing is not None for q in gpu.values()):
        borrowing = sum((q.borrowing or 0) * share[r] for r, q in gpu.items())
    lending: float | None = None
    if any(q.lending is not None for q in gpu.values()):
        lending = sum((q.nominal if q.lending is None else q.lending) * share[r] for r, q in gpu.items())
    return nominal, borrowing, lending


def _gpu_cap(pool: NodePool, resource: str, quota: _GpuQuota, in_cohort: bool) -> int:
    """Most of `resource` the team can hold on the pool: nominal + borrowing, bounded by the pool."""
    pool_max = derived.max_resources(pool).get(resource, 0)
    if not in_cohort:
        return min(quota.nominal, pool_max) if pool_max else quota.nominal
    if quota.borrowing is None:
        return max(pool_max, quota.nominal)
    return min(quota.nominal + quota.borrowing, max(pool_max, quota.nominal))


def flavor_quota(spec: PlatformSpec, pool: NodePool, team: Team) -> FlavorQuota:
    """The team's quotas on one pool: GPU resources, then cpu and memory in proportion."""
    in_cohort = bool(derived.cohort_of(spec, team))
    gpu = _gpu_quotas(pool, team)
    result = FlavorQuota(flavor=derived.flavor_name(pool), pool=pool)
    cpu_per_gpu, mem_per_gpu = derived.cpu_memory_per_gpu(pool)
    cpu = _scaled(gpu, pool, cpu_per_gpu)
    mem = _scaled(gpu, pool, mem_per_gpu)
    result.resources["cpu"] = ResourceQuota(
        cpu_quantity(cpu[0]),
        None if cpu[1] is None else cpu_quantity(cpu[1]),
        None if cpu[2] is None else cpu_quantity(cpu[2]),
    )
    result.resources["memory"] = ResourceQuota(
        memory_quantity(mem[0]),
        None if mem[1] is None else memory_quantity(mem[1]),
        None if mem[2] is None else memory_quantity(mem[2]),
    )
    for resource, q in gpu.items():
        result.resources[resource] = ResourceQuota(q.nominal, q.borrowing, q.lending)
        result.gpu_caps[resource] = _gpu_cap(pool, resource, q, in_cohort)
    return result


def team_pools(spec: PlatformSpec, team: Team) -> list[NodePool]:
    """The GPU pools a team has quota on, in the order its quotas name them (= flavor preference).

    Spot pools are left out for teams that may not use spot capacity.
    """
    pools: list[NodePool] = []
    for quota in team.quotas:
        pool = spec.pool(quota.pool)
        if pool is None or not pool.is_gpu or pool in pools:
            continue
        if pool.spot.enabled and not team.spot_allowed:
            continue
        pools.append(pool)
    return pools


def team_flavor_quotas(spec: PlatformSpec, team: Team) -> list[FlavorQuota]:
    """Every GPU flavor of the team's ClusterQueue, in preference order."""
    return [flavor_quota(spec, pool, team) for pool in team_pools(spec, team)]


def cpu_pools(spec: PlatformSpec) -> list[NodePool]:
    """The spec's CPU pools (no accelerator) that take work, in spec order: each is a flavor for
    CPU-only pod sets. A CPU pool with `workloadClasses: []` (a system pool) is left out."""
    return [pool for pool in spec.node_pools if not pool.is_gpu and pool.workload_classes]


def cpu_pool_share(spec: PlatformSpec, pool: NodePool) -> tuple[float, float]:
    """(vCPUs, GiB) of a CPU pool at maxNodes that each team gets as nominal quota: the pool split
    equally between the spec's teams (0 when its cpu or memory per node is unknown). In a cohort a
    team may borrow the rest (no borrowingLimit), so one team can use an idle pool whole."""
    teams = max(len(spec.teams), 1)
    cpu = (pool.cpu_per_node or 0.0) * pool.max_nodes / teams
    mem = (pool.memory_gib_per_node or 0.0) * pool.max_nodes / teams
    return cpu, mem


def cpu_flavor_quota(spec: PlatformSpec, pool: NodePool) -> FlavorQuota:
    """A team's quota on a CPU pool: cpu and memory only, so only pod sets that request no GPU fit."""
    cpu, mem = cpu_pool_share(spec, pool)
    result = FlavorQuota(flavor=derived.flavor_name(pool), pool=pool)
    result.resources["cpu"] = ResourceQuota(cpu_quantity(cpu))
    result.resources["memory"] = ResourceQuota(memory_quantity(mem))
    return result


def team_all_flavor_quotas(spec: PlatformSpec, team: Team) -> list[FlavorQuota]:
    """Every flavor of the team's ClusterQueue in Kueue's try order: CPU pools first, then the GPU
    pools in quota order.

    Kueue tries a resource group's flavors in order for each pod set and takes the first whose
    quota covers every resource the pod set requests (flavorassigner.go `findFlavorForPodSets`):
    a CPU-only pod set (a Ray head, an MPI launcher, a CPU Job) fits the first CPU flavor; a GPU pod
    set does not (the CPU flavors list every GPU resource at 0) and goes on to the GPU flavors.
    Spot CPU pools are left out for teams that may not use spot capacity, as spot GPU pools are.
    """
    cpu = [cpu_flavor_quota(spec, p) for p in cpu_pools(spec) if team.spot_allowed or not p.spot.enabled]
    return cpu + team_flavor_quotas(spec, team)
