"""Knobs of the digital twin and their defaults (read from `data/defaults.yaml`, with sources)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from gpuplane import bounds
from gpuplane.errors import UsageError

#: Workload classes a run can weight in its accepted units.
CLASSES: tuple[str, ...] = ("training", "inference", "batch")


@dataclass(frozen=True)
class Default:
    """One default figure, where it comes from and when it was looked up."""

    value: float
    source: str
    date: str


@lru_cache(maxsize=1)
def defaults() -> dict[str, Default]:
    """The packaged defaults by name."""
    text = resources.files("gpuplane.sim").joinpath("data/defaults.yaml").read_text(encoding="utf-8")
    raw: dict[str, Any] = yaml.safe_load(text)
    return {
        name: Default(float(entry["value"]), " ".join(str(entry["source"]).split()), str(entry["date"]))
        for name, entry in raw.items()
    }


def default(name: str) -> float:
    """The default value called `name`."""
    return defaults()[name].value


@dataclass(frozen=True)
class NodeLoss:
    """A node lost at a fixed time (tests and what-ifs): `reason` is `spot` or `failure`."""

    time: float
    node: str
    reason: str = "failure"


@dataclass(frozen=True)
class SimConfig:
    """How a run behaves beyond what the platform spec says.

    Rates are per node-hour (Poisson processes drawn per node from the run's seed). `horizon_s`
    None runs until nothing can happen any more. `accepted_units` weighs each completed workload
    by class; the default counts every completed job as one unit. `preemption_grace_s` is how long
    a preempted workload's pods take to go (its quota and GPUs stay taken until then); the
    interference factors are the contention model's (sim/contention.py).
    """

    seed: int = 0
    provisioning_delay_s: float = field(default_factory=lambda: default("provisioning_delay_s"))
    scale_down_unneeded_s: float = field(default_factory=lambda: default("scale_down_unneeded_s"))
    spot_evictions_per_node_hour: float = field(
        default_factory=lambda: default("spot_evictions_per_node_hour")
    )
    node_failures_per_node_hour: float = field(default_factory=lambda: default("node_failures_per_node_hour"))
    horizon_s: float | None = None
    accepted_units: tuple[tuple[str, float], ...] = (("training", 1.0), ("inference", 1.0), ("batch", 1.0))
    node_losses: tuple[NodeLoss, ...] = ()
    preemption_grace_s: float = field(default_factory=lambda: default("preemption_grace_s"))
    time_slicing_interference: float = field(default_factory=lambda: default("time_slicing_interference"))
    mps_interference: float = field(default_factory=lambda: default("mps_interference"))

    def interference(self, sharing: str) -> float | None:
        """The contention factor of a pool's sharing mode; None where GPUs are isolated."""
        if sharing == "time-slicing":
            return self.time_slicing_interference
        if sharing == "mps":
            return self.mps_interference
        return None

    def unit_weight(self, klass: str) -> float:
        """Accepted units one completed workload of `klass` is worth."""
        return dict(self.accepted_units).get(klass, 0.0)


def parse_units(items: list[str]) -> tuple[tuple[str, float], ...]:
    """`["training=1", "inference=0"]` -> accepted units per class (others keep 1)."""
    weights = {klass: 1.0 for klass in CLASSES}
    for item in items:
        klass, sep, value = item.partition("=")
        if not sep or klass not in CLASSES:
            raise UsageError(
                f"{item!r}: expected CLASS=WEIGHT with CLASS one of {', '.join(CLASSES)}", option="--unit"
            )
        try:
            weight = float(value)
        except ValueError:
            raise UsageError(f"{item!r}: {value!r} is not a number", option="--unit") from None
        weights[klass] = bounds.weight().check(weight, "--unit")
    return tuple(weights.items())
