"""The typed figures of one simulated run (`RunSummary`), what every presentation reads.

`gpuplane.sim.summarize(outcome, config, overheads, name)` builds it; the terminal summary, the
JSON and CSV outputs, the HTML report, the what-if comparison and `gpuplane plan` read its fields,
never a dict by string key. `RunSummary.to_dict()` is the JSON form (stable keys, floats rounded
to 6 decimals); its keys are documented in docs/simulate.md.

Times are seconds, GPU time is GPU-hours (`gpuplane.costs.GpuHours`), money is a
`gpuplane.costs.CostBreakdown` in `currency`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from gpuplane.baselines import ApiBaseline, RentalBaseline
from gpuplane.costs import GPU_TIME_KINDS, CostBreakdown, GpuHours, GpuTime

DIGITS = 6


def rounded(value: float) -> float:
    """A float as the JSON shows it (6 decimals, never -0.0)."""
    return round(value, DIGITS) + 0.0


@dataclass(frozen=True)
class WaitStats:
    """Count, mean and nearest-rank percentiles of waits, in seconds."""

    n: int = 0
    mean_s: float = 0.0
    p50_s: float = 0.0
    p90_s: float = 0.0
    p99_s: float = 0.0
    max_s: float = 0.0

    def to_dict(self) -> dict[str, float]:
        """JSON form."""
        return {
            f.name: (getattr(self, f.name) if f.name == "n" else rounded(getattr(self, f.name)))
            for f in fields(self)
        }


@dataclass(frozen=True)
class TeamFigures:
    """One team: what its GPU time cost and how long its started workloads waited.

    `queue_wait` = `quota_wait` (waiting for Kueue) + `capacity_wait` (admitted, waiting for nodes).
    `wait_so_far` counts every workload that was not rejected: one that never started counts the
    wait it has at the end of the window (what `gpuplane plan` ranks by, so a design that starves a
    team cannot look fast).
    """

    name: str
    cost: CostBreakdown
    queue_wait: WaitStats
    quota_wait: WaitStats
    capacity_wait: WaitStats
    wait_so_far: WaitStats = WaitStats()

    def to_dict(self) -> dict[str, Any]:
        """JSON form (without the name, which is the key)."""
        return {
            "cost": cost_dict(self.cost),
            "queue_wait": self.queue_wait.to_dict(),
            "quota_wait": self.quota_wait.to_dict(),
            "capacity_wait": self.capacity_wait.to_dict(),
            "wait_so_far": self.wait_so_far.to_dict(),
        }


@dataclass(frozen=True)
class PoolFigures:
    """One pool: its GPU-hours by kind, their cost, price, and what happened to its nodes."""

    name: str
    gpu_hours: GpuHours
    cost: CostBreakdown
    gpu_hour_price: float
    nodes_created: int
    nodes_removed: int
    spot_evictions: int
    node_failures: int
    peak_nodes: int

    def to_dict(self) -> dict[str, Any]:
        """JSON form (without the name, which is the key)."""
        h = self.gpu_hours
        hours = {"provisioned": h.provisioned, "allocated": h.allocated}
        hours.update({k.value: h[k] for k in GPU_TIME_KINDS if k is not GpuTime.UNMEASURED})
        return {
            "gpu_hours": {k: rounded(v) for k, v in hours.items()},
            "cost": cost_dict(self.cost),
            "gpu_hour_price": rounded(self.gpu_hour_price),
            "nodes_created": self.nodes_created,
            "nodes_removed": self.nodes_removed,
            "spot_evictions": self.spot_evictions,
            "node_failures": self.node_failures,
            "peak_nodes": self.peak_nodes,
        }


@dataclass(frozen=True)
class WorkloadCounts:
    """How the run's workloads ended (`running`/`admitted`/`pending` at the end of the window)."""

    total: int = 0
    completed: int = 0
    failed: int = 0
    killed: int = 0
    running: int = 0
    admitted: int = 0
    pending: int = 0
    rejected: int = 0

    @property
    def waiting(self) -> int:
        """Workloads still waiting at the end: for quota (pending) or for nodes (admitted)."""
        return self.pending + self.admitted

    def to_dict(self) -> dict[str, int]:
        """JSON form."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Availability:
    """Inference services: how many started, their downtime and the share of time they were up."""

    services: int = 0
    downtime_s: float = 0.0
    availability: float = 1.0

    def to_dict(self) -> dict[str, float]:
        """JSON form."""
        return {
            "services": self.services,
            "downtime_s": rounded(self.downtime_s),
            "availability": rounded(self.availability),
        }


@dataclass(frozen=True)
class Baselines:
    """The same accepted work bought as rented GPU VMs and from a model API (`gpuplane.baselines`)."""

    rental: RentalBaseline
    api: ApiBaseline

    def to_dict(self) -> dict[str, Any]:
        """JSON form (`simulate --json` key `baselines`)."""
        from gpuplane.sim.baselines import baselines_dict

        return baselines_dict(self.rental, self.api)


@dataclass(frozen=True)
class RunSummary:
    """Every figure of one run of one platform.

    Fields a search reads (`gpuplane plan`): `cost_per_accepted_unit` (None when nothing was
    accepted), `team(name).wait_so_far.p50_s / p90_s / p99_s`, `class_wait(klass)` (the same over
    the workloads of one class), `inference.availability`, `completed_share`. `baselines` is set by
    `simulate` sessions (the same work rented or bought from an API), None from a bare `summarize`.
    """

    platform: str
    seed: int
    window_hours: float
    currency: str
    workloads: WorkloadCounts
    accepted_units: float
    cost_per_accepted_unit: float | None
    cost: CostBreakdown
    overheads: CostBreakdown
    pools: tuple[PoolFigures, ...]
    teams: tuple[TeamFigures, ...]
    evictions: int
    preemptions: int
    inference: Availability
    pending_reasons: tuple[tuple[str, int], ...]
    events: int
    cycles: int
    warnings: tuple[str, ...] = ()
    workload: str = ""
    skipped_rows: int = 0
    baselines: Baselines | None = None
    class_waits: tuple[tuple[str, WaitStats], ...] = ()
    _by_team: dict[str, TeamFigures] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_team.update({t.name: t for t in self.teams})

    def team(self, name: str) -> TeamFigures:
        """The figures of one team (KeyError for a team the spec does not have)."""
        return self._by_team[name]

    def pool(self, name: str) -> PoolFigures:
        """The figures of one pool (KeyError for a pool the twin did not run)."""
        for p in self.pools:
            if p.name == name:
                return p
        raise KeyError(name)

    def class_wait(self, klass: str) -> WaitStats:
        """Queue waits (so far, as `TeamFigures.wait_so_far`) of one workload class's workloads;
        KeyError for a class no workload of the run had."""
        return dict(self.class_waits)[klass]

    @property
    def completed_share(self) -> float:
        """Completed workloads over all workloads of the run (rejected ones included); 1 for none."""
        return self.workloads.completed / self.workloads.total if self.workloads.total else 1.0

    @property
    def worst_p90_wait_s(self) -> float:
        """The highest p90 queue wait of any team (0 when no workload started)."""
        return max((t.queue_wait.p90_s for t in self.teams), default=0.0)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: stable keys (docs/simulate.md), floats rounded to 6 decimals."""
        per_unit = self.cost_per_accepted_unit
        return {
            "platform": self.platform,
            "workload": self.workload,
            "seed": self.seed,
            "window_hours": rounded(self.window_hours),
            "currency": self.currency,
            "workloads": self.workloads.to_dict(),
            "accepted_units": rounded(self.accepted_units),
            "cost_per_accepted_unit": None if per_unit is None else rounded(per_unit),
            "cost": cost_dict(self.cost),
            "overheads": cost_dict(self.overheads),
            "pools": {p.name: p.to_dict() for p in self.pools},
            "teams": {t.name: t.to_dict() for t in self.teams},
            "classes": {name: {"wait_so_far": w.to_dict()} for name, w in self.class_waits},
            "interruptions": {"evictions": self.evictions, "preemptions": self.preemptions},
            "inference": self.inference.to_dict(),
            "pending_reasons": dict(self.pending_reasons),
            "engine": {"events": self.events, "cycles": self.cycles},
            "warnings": list(self.warnings),
            "skipped_rows": self.skipped_rows,
            **({"baselines": self.baselines.to_dict()} if self.baselines is not None else {}),
        }


def cost_dict(c: CostBreakdown) -> dict[str, Any]:
    """A breakdown as JSON: every component, `gpu` and `total`, rounded (the currency is separate);
    an overhead term not declared is null, and `declared` lists those that were."""
    out: dict[str, Any] = {}
    for k, v in c.as_dict().items():
        if k == "currency":
            continue
        out[k] = v if v is None or isinstance(v, list) else rounded(v)
    return out
