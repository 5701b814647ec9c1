"""Nodes to pools, and each GPU pool's provisioned, allocated and unallocated time and health.

A node is a GPU node when it belongs to a GPU pool of the spec, or, outside the spec, when it
has GPUs (DCGM reports GPUs on it, or it has allocatable GPU resources). Nodes of the spec's
CPU pools are never GPU nodes, whatever their labels say otherwise.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from gpuplane.account.raw import RawData
from gpuplane.account.resolver import UNKNOWN, Resolver
from gpuplane.account.usage import PodUsage, PoolUsage
from gpuplane.costs import GpuHours
from gpuplane.vocab import GPU_RESOURCE, ksm_resource

_WHOLE_GPU = ksm_resource(GPU_RESOURCE)


@dataclass
class NodeInfo:
    """GPU nodes seen in the window: their pool, hours present, labels and GPU count."""

    pool_of: dict[str, str] = field(default_factory=dict)
    hours: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    labels_of: dict[str, dict[str, str]] = field(default_factory=dict)
    gpus_of: dict[str, int] = field(default_factory=dict)
    cpu_nodes: set[str] = field(default_factory=set)

    def nodes_in(self, pool: str) -> list[str]:
        """The nodes of a pool, sorted."""
        return sorted(n for n, p in self.pool_of.items() if p == pool)


def _unknown_gpus(raw: RawData, node: str) -> int:
    if raw.gpus_per_host.get(node, 0) > 0:
        return int(raw.gpus_per_host[node])
    return max(int(raw.allocatable.get((node, _WHOLE_GPU), 0)), 0)


def _has_gpus(raw: RawData, node: str) -> bool:
    return raw.gpus_per_host.get(node, 0) > 0 or any(
        units > 0 for (n, _r), units in raw.allocatable.items() if n == node
    )


def node_info(raw: RawData, res: Resolver) -> NodeInfo:
    """Every GPU node of the window with its pool (spec pool, else UNKNOWN)."""
    info = NodeInfo()
    for labels, present_h in raw.nodes:
        node = labels.get("node", "")
        pool = res.pool_of(labels)
        if res.is_cpu_pool(pool):
            info.cpu_nodes.add(node)
            continue
        if pool == UNKNOWN and not _has_gpus(raw, node):
            continue  # a node of no spec pool without GPUs (system nodes and the like)
        info.pool_of[node] = pool
        info.labels_of[node] = labels
        info.hours[node] += max(present_h, 0.0)  # a count of steps: never negative from a sane server
        info.gpus_of[node] = res.pools[pool].gpus if pool in res.pools else _unknown_gpus(raw, node)
    return info


def _health(raw: RawData, usage: PoolUsage, node: str) -> None:
    usage.xid_gpus += len([x for x in raw.xids if x[0] == node])
    if node in raw.max_temp:
        usage.max_temp_c = max(usage.max_temp_c or raw.max_temp[node], raw.max_temp[node])
    if node in raw.max_fb_used_mib:
        usage.max_fb_used_mib = max(usage.max_fb_used_mib or 0.0, raw.max_fb_used_mib[node])
    usage.energy_kwh += max(raw.energy_kwh.get(node, 0.0), 0.0)


def _one_pool(raw: RawData, res: Resolver, name: str, pods: list[PodUsage], info: NodeInfo) -> PoolUsage:
    spec_pool = res.pools.get(name)
    hourly, spot = res.gpu_hourly(name)
    usage = PoolUsage(name, res.accelerator(name), spec_pool.gpus if spec_pool else 0, hourly, spot)
    nodes = info.nodes_in(name)
    usage.nodes_seen = len(nodes)
    for node in nodes:
        usage.provisioned_h += info.hours[node] * info.gpus_of[node]
        if node in raw.nodes_at_end:
            usage.nodes_at_end += 1
            usage.gpus_at_end += info.gpus_of[node]
        _health(raw, usage, node)
    if name == UNKNOWN and nodes:
        usage.accelerator = res.accelerator(name, info.labels_of[nodes[0]])
    hours = GpuHours()
    for pod in pods:
        if pod.pool == name:
            hours = hours + pod.hours
    usage.hours = GpuHours(
        useful=hours.useful,
        idle=hours.idle,
        unmeasured=hours.unmeasured,
        failed=hours.failed,
        unallocated=max(usage.provisioned_h - hours.allocated, 0.0),
    )
    return usage


def pool_usage(raw: RawData, res: Resolver, pods: list[PodUsage], info: NodeInfo) -> list[PoolUsage]:
    """One row per GPU pool of the spec, plus `unknown` when GPU nodes or pods belong to none."""
    names = set(res.pools) | set(info.pool_of.values()) | {p.pool for p in pods}
    return [_one_pool(raw, res, name, pods, info) for name in sorted(names)]
