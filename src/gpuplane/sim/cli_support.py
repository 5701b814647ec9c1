"""What `gpuplane simulate` does between parsing arguments and printing: build the config, run the
platforms, write the outputs. Kept out of the CLI module so it can be tested without typer."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from gpuplane.baselines import ApiPrices
from gpuplane.errors import UsageError
from gpuplane.sim.baselines import baselines_dict, baselines_of
from gpuplane.sim.config import SimConfig, parse_units
from gpuplane.sim.engine import Progress
from gpuplane.sim.outputs import dumps, workloads_csv
from gpuplane.sim.report import build_report
from gpuplane.sim.session import RunResult, WorkloadSource, platforms_from, run_all
from gpuplane.traces import Checkpoint

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
    ckpt_interval: float | None = None
    ckpt_write: float = 60.0
    ckpt_restore: float = 120.0
    units: list[str] = field(default_factory=list)
    api_prices: list[str] = field(default_factory=list)


def build_config(o: Options) -> SimConfig:
    """The run's SimConfig: defaults overridden by what was given."""
    for label, value in (
        ("--spot-eviction-rate", o.spot_rate),
        ("--node-failure-rate", o.failure_rate),
        ("--provisioning-delay", o.provisioning),
        ("--scale-down-unneeded", o.unneeded),
        ("--horizon-hours", o.horizon_hours),
    ):
        if value is not None and value < 0:
            raise UsageError(f"must not be negative (got {value})", option=label)
    config = SimConfig(seed=o.seed, accepted_units=parse_units(o.units))
    return replace(
        config,
        spot_evictions_per_node_hour=_or(o.spot_rate, config.spot_evictions_per_node_hour),
        node_failures_per_node_hour=_or(o.failure_rate, config.node_failures_per_node_hour),
        provisioning_delay_s=_or(o.provisioning, config.provisioning_delay_s),
        scale_down_unneeded_s=_or(o.unneeded, config.scale_down_unneeded_s),
        horizon_s=o.horizon_hours * 3600.0 if o.horizon_hours is not None else None,
    )


def _or(value: float | None, fallback: float) -> float:
    return fallback if value is None else value


def _checkpoint(o: Options) -> Checkpoint | None:
    if o.ckpt_interval is None:
        return None
    if o.ckpt_interval <= 0 or o.ckpt_write < 0 or o.ckpt_restore < 0:
        raise UsageError(
            "checkpoint interval must be > 0, write and restore times >= 0", option="--checkpoint-interval"
        )
    return Checkpoint(o.ckpt_interval, o.ckpt_write, o.ckpt_restore)


def numbered(path: Path, index: int, count: int) -> Path:
    """`out.csv` for one platform, `out-1.csv`, `out-2.csv`... for several."""
    return path if count == 1 else path.with_name(f"{path.stem}-{index + 1}{path.suffix}")


def execute(o: Options, progress: Progress | None = None) -> tuple[list[RunResult], list[Path]]:
    """Run the session and write every requested output; returns the results and written paths.

    Outputs are rendered completely in memory first and then written atomically, so a failure
    leaves nothing half written.
    """
    from gpuplane.outputs import check_file_target, write_text_atomic

    config = build_config(o)
    report = (
        o.report if o.report is not None else (DEFAULT_REPORT if not o.specs and o.workload is None else None)
    )
    for target in (o.json_out, o.csv_out, report):
        if target is not None:
            check_file_target(target)  # before the run, not after it
    platforms = platforms_from(o.specs)
    source = WorkloadSource(o.workload, o.fmt, o.team_map, o.strict, o.limit, _checkpoint(o))
    prices = ApiPrices.parse(o.api_prices)
    results = run_all(platforms, source, config, progress)
    for r in results:  # the same accepted work as rented VMs and from a model API
        r.summary["baselines"] = baselines_dict(*baselines_of(r.spec, r.outcome, config, prices))
    texts: list[tuple[Path, str]] = []
    if o.json_out is not None:
        data = results[0].summary if len(results) == 1 else {"platforms": [r.summary for r in results]}
        texts.append((o.json_out, dumps(data)))
    if o.csv_out is not None:
        for i, r in enumerate(results):
            texts.append((numbered(o.csv_out, i, len(results)), workloads_csv(r.outcome)))
    if report is not None:
        texts.append((report, build_report(results).render()))
    for path, text in texts:
        write_text_atomic(path, text)
    return results, [p for p, _ in texts]
