"""`gpuplane plan`: search platform designs with the twin for the cheapest that meets a goal."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from gpuplane import bounds
from gpuplane.cli.liveline import for_stderr
from gpuplane.cli.options import number


def plan_command(
    spec: Annotated[
        Path | None,
        typer.Argument(
            help="Platform spec to improve (default: the built-in example platform).", show_default=False
        ),
    ] = None,
    workload: Annotated[
        Path | None,
        typer.Option(
            "--workload",
            "-w",
            help="Trace or gpuplane CSV (default: the built-in synthetic week).",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", help="Output folder (winner.yaml, report.html, plan.json, designs.csv, cache/)."
        ),
    ] = Path("plan"),
    space: Annotated[
        Path | None,
        typer.Option(
            "--space",
            help="plan.yaml refining the search space, the goal and the budget (docs/plan.md).",
            show_default=False,
        ),
    ] = None,
    goal: Annotated[
        list[str] | None,
        typer.Option(
            "--goal",
            help="A constraint, repeatable: p90-wait<=4h, p99-wait[TEAM|CLASS]<=1d, availability>=99.9%, completed>=99%. "
            "Default: no worse than the spec as given.",
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
    units: Annotated[
        list[str] | None,
        typer.Option(
            "--unit",
            help="Accepted units per completed workload of a class, e.g. --unit inference=0.",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="First seed (same inputs and seed, same plan).")] = 0,
    seeds: Annotated[
        int | None,
        typer.Option(
            "--seeds",
            parser=number(bounds.seeds()),
            help="Seeds per finalist (default 3).",
            show_default=False,
        ),
    ] = None,
    finalists: Annotated[
        int | None,
        typer.Option(
            "--finalists",
            parser=number(bounds.designs()),
            help="Designs run with every seed (default 3).",
            show_default=False,
        ),
    ] = None,
    designs: Annotated[
        int | None,
        typer.Option(
            "--designs",
            parser=number(bounds.designs()),
            help="Designs considered at most; a larger space is sampled and cut by successive halving (default 100).",
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", help="Trace format (auto-detected from the header).")
    ] = "auto",
    team_map: Annotated[
        Path | None,
        typer.Option("--team-map", help="YAML mapping trace queues/users to spec teams.", show_default=False),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            parser=number(bounds.rows()),
            help="Read at most this many trace rows.",
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
    ray: Annotated[
        bool,
        typer.Option(
            "--ray/--no-ray",
            help="Run designs as Ray tasks (a local Ray on this machine's cores) or in this process.",
        ),
    ] = True,
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address",
            help="An existing Ray cluster: HOST:6379 or ray://head:10001 (Ray Client: needs ray[client]); "
            "default $RAY_ADDRESS. Its workers need this gpuplane installed.",
            show_default=False,
        ),
    ] = None,
    num_cpus: Annotated[
        int | None,
        typer.Option(
            "--num-cpus",
            parser=number(bounds.num_cpus()),
            help="CPUs of the local Ray (default: all).",
            show_default=False,
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No terminal summary.")] = False,
) -> None:
    """Find the cheapest platform design that meets the goal: the twin runs each design (on Ray).

    Exit 0 with a winner (DIR/winner.yaml, ready for `gpuplane render`), 1 when no design meets the goal.
    """
    from gpuplane.plan.command import PlanOptions, execute
    from gpuplane.plan.output import summary_lines, table

    options = PlanOptions(
        spec=spec,
        workload=workload,
        out=out,
        space=space,
        goal=list(goal or []),
        fmt=fmt,
        team_map=team_map,
        limit=limit,
        seed=seed,
        seeds=seeds,
        finalists=finalists,
        designs=designs,
        units=list(units or []),
        api_prices=list(api_price or []),
        spot_rate=spot_rate,
        failure_rate=failure_rate,
        ray=ray,
        ray_address=ray_address,
        num_cpus=num_cpus,
    )
    console = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False)
    live = for_stderr(sys.stderr, quiet)

    def progress(done: int, total: int) -> None:
        if live.due():
            rate = done / max(live.elapsed(), 1e-9)
            live.show(f"planning: {done:,} of {total:,} design evaluations done, {rate:,.2f} per second")

    try:
        run = execute(options, progress if live.enabled else None)
    finally:
        live.close()
    if not quiet:
        console.print(table(run.result, run.currency))
        for line in summary_lines(run.result, run.currency):
            console.print(line, markup=False)
        from gpuplane.sim.spec_workload import LABEL as SPEC_WORKLOAD

        if run.workload.startswith(SPEC_WORKLOAD):
            console.print(f"workload: {run.workload}", markup=False)
    for path, reason in run.damaged:
        err.print(f"{path}: warning: damaged cache entry ({reason}); evaluated again", markup=False)
    if run.cache_hits:
        err.print(f"{run.cache_hits} evaluations reused from an earlier run ({out / 'cache'})", markup=False)
    for path in run.written:
        err.print(f"wrote {path}", markup=False)
    if run.result.winner is None:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add `gpuplane plan`."""
    app.command("plan")(plan_command)
