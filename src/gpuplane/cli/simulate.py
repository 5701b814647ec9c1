"""`gpuplane simulate`: replay a workload through the platform's real policies (the digital twin)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from gpuplane import bounds
from gpuplane.cli.liveline import LiveLine, for_stderr, simulated
from gpuplane.cli.options import number

if TYPE_CHECKING:
    from gpuplane.sim.engine import Progress, Tick
    from gpuplane.sim.whatif import RunResult


def simulate_command(
    specs: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Platform spec files; several = what-if side by side. None: the built-in example platform.",
            show_default=False,
        ),
    ] = None,
    workload: Annotated[
        Path | None,
        typer.Option(
            "--workload",
            "-w",
            help="Trace or gpuplane CSV; - or a pipe such as <(zcat t.csv.gz) works too (default: the built-in synthetic week).",
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="Trace format: auto (detected from the header), gpuplane, philly-pollux, dirlab, openb.",
        ),
    ] = "auto",
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of every random process (same seed, same output).")
    ] = 0,
    team_map: Annotated[
        Path | None,
        typer.Option("--team-map", help="YAML mapping trace queues/users to spec teams.", show_default=False),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="A bad trace row fails the run (exit 2).")] = False,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            parser=number(bounds.rows()),
            help="Read at most this many trace rows.",
            show_default=False,
        ),
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write metrics as JSON.", show_default=False)
    ] = None,
    csv_out: Annotated[
        Path | None,
        typer.Option(
            "--csv", help="Write the per-workload CSV (what-if: -1, -2... suffixes).", show_default=False
        ),
    ] = None,
    report: Annotated[
        Path | None,
        typer.Option(
            "--report",
            help="Write the HTML report (default report.html with no arguments).",
            show_default=False,
        ),
    ] = None,
    horizon_hours: Annotated[
        float | None,
        typer.Option(
            "--horizon-hours",
            parser=number(bounds.hours()),
            help="Stop after this many simulated hours (default: until nothing can happen).",
            show_default=False,
        ),
    ] = None,
    spot_rate: Annotated[
        float | None,
        typer.Option(
            "--spot-eviction-rate",
            parser=number(bounds.rate()),
            help="Spot evictions per node-hour.",
            show_default=False,
        ),
    ] = None,
    failure_rate: Annotated[
        float | None,
        typer.Option(
            "--node-failure-rate",
            parser=number(bounds.rate()),
            help="Node failures per node-hour.",
            show_default=False,
        ),
    ] = None,
    provisioning: Annotated[
        float | None,
        typer.Option(
            "--provisioning-delay",
            parser=number(bounds.seconds()),
            help="Seconds from scale-up to a ready GPU node.",
            show_default=False,
        ),
    ] = None,
    unneeded: Annotated[
        float | None,
        typer.Option(
            "--scale-down-unneeded",
            parser=number(bounds.seconds()),
            help="Seconds a node stays empty before scale-down.",
            show_default=False,
        ),
    ] = None,
    grace: Annotated[
        float | None,
        typer.Option(
            "--preemption-grace",
            parser=number(bounds.seconds()),
            help="Seconds a preempted workload's pods take to go; its quota and GPUs stay taken until then.",
            show_default=False,
        ),
    ] = None,
    time_slicing_interference: Annotated[
        float | None,
        typer.Option(
            "--time-slicing-interference",
            parser=number(bounds.interference()),
            help="Slowdown s of time-sliced GPUs: k busy pods each run at 1/(1+s(k-1)) (default 1: 1/k).",
            show_default=False,
        ),
    ] = None,
    mps_interference: Annotated[
        float | None,
        typer.Option(
            "--mps-interference",
            parser=number(bounds.interference()),
            help="Slowdown s of MPS-shared GPUs, as for time-slicing (default 0: no slowdown).",
            show_default=False,
        ),
    ] = None,
    ckpt_interval: Annotated[
        float | None,
        typer.Option(
            "--checkpoint-interval",
            parser=number(bounds.seconds_above_zero()),
            help="Add checkpointing every N s of run to training that has none.",
            show_default=False,
        ),
    ] = None,
    ckpt_write: Annotated[
        float,
        typer.Option(
            "--checkpoint-write", parser=number(bounds.seconds()), help="Seconds one checkpoint write takes."
        ),
    ] = 60.0,
    ckpt_restore: Annotated[
        float,
        typer.Option(
            "--checkpoint-restore", parser=number(bounds.seconds()), help="Seconds a restore takes."
        ),
    ] = 120.0,
    units: Annotated[
        list[str] | None,
        typer.Option(
            "--unit",
            help="Accepted units per completed workload of a class, "
            "e.g. --unit inference=0 (default 1 each).",
            show_default=False,
        ),
    ] = None,
    api_price: Annotated[
        list[str] | None,
        typer.Option(
            "--api-price",
            help="Model-API baseline: price per accepted unit of a class, e.g. inference=0.02.",
            show_default=False,
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No terminal summary.")] = False,
) -> None:
    """Simulate workloads on one or more platforms: queue time, utilization, cost per accepted unit.

    With no arguments: the built-in example platform on the built-in synthetic week; writes report.html.
    """
    from gpuplane.sim.command import execute
    from gpuplane.sim.options import Options

    options = Options(
        specs=list(specs or []),
        workload=workload,
        fmt=fmt,
        seed=seed,
        team_map=team_map,
        strict=strict,
        limit=limit,
        json_out=json_out,
        csv_out=csv_out,
        report=report,
        horizon_hours=horizon_hours,
        spot_rate=spot_rate,
        failure_rate=failure_rate,
        provisioning=provisioning,
        unneeded=unneeded,
        grace=grace,
        time_slicing_interference=time_slicing_interference,
        mps_interference=mps_interference,
        ckpt_interval=ckpt_interval,
        ckpt_write=ckpt_write,
        ckpt_restore=ckpt_restore,
        units=list(units or []),
        api_prices=list(api_price or []),
    )
    console = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False)
    line = for_stderr(sys.stderr, quiet)
    try:
        results, written = execute(options, _progress(line) if line.enabled else None)
    finally:
        line.close()
    _report_skipped(err, results)
    if not quiet:
        from gpuplane.sim.output import print_summary

        print_summary(console, results)
    for path in written:
        if str(path) != "-":  # stdout needs no receipt
            err.print(f"wrote {path}", markup=False)


def _report_skipped(err: Console, results: list[RunResult]) -> None:
    """Bad trace rows are never silent: each skipped row with its line (the first 20), then a count."""
    problems = results[0].problems if results else []
    for problem in problems[:20]:
        err.print(str(problem), markup=False)
    if problems:
        err.print(
            f"{len(problems)} bad trace rows were skipped (--strict makes them fail the run)", markup=False
        )


def _progress(line: LiveLine) -> Progress:
    """Progress of a twin run on the line: simulated time, workloads done and waiting, rate."""

    def progress(tick: Tick) -> None:
        if line.due():
            rate = tick.done / max(line.elapsed(), 1e-9)
            line.show(
                f"simulating: {simulated(tick.now / 86400.0)}, {tick.done:,} of {tick.total:,} workloads done, "
                f"{tick.waiting:,} waiting, {rate:,.0f} workloads/s"
            )

    return progress


def register(app: typer.Typer) -> None:
    """Add `gpuplane simulate`."""
    app.command("simulate")(simulate_command)
