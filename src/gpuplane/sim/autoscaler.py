"""Cluster-autoscaler decisions for one pool: how many nodes to add for pods that cannot be placed.

Like cluster-autoscaler's scale-up, pods are packed (first fit, largest first) onto template
nodes of the pool; nodes already being provisioned count as empty nodes that are on their way.
Scale-down is event-driven in the engine: a node empty for the unneeded time is removed.
"""

from __future__ import annotations

from collections.abc import Iterable


def nodes_needed(per_node: dict[str, int], pods: Iterable[tuple[str, int]]) -> int:
    """Empty nodes of capacity `per_node` that the pods need, first-fit decreasing."""
    bins: list[dict[str, int]] = []
    for res, units in sorted(pods, key=lambda p: (-p[1], p[0])):
        cap = per_node.get(res, 0)
        if units > cap:
            continue  # no node of this pool can ever run it; scaling up would not help
        for free in bins:
            if free[res] >= units:
                free[res] -= units
                break
        else:
            fresh = dict(per_node)
            fresh[res] -= units
            bins.append(fresh)
    return len(bins)


def scale_up(
    per_node: dict[str, int], pods: Iterable[tuple[str, int]], ready: int, provisioning: int, max_nodes: int
) -> int:
    """Nodes to request now: what the pending pods need beyond those on their way, within maxNodes."""
    room = max_nodes - ready - provisioning
    if room <= 0:
        return 0
    return max(0, min(room, nodes_needed(per_node, pods) - provisioning))
