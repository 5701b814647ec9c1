"""`gpuplane explain`: why is my GPU job waiting? Runs Kueue's admission cycle over objects."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer
from rich.console import Console

from gpuplane.errors import UsageError


class Output(StrEnum):
    """Output formats."""

    table = "table"
    json = "json"


def explain(
    files: Annotated[
        list[str] | None,
        typer.Option("-f", "--filename", help="File, directory or - (stdin) with Kueue objects; repeatable."),
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
        typer.Option("--kubeconfig", help="Read the objects from a cluster (read-only) instead of files."),
    ] = None,
    context: Annotated[str | None, typer.Option("--context", help="kubeconfig context to use.")] = None,
) -> None:
    """Explain Kueue admission: what gets admitted, what is preempted, and why each workload waits."""
    from gpuplane.kueue.explain import dumps, print_tables, run_explain

    if kubeconfig:
        from gpuplane.kueue.live import read_cluster

        parsed = read_cluster(kubeconfig, context)
    elif files:
        from gpuplane.kueue.load import load_paths

        parsed = load_paths(files)
    else:
        raise UsageError("give -f FILE|DIR|- or --kubeconfig PATH")
    snap, results = run_explain(parsed, cycles, fair_sharing or None)
    if output == Output.json:
        typer.echo(dumps(snap, results), nl=False)
    else:
        print_tables(Console(highlight=False, soft_wrap=True), snap, results)


def register(app: typer.Typer) -> None:
    """Add this family's commands to the app."""
    app.command("explain")(explain)
