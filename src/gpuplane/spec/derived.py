"""The facts every engine derives from the spec the same way.

Node labels (named in `gpuplane.vocab`), resources per GPU, flavor and queue names, node-hour
prices: render uses them as node labels, flavor selectors, quota dimensions and cost tags; sim
builds its nodes from them and account matches Prometheus series with them.
"""

from __future__ import annotations

from gpuplane.catalog import load_catalog
from gpuplane.sharing import dra, mig, resources
from gpuplane.spec.models import NodePool, PlatformSpec, Quota, Team
from gpuplane.vocab import (
    LABEL_ACCELERATOR,
    LABEL_CAPACITY,
    LABEL_POOL,
    LABEL_SHARING,
    MIG_RESOURCE_PREFIX,
    is_mig_resource,
)

HOURS_PER_MONTH = 730.0  # the cloud providers' billing convention (8760 h / 12)


def mig_layout(pool: NodePool) -> list[str] | None:
    """Profiles on one GPU of a MIG pool (from its layout or its GPU Operator config), else None."""
    if pool.sharing.mode != "mig" or not pool.accelerator:
        return None
    if pool.sharing.layout:
        return list(pool.sharing.layout)
    acc = load_catalog().accelerator(pool.accelerator)
    if acc is None or not pool.sharing.config:
        return None
    return mig.layout_for_config(pool.sharing.config, acc)


def is_dra(pool: NodePool) -> bool:
    """Whether the pool's GPUs are allocated through DRA (after resolution, `deviceApi` is set)."""
    return pool.is_gpu and pool.device_api == "dra"


def dra_kinds_per_gpu(pool: NodePool) -> dict[dra.DraKind, int]:
    """The DRA device kinds one GPU of a DRA pool gives (empty for device-plugin pools)."""
    if not is_dra(pool):
        return {}
    return dra.kinds_per_gpu(pool.sharing.mode, mig_layout(pool))


def resources_per_gpu(pool: NodePool) -> dict[str, int]:
    """What one physical GPU of the pool offers, by name: the extended resources the device plugin
    advertises (by the sharing mode), or on a DRA pool the quota names its claims are charged to."""
    if not pool.accelerator:
        return {}
    acc = load_catalog().accelerator(pool.accelerator)
    if acc is None:
        return {}
    if is_dra(pool):
        if pool.sharing.mode == "mig" and not mig.check_layout(acc, mig_layout(pool) or []).fits:
            return {}
        return {
            kind.resource: n for kind, n in sorted(dra_kinds_per_gpu(pool).items(), key=lambda i: i[0].kind)
        }
    sharing = pool.sharing
    return resources.per_gpu(
        acc,
        sharing.mode,
        mig_layout=mig_layout(pool),
        mig_strategy=sharing.strategy,
        replicas=sharing.replicas,
        rename_shared=sharing.rename_shared,
    )


def resources_per_node(pool: NodePool) -> dict[str, int]:
    """What one node of the pool offers (extended resources, or DRA quota names on a DRA pool)."""
    return {name: count * pool.gpus for name, count in sorted(resources_per_gpu(pool).items())}


def request_resource(pool: NodePool, wanted: str) -> str | None:
    """The name a request for `wanted` (a device-plugin name: a whole GPU, a MIG profile, a shared
    GPU) takes on this pool: itself on a device-plugin pool; on a DRA pool the quota name of the
    claim that gives it (a whole or shared GPU: the pool's GPU kind; a MIG profile: its kind), or
    None when the pool offers no such device. For engines that start from device-plugin requests
    (simulate's traces) and must charge a DRA pool's claims."""
    if not is_dra(pool):
        return wanted if wanted in resources_per_gpu(pool) else None
    kinds = dra_kinds_per_gpu(pool)
    if is_mig_resource(wanted):
        profile = wanted.removeprefix(MIG_RESOURCE_PREFIX)
        match = [k for k in kinds if k.mig_profile and k.mig_profile.replace("+", ".") == profile]
    else:
        match = [k for k in kinds if k.mig_profile is None]
    return match[0].resource if match else None


def extended_resources_per_node(pool: NodePool) -> dict[str, int]:
    """Extended resources a node's device plugin advertises (none on a DRA pool: its devices are in
    ResourceSlices), as node capacity and cluster-autoscaler node templates name them."""
    return {} if is_dra(pool) else resources_per_node(pool)


def unit_gpu_share(pool: NodePool, resource: str) -> float:
    """The share of one physical GPU that one unit of `resource` is on this pool: the one answer
    render (quota shares), sim (a pod's GPU time), plan and account (GPU-hours from
    kube-state-metrics requests) all use.

    - DRA: a MIG device its compute slices over the GPU's, anything else a whole GPU;
    - MIG `mixed` (by layout or named config): a MIG device its compute slices over the GPU's;
    - every other form (exclusive, MIG `single` by layout or config, time-slicing, MPS): one over
      the units one GPU advertises (all-1g.10gb on `single` is 7 whole-GPU units, so 1/7);
    - a GPU resource the pool does not advertise (a pod asking the plain GPU name of a pool that
      renames its shared GPUs, a MIG name on a MIG pool): by the same rules from the
      accelerator (1/replicas on a shared pool, slices over the GPU's for a MIG name);
    - 0 for a name that is no GPU resource of this pool's accelerator.
    """
    acc = load_catalog().accelerator(pool.accelerator or "")
    if acc is not None and is_dra(pool):
        try:
            return dra.gpu_fraction(resource, acc)
        except ValueError:
            return 0.0
    if acc is not None and pool.sharing.mode == "mig" and pool.sharing.strategy == "mixed":
        try:
            return resources.gpu_fraction(resource, acc)
        except ValueError:
            return 0.0
    units = resources_per_gpu(pool).get(resource, 0)
    if units:
        return 1.0 / units
    if acc is None:
        return 0.0
    shared = pool.sharing.mode in ("time-slicing", "mps")
    try:
        return resources.gpu_fraction(resource, acc, replicas=max(pool.sharing.replicas, 1) if shared else 1)
    except ValueError:
        return 0.0


def max_resources(pool: NodePool) -> dict[str, int]:
    """What the pool advertises at maxNodes."""
    return {name: count * pool.max_nodes for name, count in resources_per_node(pool).items()}


def quota_resource(pool: NodePool, quota: Quota) -> str | None:
    """The resource a quota entry limits: its explicit resource or the pool's only one."""
    if quota.resource:
        return quota.resource
    names = sorted(resources_per_gpu(pool))
    return names[0] if len(names) == 1 else None


def node_labels(pool: NodePool) -> dict[str, str]:
    """Labels every node of the pool carries: the pool's own plus gpuplane's schema."""
    labels = dict(pool.labels)
    labels[LABEL_POOL] = pool.name
    if pool.accelerator:
        labels[LABEL_ACCELERATOR] = pool.accelerator.lower()
        labels[LABEL_SHARING] = pool.sharing.mode
    labels[LABEL_CAPACITY] = "spot" if pool.spot.enabled else "on-demand"
    return dict(sorted(labels.items()))


def flavor_name(pool: NodePool) -> str:
    """Kueue ResourceFlavor name of a pool (one flavor per pool)."""
    return pool.name


def cluster_queue_name(team: Team) -> str:
    """The name of a team's ClusterQueue (the team's name)."""
    return team.name


def local_queue_name(team: Team) -> str:
    """The name of a team's LocalQueue (the team's name)."""
    return team.name


def cohort_of(spec: PlatformSpec, team: Team) -> str | None:
    """The cohort a team's ClusterQueue joins: its own, else the spec's default (None: none)."""
    return team.cohort or spec.queueing.default_cohort


def cpu_memory_per_gpu(pool: NodePool) -> tuple[float, float]:
    """vCPUs and GiB of memory per GPU of the pool (for CPU/memory quotas beside GPUs)."""
    gpus = max(pool.gpus, 1)
    return ((pool.cpu_per_node or 0.0) / gpus, (pool.memory_gib_per_node or 0.0) / gpus)
