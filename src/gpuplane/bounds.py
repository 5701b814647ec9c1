"""The one check of every numeric option: finite and inside its range.

A `Range` says what a number may be (its minimum, whether the minimum itself is allowed, its
maximum and the `limits.yaml` entry that states the maximum); `Range.check` raises a
`UsageError` naming the option. The command line parses with `gpuplane.cli.options` (a typer
parser built on the same ranges), and the engines check what they are given again with
`check`, so a value that reaches them from code or a file is held to the same rule.

    RATE        losses per node-hour: 0 .. limits.node_losses_per_node_hour
    SECONDS     a duration option: 0 .. limits.simulated_time_s
    INTERFERENCE  a slowdown factor: 0 .. limits.interference_factor
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from gpuplane.errors import UsageError
from gpuplane.limits import limits

__all__ = [
    "Range",
    "designs",
    "hours",
    "interference",
    "num_cpus",
    "rate",
    "rows",
    "seconds",
    "seconds_above_zero",
    "seeds",
    "weight",
]

#: The largest row count or seed a 64-bit integer holds (islice and random accept up to this).
_INT_MAX = 2**63 - 1


@dataclass(frozen=True)
class Range:
    """What one numeric option may be."""

    minimum: float
    maximum: float
    above: bool = False  # the minimum itself is not allowed
    integer: bool = False
    limit: str = ""  # the limits.yaml entry behind `maximum`, when there is one
    unit: str = ""

    def check(self, value: float, option: str) -> float:
        """`value` when it is finite and in range; a UsageError naming `option` otherwise."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise UsageError(f"{value!r} is not a number", option=option)
        if not math.isfinite(value):
            raise UsageError(f"{value} is not a finite number", option=option)
        if self.integer and value != int(value):
            raise UsageError(f"{value:g} is not a whole number", option=option)
        unit = f" {self.unit}" if self.unit else ""
        if self.above and value <= self.minimum:
            raise UsageError(f"must be greater than {self.minimum:g}{unit} (got {value:g})", option=option)
        if value < self.minimum:
            raise UsageError(f"must be at least {self.minimum:g}{unit} (got {value:g})", option=option)
        if value > self.maximum:
            why = f" (limits.yaml: {self.limit})" if self.limit else ""
            raise UsageError(f"must be at most {self.maximum:,g}{unit}{why} (got {value:g})", option=option)
        return value

    def parse(self, text: str, option: str) -> float:
        """A number written on the command line, checked (`int` for an integer range)."""
        raw = text.strip()
        if self.integer:
            if len(raw) > 20:
                raise UsageError(f"{raw[:24]!r}... is not a whole number in range", option=option)
            try:
                return self.check(int(raw), option)
            except ValueError:
                raise UsageError(f"{raw!r} is not a whole number", option=option) from None
        try:
            number = float(raw)
        except ValueError:
            raise UsageError(f"{raw!r} is not a number", option=option) from None
        return self.check(number, option)


@cache
def rate() -> Range:
    """Spot evictions or node failures per node-hour."""
    return Range(
        0.0, limits().node_losses_per_node_hour, limit="node_losses_per_node_hour", unit="per node-hour"
    )


@cache
def seconds() -> Range:
    """A duration option in seconds (delays, grace, checkpoint write and restore)."""
    return Range(0.0, limits().simulated_time_s, limit="simulated_time_s", unit="s")


@cache
def seconds_above_zero() -> Range:
    """A duration that must pass (a checkpoint interval), at most one job's run."""
    return Range(0.0, limits().job_run_s, above=True, limit="job_run_s", unit="s")


@cache
def hours() -> Range:
    """A horizon in hours."""
    return Range(0.0, limits().simulated_time_s / 3600.0, above=True, limit="simulated_time_s", unit="h")


@cache
def interference() -> Range:
    """A contention slowdown factor."""
    return Range(0.0, limits().interference_factor, limit="interference_factor")


@cache
def weight() -> Range:
    """Accepted units per completed workload (`--unit CLASS=W`)."""
    return Range(0.0, 1e12)


@cache
def rows() -> Range:
    """`--limit`: trace rows to read."""
    return Range(1, _INT_MAX, integer=True)


@cache
def designs() -> Range:
    """`--designs` and `--finalists`."""
    return Range(1, limits().plan_designs, integer=True, limit="plan_designs")


@cache
def seeds() -> Range:
    """`--seeds` per finalist."""
    return Range(1, limits().plan_seeds, integer=True, limit="plan_seeds")


@cache
def num_cpus() -> Range:
    """`--num-cpus` of the local Ray."""
    return Range(1, limits().ray_num_cpus, integer=True, limit="ray_num_cpus")
