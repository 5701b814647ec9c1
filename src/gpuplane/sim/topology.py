"""Topology in the twin: the nodes of a TAS pool in their domains, the team's placement request, and
the runtime factor of the level a gang spans.

A pool that declares `topology` has a Kueue `Topology` and a TAS flavor (render); the twin gives
Kueue's TAS (`gpuplane.kueue.tas`, the same code as `explain`) one node per `maxNodes` of the pool,
labelled with its domain at every level: node i sits in domain i // size of each level whose
`domainSizes` entry is given (a level without one holds every node of the pool), hostname last.
TAS therefore sees the pool at its full size (the capacity a reservation or a fixed-size pool
holds); the twin's fleet still provisions and bills nodes as the autoscaler decides.
Each pod of a synthetic node may use every GPU unit of the node, and the node allows as many pods as
it has GPU units (every twin pod asks for at least one unit), so pods never bind before GPUs.

A team's `placement` (required or preferred level) applies to every pod set of more than one pod
(a multi-node gang); other pod sets of a TAS-only ClusterQueue are placed unconstrained, as Kueue
does. When a gang is admitted, the smallest domain holding all its pods decides its runtime factor
(`spec.topology.span_factor`: the pool's `slowdown`, else fabric.yaml's per-tier figures); a gang
on one node runs at full speed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from gpuplane.kueue.objects import ResourceFlavor
from gpuplane.kueue.tas.model import TASNode, Topology, TopologyAssignment, TopologyRequest
from gpuplane.kueue.tas.state import TASState
from gpuplane.spec.models import NodePool, PlatformSpec
from gpuplane.spec.topology import domain_values, pool_levels, span_factor, topology_name
from gpuplane.vocab import HOSTNAME_LABEL


@dataclass
class PoolTopologyModel:
    """One TAS pool in the twin: its levels, domain sizes and the factor per spanned level."""

    pool: str
    levels: tuple[str, ...]
    paths: list[tuple[str, ...]]
    """Label values of each node, coarse to fine (`spec.topology.domain_values`)."""
    factors: dict[int | None, float]
    hostname_to_path: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def span(self, assignment: TopologyAssignment) -> int | None:
        """The deepest level index whose one domain holds every pod (None: several top domains)."""
        paths = []
        for d in assignment.domains:
            if assignment.levels and assignment.levels[-1] == HOSTNAME_LABEL and len(assignment.levels) == 1:
                path = self.hostname_to_path.get(d.values[-1])
                if path is None:
                    return None
                paths.append(path)
            else:
                paths.append(tuple(d.values))
        if not paths:
            return len(self.levels) - 1
        deepest: int | None = None
        for depth in range(len(self.levels)):
            if len({p[: depth + 1] for p in paths}) == 1:
                deepest = depth
            else:
                break
        return deepest


@dataclass
class TwinTopology:
    """Every TAS pool of a spec and every team's placement request."""

    pools: dict[str, PoolTopologyModel]
    placement: dict[str, TopologyRequest]

    def request(self, team: str, pods: int) -> TopologyRequest | None:
        """The topology request of a pod set of `pods` pods from `team` (gangs only)."""
        if pods <= 1:
            return None
        return self.placement.get(team)

    def factor(self, flavor_pool: str, assignment: TopologyAssignment | None) -> float:
        """Runtime factor of a gang with this assignment in this pool (1.0 without topology)."""
        model = self.pools.get(flavor_pool)
        if model is None or assignment is None:
            return 1.0
        return model.factors[model.span(assignment)]

    def tas_state(
        self, flavors: Iterable[ResourceFlavor], per_node: Mapping[str, Mapping[str, int]]
    ) -> TASState:
        """Kueue's TAS state for the twin: the Topologies and the synthetic nodes of every TAS pool."""
        by_topology = {f.topology_name: f for f in flavors if f.topology_name}
        topologies = []
        nodes: list[TASNode] = []
        for name, model in sorted(self.pools.items()):
            flavor = by_topology.get(name)
            if flavor is None:
                continue
            topologies.append(Topology(name, model.levels))
            alloc = {res: units * 1000 for res, units in per_node.get(name, {}).items()}
            alloc["pods"] = max(1, sum(per_node.get(name, {}).values())) * 1000
            for i, path in enumerate(model.paths):
                labels = dict(flavor.node_labels)
                labels.update(zip(model.levels, path, strict=True))
                host = labels.get(HOSTNAME_LABEL, f"{name}-n{i}")
                model.hostname_to_path[host] = path
                nodes.append(TASNode(f"{name}-n{i}", labels, alloc))
        return TASState(topologies, nodes)


def twin_topology(spec: PlatformSpec) -> TwinTopology | None:
    """The spec's TAS pools and placements, or None when no GPU pool declares a topology."""
    pools: dict[str, PoolTopologyModel] = {}
    for pool in spec.node_pools:
        levels = pool_levels(spec, pool) if pool.is_gpu and pool.gpus > 0 else None
        if not levels:
            continue
        pools[topology_name(pool)] = _model(spec, pool, levels)
    if not pools:
        return None
    placement: dict[str, TopologyRequest] = {}
    for team in spec.teams:
        if team.placement is not None and (team.placement.required or team.placement.preferred):
            placement[team.name] = TopologyRequest(
                required=team.placement.required, preferred=team.placement.preferred
            )
    return TwinTopology(pools, placement)


def _model(spec: PlatformSpec, pool: NodePool, levels: tuple[str, ...]) -> PoolTopologyModel:
    assert pool.topology is not None
    factors: dict[int | None, float] = {i: span_factor(spec, pool, i) for i in range(len(levels))}
    factors[None] = span_factor(spec, pool, None)
    paths = [domain_values(pool, levels, i) for i in range(pool.max_nodes)]
    return PoolTopologyModel(pool.name, levels, paths, factors)
