"""A pool's topology as the spec and the provider's facts decide it, and its checks.

Levels come from `nodePools[].topology.levels` or, when omitted, the provider's topology labels
(`catalog/data/providers.yaml`, fact `topology`). Kueue's Topology rules (v0.19.2
`apis/kueue/v1beta2/topology_types.go`: 1-16 unique levels, kubernetes.io/hostname only last) are
checked here so `render` never writes a Topology the API server rejects. A team's placement level
must be a level of every topology pool the team holds quota on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from gpuplane.catalog.topology import TIERS, fabrics, kubelet_max_pods, provider_topology
from gpuplane.errors import Problem
from gpuplane.spec import derived
from gpuplane.spec.models import NodePool, PlatformSpec
from gpuplane.vocab import HOSTNAME_LABEL

Report = Callable[[tuple[str | int, ...], str, str], Problem]
MAX_LEVELS = 16  # Topology spec.levels maxItems (kueue.x-k8s.io_topologies.yaml)
CLUSTER = "cluster"


def pool_levels(spec: PlatformSpec, pool: NodePool) -> tuple[str, ...] | None:
    """The pool's topology levels, coarse to fine (None: no topology declared or known)."""
    if pool.topology is None:
        return None
    if pool.topology.levels:
        return tuple(pool.topology.levels)
    fact = provider_topology(spec.cluster.provider)
    return fact.levels if fact is not None else None


def topology_name(pool: NodePool) -> str:
    """The Kueue Topology object of a pool (one per pool, named after it)."""
    return pool.name


def domain_values(pool: NodePool, levels: tuple[str, ...], i: int) -> tuple[str, ...]:
    """The level values of the pool's node i: domain i // size at each level with a `domainSizes`
    entry (a level without one holds every node of the pool), hostname `<pool>-n<i>`."""
    sizes = pool.topology.domain_sizes if pool.topology is not None else {}
    out = []
    for depth, level in enumerate(levels):
        if level == HOSTNAME_LABEL:
            out.append(f"{pool.name}-n{i}")
        else:
            size = sizes.get(level)
            out.append(f"{pool.name}-l{depth}-{i // size if size else 0}")
    return tuple(out)


def synthetic_nodes(spec: PlatformSpec) -> list[dict[str, Any]]:
    """Node objects standing in for every topology pool at `maxNodes`: the pool's labels, its
    domains, and allocatable GPUs (or their resources), fabric devices, vCPUs, memory and pods
    (catalog figures; capacity, not allocatable: the kubelet's reservations are not modelled)."""
    out: list[dict[str, Any]] = []
    for pool in spec.node_pools:
        levels = pool_levels(spec, pool) if pool.is_gpu else None
        if not levels or pool.topology is None:
            continue
        alloc: dict[str, str] = {res: str(n) for res, n in derived.resources_per_node(pool).items()}
        device = fabrics()[pool.topology.fabric.type].device_resource
        if device and pool.topology.fabric.nics_per_node:
            alloc[str(device)] = str(pool.topology.fabric.nics_per_node)
        if pool.cpu_per_node:
            alloc["cpu"] = f"{pool.cpu_per_node:g}"
        if pool.memory_gib_per_node:
            alloc["memory"] = f"{pool.memory_gib_per_node:g}Gi"
        alloc["pods"] = str(kubelet_max_pods())
        for i in range(pool.max_nodes):
            labels = derived.node_labels(pool)
            labels.update(zip(levels, domain_values(pool, levels, i), strict=True))
            out.append(
                {
                    "apiVersion": "v1",
                    "kind": "Node",
                    "metadata": {"name": labels.get(HOSTNAME_LABEL, f"{pool.name}-n{i}"), "labels": labels},
                    "spec": {
                        "taints": [{"key": t.key, "value": t.value, "effect": t.effect} for t in pool.taints]
                    },
                    "status": {"allocatable": alloc, "conditions": [{"type": "Ready", "status": "True"}]},
                }
            )
    return out


def span_factor(spec: PlatformSpec, pool: NodePool, level_index: int | None) -> float:
    """Runtime factor of a multi-node job whose pods fit one domain of `level_index` (None: several
    top-level domains). Levels of one node (hostname, or a `domainSizes` of 1, such as GKE's
    gce-topology-host on A3 Mega) are the host: a job inside one has 1.0. Tier 1 is the finest
    level above them, and so on up (catalog/data/fabric.yaml)."""
    levels = pool_levels(spec, pool) or ()
    assert pool.topology is not None
    sizes = pool.topology.domain_sizes

    def node_like(level: str) -> bool:
        return level == HOSTNAME_LABEL or sizes.get(level) == 1

    if level_index is not None and node_like(levels[level_index]):
        return 1.0
    key = levels[level_index] if level_index is not None else CLUSTER
    if key in pool.topology.slowdown:
        return pool.topology.slowdown[key]
    network = [lv for lv in levels if not node_like(lv)]
    tier = len(network) + 1 if level_index is None else len(network) - network.index(levels[level_index])
    factors = fabrics()[pool.topology.fabric.type].runtime_factor
    return factors[f"tier{tier}"] if tier <= 4 else factors[CLUSTER]


def topology_problems(spec: PlatformSpec, at: Report) -> Iterator[Problem]:
    """Levels known and valid per Kueue, domain sizes and slowdowns name levels, placements exist."""
    for index, pool in enumerate(spec.node_pools):
        topo = pool.topology
        if topo is None:
            continue
        base = ("nodePools", index, "topology")
        levels = pool_levels(spec, pool)
        if levels is None:
            fact = provider_topology(spec.cluster.provider)
            why = fact.note if fact is not None else "the provider has no topology fact"
            yield at(
                (*base, "levels"),
                f"no default topology levels for {spec.cluster.provider}: list them ({why})",
                "error",
            )
            continue
        if not 1 <= len(levels) <= MAX_LEVELS or len(set(levels)) != len(levels):
            yield at((*base, "levels"), f"a Topology has 1 to {MAX_LEVELS} unique levels", "error")
        if HOSTNAME_LABEL in levels[:-1]:
            yield at(
                (*base, "levels"),
                f"{HOSTNAME_LABEL} may only be the last (lowest) level (Kueue Topology validation)",
                "error",
            )
        for key in topo.domain_sizes:
            if key not in levels:
                yield at(
                    (*base, "domainSizes", key), f"not a level of this pool: {', '.join(levels)}", "error"
                )
            elif topo.domain_sizes[key] < 1:
                yield at((*base, "domainSizes", key), "a domain holds at least one node", "error")
        for key in topo.slowdown:
            if key not in levels and key != CLUSTER:
                yield at((*base, "slowdown", key), f"not a level of this pool nor {CLUSTER!r}", "error")
        if topo.fabric.type == "none" and topo.fabric.nics_per_node:
            yield at((*base, "fabric", "nicsPerNode"), "NICs given for fabric none", "warning")
    for t_index, team in enumerate(spec.teams):
        place = team.placement
        if place is None:
            continue
        if place.required and place.preferred:
            yield at(("teams", t_index, "placement"), "give required or preferred, not both", "error")
        level = place.required or place.preferred
        if not level:
            continue
        pools = [spec.pool(q.pool) for q in team.quotas]
        with_topology = [p for p in pools if p is not None and p.topology is not None]
        if not with_topology:
            yield at(("teams", t_index, "placement"), "none of the team's pools declares a topology", "error")
        for pool in with_topology:
            levels = pool_levels(spec, pool) or ()
            if level not in levels:
                yield at(
                    ("teams", t_index, "placement"),
                    f"level {level} is not in pool {pool.name}'s topology ({', '.join(levels)})",
                    "error",
                )


__all__ = [
    "CLUSTER",
    "TIERS",
    "domain_values",
    "pool_levels",
    "span_factor",
    "synthetic_nodes",
    "topology_name",
    "topology_problems",
]
