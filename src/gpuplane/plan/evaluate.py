"""Evaluate one design with the twin: `gpuplane.sim.simulate` + `gpuplane.sim.summarize`, turned
into a typed `DesignResult` (the one place that reads the twin's outcome and summary).

Queue waits are the typed summary's `wait_so_far` (per team, and `class_wait` per class): every
workload that was not rejected, one still waiting when the run ends with the wait it has so far,
so a design that starves a team cannot look fast.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from gpuplane.baselines import ApiPrices
from gpuplane.costs import Overheads
from gpuplane.plan.purchase import purchase_choices
from gpuplane.sim import SimConfig, simulate, summarize
from gpuplane.sim.baselines import baselines_of
from gpuplane.sim.summary import RunSummary, WaitStats, rounded
from gpuplane.spec import PlatformSpec
from gpuplane.traces import Workload


@dataclass(frozen=True)
class Waits:
    """Queue-wait percentiles (seconds) of one team or class."""

    name: str
    n: int
    p50: float
    p90: float
    p99: float

    def get(self, quantile: str) -> float:
        """The percentile `p50`, `p90` or `p99`."""
        value: float = getattr(self, quantile)
        return value


@dataclass(frozen=True)
class DesignResult:
    """What one run of one design gave (on a trace prefix `fraction`, with `seed`)."""

    design: str
    fraction: float
    seed: int
    cost_per_unit: float | None
    total_cost: float
    accepted_units: float
    team_waits: tuple[Waits, ...]
    class_waits: tuple[Waits, ...]
    availability: float
    services: int
    completed_share: float
    workloads: int
    unfinished: int
    rejected: int
    gpu_hours: float
    allocated_gpu_hours: float
    window_hours: float
    rental_per_unit: float | None
    rental_cost: float
    api_per_unit: float | None
    api_cost: float
    #: The purchase-mix choices on this run (plan.purchase.purchase_choices): per pool and term.
    purchase: tuple[dict[str, Any], ...] = ()

    @property
    def rank_cost(self) -> float:
        """Cost per accepted unit for ranking (infinite when nothing was accepted)."""
        return math.inf if self.cost_per_unit is None else self.cost_per_unit

    @property
    def worst_p90(self) -> float:
        """The worst team's p90 queue wait (seconds)."""
        return max((w.p90 for w in self.team_waits), default=0.0)

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DesignResult:
        """The inverse of `as_dict`."""
        fields = dict(data)
        fields["team_waits"] = tuple(Waits(**w) for w in data["team_waits"])
        fields["class_waits"] = tuple(Waits(**w) for w in data["class_waits"])
        fields["purchase"] = tuple(data.get("purchase", ()))
        return cls(**fields)


def _waits(name: str, stats: WaitStats) -> Waits:
    """The percentiles of the twin's typed summary, rounded as the plan's cache stores them."""
    return Waits(name, stats.n, *(round(v, 6) for v in (stats.p50_s, stats.p90_s, stats.p99_s)))


def _queue_waits(summary: RunSummary) -> tuple[tuple[Waits, ...], tuple[Waits, ...]]:
    """Per team and per class: the summary's waits so far (unfinished workloads included)."""
    teams = tuple(_waits(t.name, t.wait_so_far) for t in summary.teams)
    classes = tuple(_waits(name, stats) for name, stats in summary.class_waits)
    return teams, classes


def evaluate(
    spec: PlatformSpec,
    workloads: Sequence[Workload],
    config: SimConfig,
    *,
    design: str = "",
    fraction: float = 1.0,
    api_prices: ApiPrices | None = None,
) -> DesignResult:
    """Run the twin on one design and return its figures, with the rental and API baselines."""
    outcome = simulate(spec, workloads, config)
    summary = summarize(outcome, config, Overheads.from_spec(spec), design)
    teams, classes = _queue_waits(summary)
    counts = summary.workloads
    can_complete = sum(1 for r in outcome.runs if r.w.final_status == "completed")
    completed_share = counts.completed / can_complete if can_complete else 1.0
    rental, api = baselines_of(spec, outcome, config, api_prices)
    return DesignResult(
        design=design,
        fraction=fraction,
        seed=config.seed,
        cost_per_unit=_r(summary.cost_per_accepted_unit),
        total_cost=rounded(summary.cost.total),
        accepted_units=rounded(summary.accepted_units),
        team_waits=teams,
        class_waits=classes,
        availability=rounded(summary.inference.availability),
        services=summary.inference.services,
        completed_share=round(completed_share, 6),
        workloads=counts.total,
        unfinished=counts.pending + counts.admitted + counts.running,
        rejected=counts.rejected,
        gpu_hours=round(sum(rounded(p.gpu_hours.provisioned) for p in summary.pools), 6),
        allocated_gpu_hours=round(sum(rounded(p.gpu_hours.allocated) for p in summary.pools), 6),
        window_hours=rounded(summary.window_hours),
        rental_per_unit=_r(rental.per_accepted_unit),
        rental_cost=round(rental.cost.total, 6),
        api_per_unit=_r(api.per_accepted_unit),
        api_cost=round(api.cost, 6),
        purchase=purchase_choices(spec, outcome),
    )


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def prefix(workloads: Sequence[Workload], fraction: float) -> list[Workload]:
    """The workloads submitted in the first `fraction` of the trace's submission span."""
    if fraction >= 1.0 or not workloads:
        return list(workloads)
    first = min(w.submit for w in workloads)
    cut = first + (max(w.submit for w in workloads) - first) * fraction
    return [w for w in workloads if w.submit <= cut]


@dataclass(frozen=True)
class Task:
    """One evaluation to run: a design's spec on a prefix of the trace with one seed."""

    design: str
    spec: PlatformSpec
    fraction: float
    seed: int


def run_task(
    task: Task, workloads: Sequence[Workload], config: SimConfig, api_prices: ApiPrices | None
) -> DesignResult:
    """Evaluate a task (the function every runner calls, in process or as a Ray task)."""
    return evaluate(
        task.spec,
        prefix(workloads, task.fraction),
        replace(config, seed=task.seed),
        design=task.design,
        fraction=task.fraction,
        api_prices=api_prices,
    )
