"""Time series of the cluster (per pool) and the node-seconds that providers bill.

A sample is taken only at instants where a pool changed, so a quiet week costs nothing; the
series are step functions (a value holds until the next sample).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field


def _floats() -> array[float]:
    return array("d")


def _ints() -> array[int]:
    return array("q")


@dataclass
class PoolSeries:
    """Step series of one pool: time, nodes (ready), provisioned GPUs, allocated GPUs, busy GPUs.

    Held in typed arrays (8 bytes a value, nothing boxed): a long run samples millions of times.
    """

    t: array[float] = field(default_factory=_floats)
    nodes: array[int] = field(default_factory=_ints)
    provisioned: array[int] = field(default_factory=_ints)
    allocated: array[int] = field(default_factory=_ints)
    busy: array[float] = field(default_factory=_floats)

    def sample(self, now: float, nodes: int, provisioned: int, allocated: int, busy: float) -> None:
        """Record the state at `now` (replacing a sample at the same instant; skipping repeats)."""
        busy = round(busy, 9)
        t = self.t
        if t and t[-1] == now:
            self.nodes[-1], self.provisioned[-1], self.allocated[-1], self.busy[-1] = (
                nodes,
                provisioned,
                allocated,
                busy,
            )
            return
        if (
            t
            and self.nodes[-1] == nodes
            and self.provisioned[-1] == provisioned
            and self.allocated[-1] == allocated
            and self.busy[-1] == busy
        ):
            return
        t.append(now)
        self.nodes.append(nodes)
        self.provisioned.append(provisioned)
        self.allocated.append(allocated)
        self.busy.append(busy)


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
        """Zero billing for `pools` pools."""
        return cls([0.0] * pools, [0] * pools, [0] * pools, [0] * pools, [0] * pools)
