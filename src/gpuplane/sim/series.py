"""Time series of the cluster (per pool) and the node-seconds that providers bill.

A sample is taken only at instants where a pool changed, so a quiet week costs nothing; the
series are step functions (a value holds until the next sample).
"""

from __future__ import annotations

import math
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

    # The last sample (and the last raw busy figure with its rounding), kept beside the arrays
    # so a sample compares and rounds without reading them back (the arrays are the record).
    # (Set in __post_init__: a mypyc-compiled dataclass does not set init=False defaults.)
    _n: int = field(init=False, repr=False, compare=False)
    _last_t: float = field(init=False, repr=False, compare=False)
    _last_nodes: int = field(init=False, repr=False, compare=False)
    _last_provisioned: int = field(init=False, repr=False, compare=False)
    _last_allocated: int = field(init=False, repr=False, compare=False)
    _last_busy: float = field(init=False, repr=False, compare=False)
    _raw_busy: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._n = len(self.t)
        self._last_t = self.t[-1] if self._n else 0.0
        self._last_nodes = self.nodes[-1] if self._n else 0
        self._last_provisioned = self.provisioned[-1] if self._n else 0
        self._last_allocated = self.allocated[-1] if self._n else 0
        self._last_busy = self.busy[-1] if self._n else 0.0
        self._raw_busy = math.nan

    def sample(self, now: float, nodes: int, provisioned: int, allocated: int, busy: float) -> None:
        """Record the state at `now` (replacing a sample at the same instant; skipping repeats)."""
        if busy == self._raw_busy and busy:  # (a zero is rounded again: -0.0 stays -0.0)
            busy = self._last_busy
        else:
            self._raw_busy = busy
            # A whole number (whole GPUs busy: most samples) is its own rounding, -0.0 included;
            # `round` with digits goes through a decimal conversion, so it runs only on fractions.
            if busy % 1.0 != 0.0:  # (nan and inf are rounded as before)
                busy = round(busy, 9)
        if self._n and self._last_t == now:
            self.nodes[-1], self.provisioned[-1], self.allocated[-1], self.busy[-1] = (
                nodes,
                provisioned,
                allocated,
                busy,
            )
        elif (
            self._n
            and self._last_nodes == nodes
            and self._last_provisioned == provisioned
            and self._last_allocated == allocated
            and self._last_busy == busy
        ):
            return
        else:
            self.t.append(now)
            self.nodes.append(nodes)
            self.provisioned.append(provisioned)
            self.allocated.append(allocated)
            self.busy.append(busy)
            self._n += 1
            self._last_t = now
        self._last_nodes, self._last_provisioned, self._last_allocated = nodes, provisioned, allocated
        self._last_busy = busy


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
