"""The search space: per GPU pool a list of candidate settings, and designs as one choice per pool.

Derived from the spec by default (`derive_space`), refined by plan.yaml (`SpaceFile`):
- VM size: the spec's, and the catalog's other sizes of the same provider and accelerator that
  have a price in the cluster's region;
- maxNodes: the spec's GPUs at maxNodes times each factor of `defaults.yaml`, in whole nodes of
  each VM size; minNodes as in the spec (a fixed-size pool stays fixed-size);
- spot on and off, except for pools that serve inference or hold quota of a team that does not
  allow spot (spot only where the spec allows it);
- MIG: the maximal layouts of the accelerator (`gpuplane.sharing.mig.maximal_layouts`) that offer
  every profile the workload asks for; time-slicing / MPS: the spec's replicas and the defaults.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from gpuplane.catalog import load_catalog
from gpuplane.plan.defaults import default
from gpuplane.plan.quotas import DEFAULT_MODE
from gpuplane.plan.spacefile import PoolSpace, SpaceFile
from gpuplane.sharing import mig
from gpuplane.spec import NodePool, PlatformSpec


@dataclass(frozen=True)
class SharingChoice:
    """How a candidate shares its GPUs (the spec's `sharing` section)."""

    mode: str = "exclusive"
    layout: tuple[str, ...] | None = None
    replicas: int = 1
    strategy: str = "single"
    config: str | None = None

    def label(self) -> str:
        """Short text for tables: `mig 3g.40gb+2g.20gb+...`, `time-slicing x4`, `exclusive`."""
        if self.mode == "mig":
            return "mig " + ("+".join(self.layout) if self.layout else str(self.config))
        if self.mode in ("time-slicing", "mps"):
            return f"{self.mode} x{self.replicas}"
        return self.mode


@dataclass(frozen=True)
class PoolChoice:
    """One candidate setting of one pool."""

    vm_size: str
    max_nodes: int
    min_nodes: int
    spot: bool
    sharing: SharingChoice

    def short(self) -> str:
        """`4x Standard_ND96amsr_A100_v4 spot exclusive` (minNodes when not 0)."""
        minimum = f" min {self.min_nodes}" if self.min_nodes else ""
        return f"{self.max_nodes}x {self.vm_size or 'nodes'}{minimum} {'spot' if self.spot else 'on-demand'} {self.sharing.label()}"

    def label(self) -> str:
        """`4x Standard_ND96amsr_A100_v4 (min 0) spot, exclusive`."""
        capacity = "spot" if self.spot else "on-demand"
        vm = self.vm_size or "nodes"
        return f"{self.max_nodes}x {vm} (min {self.min_nodes}) {capacity}, {self.sharing.label()}"


@dataclass(frozen=True)
class SearchSpace:
    """Candidates per searched pool; a design is one index per pool (first = the spec's own)."""

    pools: tuple[str, ...]
    candidates: tuple[tuple[PoolChoice, ...], ...]
    quotas: str = "scale"  # whether team quotas are part of a design (gpuplane.plan.quotas)

    @property
    def size(self) -> int:
        """How many designs the space holds."""
        return math.prod(len(c) for c in self.candidates) if self.candidates else 1

    def design(self, index: int) -> tuple[PoolChoice, ...]:
        """The design number `index` (mixed radix, the first pool varies slowest)."""
        out: list[PoolChoice] = []
        for cands in reversed(self.candidates):
            index, digit = divmod(index, len(cands))
            out.append(cands[digit])
        return tuple(reversed(out))

    def designs(self) -> Iterator[tuple[PoolChoice, ...]]:
        """Every design in index order."""
        yield from itertools.product(*self.candidates)


def sharing_of(pool: NodePool) -> SharingChoice:
    """The spec pool's sharing as a choice."""
    s = pool.sharing
    return SharingChoice(s.mode, tuple(s.layout) if s.layout else None, s.replicas, s.strategy, s.config)


def current_choice(pool: NodePool) -> PoolChoice:
    """The spec's own setting of a pool."""
    return PoolChoice(pool.vm_size, pool.max_nodes, pool.min_nodes, pool.spot.enabled, sharing_of(pool))


def _vm_candidates(spec: PlatformSpec, pool: NodePool) -> list[tuple[str, int]]:
    """(VM size, GPUs per node): the spec's first, then priced catalog sizes of the accelerator."""
    out = [(pool.vm_size, pool.gpus)]
    if not pool.vm_size:
        return out
    catalog = load_catalog()
    for sku in catalog.vm_skus(spec.cluster.provider):
        if sku.accelerator != pool.accelerator or sku.name.lower() == pool.vm_size.lower():
            continue
        if catalog.price(spec.cluster.provider, sku.name, spec.cluster.region) is not None:
            out.append((sku.name, sku.gpus))
    return out


def _node_counts(pool: NodePool, gpus_per_node: int) -> list[int]:
    target = pool.max_nodes * pool.gpus
    counts = {
        max(1, math.ceil(target * float(f) / max(gpus_per_node, 1) - 1e-9))
        for f in default("max_gpu_factors")
    }
    return sorted(counts)


def _spot_candidates(spec: PlatformSpec, pool: NodePool) -> list[bool]:
    serves_inference = "inference" in pool.workload_classes
    refused = any(not t.spot_allowed and any(q.pool == pool.name for q in t.quotas) for t in spec.teams)
    if serves_inference or refused:
        return [pool.spot.enabled]
    return [pool.spot.enabled, not pool.spot.enabled]


def _sharing_candidates(pool: NodePool, wanted_profiles: Sequence[str]) -> list[SharingChoice]:
    own = sharing_of(pool)
    out = [own]
    if pool.sharing.mode == "mig" and pool.sharing.layout:
        acc = load_catalog().accelerator(pool.accelerator or "")
        if acc is None:
            return out
        needed = set(wanted_profiles) & set(acc.mig_profiles) or set(pool.sharing.layout)
        for layout in mig.maximal_layouts(acc):
            if needed <= set(layout) and tuple(layout) != own.layout:
                strategy = "mixed" if len(set(layout)) > 1 else own.strategy
                out.append(SharingChoice("mig", tuple(layout), 1, strategy))
    elif pool.sharing.mode in ("time-slicing", "mps"):
        for replicas in default("time_slicing_replicas"):
            if replicas != own.replicas:
                out.append(SharingChoice(own.mode, None, int(replicas), own.strategy))
    return out


def _from_file(values: list[Any] | None, derived: list[Any]) -> list[Any]:
    return list(dict.fromkeys(values)) if values is not None else derived


def pool_candidates(
    spec: PlatformSpec, pool: NodePool, refine: PoolSpace | None, wanted_profiles: Sequence[str] = ()
) -> tuple[PoolChoice, ...]:
    """Every candidate of one pool, the spec's own setting first (when it is a candidate)."""
    own = current_choice(pool)
    if refine is not None and refine.fixed:
        return (own,)
    vms = _vm_candidates(spec, pool)
    if refine is not None and refine.vm_sizes is not None:
        known = dict(vms)
        catalog = load_catalog()
        vms = []
        for name in dict.fromkeys(refine.vm_sizes):
            sku = catalog.vm_sku(spec.cluster.provider, name)
            vms.append((name, known.get(name) or (sku.gpus if sku else pool.gpus)))
    spots = _from_file(refine.spot if refine else None, _spot_candidates(spec, pool))
    sharings = _sharing_candidates(pool, wanted_profiles)
    if refine is not None and refine.sharing is not None:
        sharings = [
            SharingChoice(s.mode, tuple(s.layout) if s.layout else None, s.replicas, s.strategy, s.config)
            for s in refine.sharing
        ]
    out: list[PoolChoice] = []
    for vm, gpus in vms:
        maxes = _from_file(refine.max_nodes if refine else None, _node_counts(pool, gpus))
        for max_nodes in maxes:
            for min_nodes in _min_candidates(pool, refine, max_nodes):
                for spot in spots:
                    out.extend(PoolChoice(vm, max_nodes, min_nodes, spot, s) for s in sharings)
    unique = list(dict.fromkeys(out))
    if own in unique:
        unique.remove(own)
        unique.insert(0, own)
    return tuple(unique)


def _min_candidates(pool: NodePool, refine: PoolSpace | None, max_nodes: int) -> list[int]:
    wanted = refine.min_nodes if refine is not None else None
    if wanted == "maxNodes" or (wanted is None and pool.min_nodes == pool.max_nodes):
        return [max_nodes]
    if isinstance(wanted, list):
        return sorted({min(m, max_nodes) for m in wanted})
    return [min(pool.min_nodes, max_nodes)]


def derive_space(
    spec: PlatformSpec, refine: SpaceFile | None = None, wanted_profiles: Sequence[str] = ()
) -> SearchSpace:
    """The search space of a spec: every GPU pool with its candidates (design 0 = the spec)."""
    names: list[str] = []
    candidates: list[tuple[PoolChoice, ...]] = []
    pools = refine.pools if refine is not None else {}
    for pool in spec.node_pools:
        if not pool.is_gpu:
            continue
        names.append(pool.name)
        candidates.append(pool_candidates(spec, pool, pools.get(pool.name), wanted_profiles))
    quotas = (refine.quotas if refine is not None else None) or DEFAULT_MODE
    return SearchSpace(tuple(names), tuple(candidates), quotas)
