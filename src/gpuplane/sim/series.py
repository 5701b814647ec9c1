"""Time series of the cluster (per pool) and the node-seconds that providers bill.

A sample is taken only at instants where a pool changed, so a quiet week costs nothing; the
series are step functions (a value holds until the next sample).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class PoolSeries:
    """Step series of one pool: time, nodes (ready), provisioned GPUs, allocated GPUs, busy GPUs."""

    t: list[float] = field(default_factory=list)
    nodes: list[int] = field(default_factory=list)
    provisioned: list[int] = field(default_factory=list)
    allocated: list[int] = field(default_factory=list)
    busy: list[float] = field(default_factory=list)

    def sample(self, now: float, nodes: int, provisioned: int, allocated: int, busy: float) -> None:
        """Record the state at `now` (replacing a sample at the same instant; skipping repeats)."""
        row = (nodes, provisioned, allocated, round(busy, 9))
        if self.t and self.t[-1] == now:
            self.nodes[-1], self.provisioned[-1], self.allocated[-1], self.busy[-1] = row
            return
        if self.t and (self.nodes[-1], self.provisioned[-1], self.allocated[-1], self.busy[-1]) == row:
            return
        self.t.append(now)
        self.nodes.append(row[0])
        self.provisioned.append(row[1])
        self.allocated.append(row[2])
        self.busy.append(row[3])

    def integral(self, values: list[int] | list[float], end: float) -> float:
        """Integral of one of the step series from the first sample to `end` (value x seconds)."""
        total = 0.0
        for i, v in enumerate(values):
            nxt = self.t[i + 1] if i + 1 < len(self.t) else end
            total += v * max(0.0, min(nxt, end) - self.t[i])
        return total


@dataclass
class Billing:
    """Node-seconds billed per pool: from the scale-up request to removal (or the end of the run)."""

    node_seconds: list[float]
    nodes_created: list[int]
    nodes_removed: list[int]
    spot_evictions: list[int]
    node_failures: list[int]

    @classmethod
    def empty(cls, pools: int) -> Billing:
        return cls([0.0] * pools, [0] * pools, [0] * pools, [0] * pools, [0] * pools)
