"""What a pool's node-count history costs under its purchase mix.

Over a window [t0, t1) with n(t) nodes up (a step series) and c(t) nodes committed (paid whether
used: reservations, blocks in their window), the first min(n, c) nodes run on the commitments and
the rest on the burst price. Commitments are filled in the order the spec declares them. So:

- covered node-hours  = integral of min(n, c)   (priced at the commitments' hourly rates)
- burst node-hours    = integral of n - min(n, c)   (on-demand / spot / flex-start price)
- unused reservation  = integral of c - min(n, c)   (paid, no node: its own idle term)

The amortised node-hour price is what the nodes that existed cost divided by their node-hours;
every GPU-hour of the pool is priced with it (node price / GPUs per node, `gpuplane.costs`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from gpuplane.purchase.mix import PurchaseMix

__all__ = ["PaidNodes", "paid_nodes"]


@dataclass(frozen=True)
class PaidNodes:
    """Node-hours and money of one pool over one window (one currency)."""

    node_hours: float
    covered_hours: float
    burst_hours: float
    unused_hours: float
    covered_cost: float
    burst_cost: float
    unused_cost: float
    burst_hourly: float

    @property
    def existing_cost(self) -> float:
        """What the nodes that existed cost (commitment rates for the covered part)."""
        return self.covered_cost + self.burst_cost

    @property
    def amortised_node_hourly(self) -> float:
        """The node-hour price actually paid for the nodes that ran (burst price when none ran)."""
        return self.existing_cost / self.node_hours if self.node_hours > 0 else self.burst_hourly

    @property
    def total(self) -> float:
        """Everything paid: the nodes that ran plus unused reservation."""
        return self.existing_cost + self.unused_cost


def _pieces(
    t: Sequence[float], nodes: Sequence[int], t0: float, t1: float, cuts: list[float]
) -> list[tuple[float, float, int]]:
    """(start, end, nodes) pieces covering [t0, t1), split at every sample and commitment edge."""
    edges = sorted({t0, t1, *(x for x in t if t0 < x < t1), *(x for x in cuts if t0 < x < t1)})
    out = []
    i, n = 0, 0
    for a, b in itertools.pairwise(edges):
        while i < len(t) and t[i] <= a:
            n = nodes[i]
            i += 1
        out.append((a, b, n))
    return out


def paid_nodes(
    mix: PurchaseMix,
    t: Sequence[float],
    nodes: Sequence[int],
    t0: float,
    t1: float,
    burst_hourly: float,
) -> PaidNodes:
    """Split the node-hours of [t0, t1) into covered, burst and unused reservation, and price them.

    `t`, `nodes`: a step series (a value holds until the next sample; 0 before the first);
    `burst_hourly`: the price of a node beyond the commitments (on-demand, spot or flex-start).
    """
    if t1 < t0:
        raise ValueError("window end before start")
    if len(t) != len(nodes):
        raise ValueError("t and nodes differ in length")
    node_h = covered_h = unused_h = covered_cost = unused_cost = 0.0
    for a, b, n in _pieces(t, nodes, t0, t1, mix.breakpoints()):
        hours = (b - a) / 3600.0
        node_h += n * hours
        left = n
        for c in mix.commitments:
            if not c.active(a):
                continue
            used = min(left, c.count)
            left -= used
            covered_h += used * hours
            covered_cost += used * hours * c.hourly
            unused_h += (c.count - used) * hours
            unused_cost += (c.count - used) * hours * c.hourly
    burst_h = node_h - covered_h
    return PaidNodes(
        node_hours=node_h,
        covered_hours=covered_h,
        burst_hours=burst_h,
        unused_hours=unused_h,
        covered_cost=covered_cost,
        burst_cost=burst_h * burst_hourly,
        unused_cost=unused_cost,
        burst_hourly=burst_hourly,
    )
