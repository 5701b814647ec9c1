"""The options of `gpuplane simulate`, checked and turned into what a run needs: the `SimConfig`,
the workload source and the output targets. Bad values are `UsageError`s naming the option."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from gpuplane import bounds
from gpuplane.sim.config import SimConfig, parse_units
from gpuplane.sim.whatif import WorkloadSource
from gpuplane.traces import Checkpoint

#: Where the HTML report goes when `gpuplane simulate` runs with no arguments at all.
DEFAULT_REPORT = Path("report.html")


@dataclass
class Options:
    """Everything the command line can say."""

    specs: list[Path] = field(default_factory=list)
    workload: Path | None = None
    fmt: str = "auto"
    seed: int = 0
    team_map: Path | None = None
    strict: bool = False
    limit: int | None = None
    json_out: Path | None = None
    csv_out: Path | None = None
    report: Path | None = None
    horizon_hours: float | None = None
    spot_rate: float | None = None
    failure_rate: float | None = None
    provisioning: float | None = None
    unneeded: float | None = None
    grace: float | None = None
    time_slicing_interference: float | None = None
    mps_interference: float | None = None
    ckpt_interval: float | None = None
    ckpt_write: float = 60.0
    ckpt_restore: float = 120.0
    units: list[str] = field(default_factory=list)
    api_prices: list[str] = field(default_factory=list)

    @property
    def report_path(self) -> Path | None:
        """The HTML report to write: `--report`, or report.html for the built-in example."""
        if self.report is not None:
            return self.report
        return DEFAULT_REPORT if not self.specs and self.workload is None else None


def build_config(o: Options) -> SimConfig:
    """The run's SimConfig: defaults overridden by what was given."""
    for label, value, allowed in (
        ("--spot-eviction-rate", o.spot_rate, bounds.rate()),
        ("--node-failure-rate", o.failure_rate, bounds.rate()),
        ("--provisioning-delay", o.provisioning, bounds.seconds()),
        ("--scale-down-unneeded", o.unneeded, bounds.seconds()),
        ("--horizon-hours", o.horizon_hours, bounds.hours()),
        ("--preemption-grace", o.grace, bounds.seconds()),
        ("--time-slicing-interference", o.time_slicing_interference, bounds.interference()),
        ("--mps-interference", o.mps_interference, bounds.interference()),
    ):
        if value is not None:
            allowed.check(value, label)
    if o.limit is not None:
        bounds.rows().check(o.limit, "--limit")
    config = SimConfig(seed=o.seed, accepted_units=parse_units(o.units))
    return replace(
        config,
        spot_evictions_per_node_hour=_or(o.spot_rate, config.spot_evictions_per_node_hour),
        node_failures_per_node_hour=_or(o.failure_rate, config.node_failures_per_node_hour),
        provisioning_delay_s=_or(o.provisioning, config.provisioning_delay_s),
        scale_down_unneeded_s=_or(o.unneeded, config.scale_down_unneeded_s),
        horizon_s=o.horizon_hours * 3600.0 if o.horizon_hours is not None else None,
        preemption_grace_s=_or(o.grace, config.preemption_grace_s),
        time_slicing_interference=_or(o.time_slicing_interference, config.time_slicing_interference),
        mps_interference=_or(o.mps_interference, config.mps_interference),
    )


def _or(value: float | None, fallback: float) -> float:
    return fallback if value is None else value


def checkpoint(o: Options) -> Checkpoint | None:
    """The checkpointing `--checkpoint-interval` adds to training that has none, or None."""
    if o.ckpt_interval is None:
        return None
    bounds.seconds_above_zero().check(o.ckpt_interval, "--checkpoint-interval")
    bounds.seconds().check(o.ckpt_write, "--checkpoint-write")
    bounds.seconds().check(o.ckpt_restore, "--checkpoint-restore")
    return Checkpoint(o.ckpt_interval, o.ckpt_write, o.ckpt_restore)


def workload_source(o: Options) -> WorkloadSource:
    """Where the run's workloads come from, with the reader's options."""
    return WorkloadSource(o.workload, o.fmt, o.team_map, o.strict, o.limit, checkpoint(o))
