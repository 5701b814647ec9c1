"""`gpuplane explain`: why is my GPU job waiting, would it be admitted now, and when?"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from gpuplane.cli.liveline import LiveLine, for_stderr, simulated
from gpuplane.vocab import ANNOTATION_EXPECTED_RUNTIME

if TYPE_CHECKING:
    from gpuplane.explain.eta import EtaProgress, EtaTick


class Output(StrEnum):
    """Output formats."""

    table = "table"
    json = "json"


def explain(
    files: Annotated[
        list[str] | None,
        typer.Option(
            "-f",
            "--filename",
            help="File, directory or - (stdin) with Kueue objects and/or job objects (Job, JobSet, "
            "PyTorchJob, RayJob, Pod...); repeatable. With --kubeconfig: the jobs you plan to submit.",
        ),
    ] = None,
    cycles: Annotated[
        int,
        typer.Option(
            "--cycles", min=1, help="Scheduling cycles to run; victims are released between cycles."
        ),
    ] = 1,
    fair_sharing: Annotated[
        bool,
        typer.Option(
            "--fair-sharing",
            help="Turn on fair sharing (also on when a Kueue Configuration has fairSharing).",
        ),
    ] = False,
    output: Annotated[Output, typer.Option("-o", "--output", help="table or json.")] = Output.table,
    kubeconfig: Annotated[
        str | None,
        typer.Option("--kubeconfig", help="Read the objects from a cluster (read-only: list calls only)."),
    ] = None,
    context: Annotated[str | None, typer.Option("--context", help="kubeconfig context to use.")] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            help="With --kubeconfig: give up reading the cluster after this many seconds (exit 3; default 300).",
        ),
    ] = None,
    eta: Annotated[
        bool,
        typer.Option(
            "--eta",
            help="Estimate when each pending workload is admitted, running Kueue's rules forward in "
            f"time (runtimes: activeDeadlineSeconds, {ANNOTATION_EXPECTED_RUNTIME}, else --assume-runtime).",
        ),
    ] = False,
    assume_runtime_text: Annotated[
        str,
        typer.Option(
            "--assume-runtime", help="With --eta: runtime of workloads that declare none (e.g. 45m, 2h)."
        ),
    ] = "2h",
    spec: Annotated[
        Path | None,
        typer.Option(
            "--spec",
            help="Platform spec: check that admitted pods fit a node of their flavor's pool "
            "(Node objects in the input are checked the same way).",
        ),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", help="With --eta: no progress line (shown on a terminal after 2 s otherwise)."
        ),
    ] = False,
) -> None:
    """Explain Kueue admission: what gets admitted, what is preempted, why each workload waits,
    what happens to jobs you submit (-f job.yaml) and, with --eta, when they get in."""
    from gpuplane.explain.command import ExplainOptions, Sources, assume_runtime, dumps, print_tables, run
    from gpuplane.explain.eta import EtaOptions

    options = ExplainOptions(cycles=cycles, fair_sharing=fair_sharing or None)
    line = for_stderr(sys.stderr, quiet)
    if eta:
        progress = eta_progress(line) if line.enabled else None
        options.eta = EtaOptions(assume_runtime=assume_runtime(assume_runtime_text), progress=progress)
    try:
        result = run(Sources(files or [], kubeconfig, context, timeout), options, spec)
    finally:
        line.close()  # also on Ctrl-C: the "interrupted" line starts on a clean line
    if output == Output.json:
        typer.echo(dumps(result.snap, result.results, result), nl=False)
    else:
        print_tables(Console(highlight=False, soft_wrap=False), result.snap, result.results, result)


def eta_progress(line: LiveLine) -> EtaProgress:
    """Progress of `--eta` on the line: simulated time reached, workloads estimated, backlog, rate."""

    def progress(tick: EtaTick) -> None:
        if line.due():
            rate = tick.estimated / max(line.elapsed(), 1e-9)
            line.show(
                f"estimating: {simulated(tick.now / 86400.0)}, {tick.estimated:,} of {tick.targets:,} "
                f"workloads estimated, {tick.backlog():,} pending, {rate:,.0f} workloads/s"
            )

    return progress


def register(app: typer.Typer) -> None:
    """Add this family's commands to the app."""
    app.command("explain")(explain)
