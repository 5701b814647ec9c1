"""Purchased capacity in the twin (a pool's `purchase:` mix, `gpuplane.purchase.mix`):

- a capacity block brings its `count` nodes at its start (ready then, billed from then) and takes
  them away at its end: the nodes are terminated and their pods evicted, exactly like a spot
  eviction (work since the last checkpoint is lost; the workload waits for capacity again). The
  autoscaler never removes a block node (it is paid for anyway);
- flex-start: a pool bought as flex-start (no on-demand/spot segment) gets its nodes after the
  flex-start provisioning delay and each runs at most its maximum run time, then it is terminated
  like a block node;
- reservations change what nodes cost, not which nodes exist (`gpuplane.purchase.amortise`); a pool
  with commitments and no burst segment autoscales only up to its reserved count.

The twin's time 0 is the spec's earliest block start (`gpuplane.costs.pool_price`), so a block is
where the spec puts it relative to the other blocks.
"""

from __future__ import annotations

import math

from gpuplane.purchase.mix import PurchaseMix

__all__ = ["autoscale_cap", "flex_delay", "flex_run", "windows"]


def windows(mix: PurchaseMix | None) -> list[tuple[int, float, float, int]]:
    """(commitment index, start, end, nodes) of every capacity block of the mix, by start."""
    if mix is None:
        return []
    out = [
        (i, c.start or 0.0, c.end if c.end is not None else math.inf, c.count)
        for i, c in enumerate(mix.commitments)
        if c.terminates
    ]
    return sorted(out, key=lambda w: (w[1], w[0]))


def autoscale_cap(mix: PurchaseMix | None, max_nodes: int) -> int:
    """How many nodes the autoscaler may hold (block nodes not counted): maxNodes with an on-demand
    or spot burst; the flex-start maximum for a flex-start pool; else the reserved count."""
    if mix is None or mix.burst:
        return max_nodes
    if mix.flex is not None:
        return min(max_nodes, mix.flex.max_nodes)
    return min(max_nodes, mix.always_reserved)


def flex_delay(mix: PurchaseMix | None, default_s: float) -> float:
    """Provisioning delay of an autoscaled node: flex-start's for a flex-start pool."""
    if mix is not None and mix.flex is not None and not mix.burst:
        return mix.flex.delay_s
    return default_s


def flex_run(mix: PurchaseMix | None) -> float | None:
    """Longest an autoscaled node runs (flex-start's maximum run time), or None (no limit)."""
    if mix is not None and mix.flex is not None and not mix.burst and math.isfinite(mix.flex.max_run_s):
        return mix.flex.max_run_s
    return None
