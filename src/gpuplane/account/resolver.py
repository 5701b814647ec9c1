"""Answers derived from the spec: which pool a node is in, what a resource is worth in GPUs, who owns a pod."""

from __future__ import annotations

import re

from gpuplane.account import queries as q
from gpuplane.catalog import load_catalog
from gpuplane.catalog.models import Accelerator
from gpuplane.costs import pool_price
from gpuplane.spec import NodePool, PlatformSpec, derived
from gpuplane.vocab import GPU_RESOURCE, GPU_SHARED_RESOURCE, MIG_RESOURCE_PREFIX, ksm_resource, mig_resource

UNASSIGNED = "unassigned"
UNKNOWN = "unknown"
_MIG_KSM_PREFIX = ksm_resource(MIG_RESOURCE_PREFIX)


class Resolver:
    """The spec's view of observed label values."""

    def __init__(self, spec: PlatformSpec) -> None:
        self.spec = spec
        self.all_pools = {p.name: p for p in spec.node_pools}
        self.pools = {name: p for name, p in self.all_pools.items() if p.is_gpu}
        self.squashed = {name.replace("-", ""): name for name in self.all_pools}
        self.team_of_ns = {ns: t.name for t in spec.teams for ns in t.namespaces}
        self.teams = {t.name for t in spec.teams}
        self.catalog = load_catalog()

    def pool_of(self, labels: dict[str, str]) -> str:
        """The spec pool a node's labels name (GPU or not), else UNKNOWN."""
        for key in q.POOL_LABELS:
            value = labels.get(key, "")
            if value in self.all_pools:
                return value
            if value and value.replace("-", "") in self.squashed:
                return self.squashed[value.replace("-", "")]
        return UNKNOWN

    def is_cpu_pool(self, pool: str) -> bool:
        """A spec pool without GPUs: its nodes are not GPU nodes."""
        return pool in self.all_pools and pool not in self.pools

    def accelerator(self, pool: str, labels: dict[str, str] | None = None) -> str:
        """The accelerator of a pool: the spec's, else the series' label, else unknown."""
        if pool in self.pools:
            return self.pools[pool].accelerator or UNKNOWN
        return (labels or {}).get(q.ACCELERATOR_LABEL) or UNKNOWN

    def _acc(self, pool: str) -> Accelerator | None:
        spec_pool = self.pools.get(pool)
        return (
            self.catalog.accelerator(spec_pool.accelerator) if spec_pool and spec_pool.accelerator else None
        )

    def profile_fraction(self, pool: str, profile: str) -> float:
        """Share of a physical GPU that one measured MIG instance of `profile` is (DCGM's
        GPU_I_PROFILE): on a spec MIG pool the share of the unit that instance is advertised as
        (`spec.derived.unit_gpu_share`: one whole-GPU unit on `single`, the profile's resource on
        `mixed`), so measured and allocated GPU time agree; else compute slices over the GPU's."""
        spec_pool = self.pools.get(pool)
        if spec_pool is not None and spec_pool.sharing.mode == "mig":
            single = spec_pool.sharing.strategy == "single" and not derived.is_dra(spec_pool)
            share = derived.unit_gpu_share(spec_pool, GPU_RESOURCE if single else mig_resource(profile))
            if share:
                return share
        acc = self._acc(pool)
        found = acc.mig_profile(profile) if acc else None
        if acc and found and acc.compute_slices:
            return found.compute_slices / acc.compute_slices
        match = re.match(r"(\d+)g", profile)
        return int(match.group(1)) / 7 if match else 1.0

    def _resource_name(self, spec_pool: NodePool, ksm_name: str) -> str:
        """The resource name behind kube-state-metrics' spelling of it on this pool."""
        acc = self.catalog.accelerator(spec_pool.accelerator or "")
        names = [*derived.resources_per_gpu(spec_pool), GPU_RESOURCE, GPU_SHARED_RESOURCE]
        names += [mig_resource(p) for p in (acc.mig_profiles if acc else ())]
        return next((n for n in names if ksm_resource(n) == ksm_name), ksm_name)

    def resource_fraction(self, pool: str, resource: str) -> float:
        """Physical GPUs that one unit of a kube-state-metrics resource name stands for.

        On a spec pool: `spec.derived.unit_gpu_share`, the answer render, sim and plan use (MIG by
        layout or by named config, single or mixed; time-slicing; MPS; DRA). On a node outside the
        spec (no sharing facts): a MIG name by its compute slices, anything else a whole GPU.
        """
        spec_pool: NodePool | None = self.pools.get(pool)
        if spec_pool is not None:
            return derived.unit_gpu_share(spec_pool, self._resource_name(spec_pool, resource))
        if resource.startswith(_MIG_KSM_PREFIX):
            profile = resource.removeprefix(_MIG_KSM_PREFIX).split("_")[0]
            match = re.match(r"(\d+)g", profile)
            return int(match.group(1)) / 7 if match else 1.0
        return 1.0

    def team_of(self, namespace: str, labels: dict[str, str]) -> str:
        """The team of a pod: its team label when the spec knows it, else its namespace's team."""
        team = labels.get(q.TEAM_LABEL, "")
        if team in self.teams:
            return team
        return self.team_of_ns.get(namespace, UNASSIGNED)

    def gpu_hourly(self, pool: str) -> tuple[float, bool]:
        """(price of one GPU-hour, whether it is spot) of a pool; (0, False) for a pool not in the spec."""
        spec_pool = self.pools.get(pool)
        if spec_pool is None:
            return 0.0, False
        price = pool_price(self.spec, spec_pool)
        return price.gpu_hourly, price.spot
