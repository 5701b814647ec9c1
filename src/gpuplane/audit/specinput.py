"""The gpuplane platform spec as audit input: its node pools and which teams use each pool.

The spec is loaded with `gpuplane.spec.parse_spec` (typed, catalog-resolved); positions for
findings come from the raw YAML loaded again with `gpuplane.yamlio.load_one`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuplane.audit.pools import Pool
from gpuplane.render.device_configs import device_node_labels
from gpuplane.spec import PlatformSpec, derived, parse_spec
from gpuplane.yamlio import load_one


@dataclass
class SpecPoolUse:
    """Who may run on one spec pool: team names and the priority value of each team."""

    teams: list[str] = field(default_factory=list)
    priorities: dict[str, int | None] = field(default_factory=dict)


@dataclass
class SpecInput:
    """A loaded spec: its pools as audit `Pool`s and per-pool team usage."""

    file: str
    spec: PlatformSpec
    pools: list[Pool]
    use: dict[str, SpecPoolUse]


def _pool(spec_pool: Any, index: int, raw: Any, file: str) -> Pool:
    entry = raw["nodePools"][index] if isinstance(raw, dict) else {}
    p = Pool(
        name=spec_pool.name, source="spec", file=file, root=raw, path=("nodePools", index), kind="NodePool"
    )
    p.gpu = spec_pool.is_gpu and spec_pool.gpus > 0
    p.gpus_per_node = spec_pool.gpus or None
    p.resources = derived.resources_per_node(spec_pool) if p.gpu else {}
    p.min_nodes, p.fields["min"] = spec_pool.min_nodes, ("minNodes",)
    p.spot = spec_pool.spot.enabled
    p.fields["spot"] = ("spot",)
    p.zones = list(spec_pool.zones)
    p.fields["zones"] = ("zones",) if isinstance(entry, dict) and "zones" in entry else ("name",)
    p.taints = [(t.key, t.value, t.effect) for t in spec_pool.taints]
    p.fields["taints"] = ("taints",) if isinstance(entry, dict) and "taints" in entry else ("name",)
    p.labels = derived.node_labels(spec_pool)
    p.classes = set(spec_pool.workload_classes)
    p.fields["classes"] = ("workloadClasses",)
    p.driver_version = spec_pool.driver_version
    p.fields["driver"] = ("driverVersion",)
    p.sharing = spec_pool.sharing.mode
    p.fields["sharing"] = ("sharing",)
    p.waivers = set(spec_pool.waivers)
    topo = spec_pool.topology
    # A topology pool with a fabric or compact placement is rendered as one (eksctl efaEnabled, GKE
    # --placement-type COMPACT): the one-zone pool GPU018 exempts.
    p.compact_placement = topo is not None and (topo.compact_placement or topo.fabric.type != "none")
    p.accelerator = spec_pool.accelerator
    p.fabric = topo.fabric.type if topo is not None and topo.fabric.type != "none" else ""
    if topo is not None:
        p.fields["fabric"] = ("topology", "fabric")
    return p


def load_spec_input(text: str, file: str) -> SpecInput:
    """Parse a platform spec text into audit pools. Raises InputError on an invalid spec."""
    spec, _warnings = parse_spec(text, file)
    raw = load_one(text, file)
    pools = [_pool(sp, i, raw, file) for i, sp in enumerate(spec.node_pools)]
    for sp, pool in zip(spec.node_pools, pools, strict=True):
        pool.provider = spec.cluster.provider
        pool.labels.update(device_node_labels(spec, sp))  # the MIG config its nodes select
    values = {pc.name: pc.value for pc in spec.queueing.priority_classes}
    use: dict[str, SpecPoolUse] = {p.name: SpecPoolUse() for p in pools}
    for team in spec.teams:
        for quota in team.quotas:
            u = use.setdefault(quota.pool, SpecPoolUse())
            if team.name not in u.teams:
                u.teams.append(team.name)
                u.priorities[team.name] = values.get(team.priority_class or "")
    return SpecInput(file=file, spec=spec, pools=pools, use=use)
