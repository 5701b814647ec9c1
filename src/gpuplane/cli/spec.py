"""`gpuplane spec schema` and `gpuplane spec validate FILE`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from gpuplane.spec import command

spec_app = typer.Typer(help="The platform spec: JSON Schema and validation.", no_args_is_help=True)


@spec_app.command("schema")
def schema() -> None:
    """Print the platform spec's JSON Schema (for editors and CI)."""
    typer.echo(json.dumps(command.schema(), indent=2, sort_keys=True))


@spec_app.command("validate")
def validate(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Platform spec YAML file.")],
    strict: Annotated[bool, typer.Option("--strict", help="Treat warnings as errors (exit 2).")] = False,
) -> None:
    """Check a platform spec: types, catalog facts (MIG layouts, VM sizes), cross references, and what
    its provider can run (`gpuplane providers` lists the facts, each with its source).

    Exit 0 when valid (warnings are printed), 2 with file:line:column and field for each error.
    """
    done = command.validate(file)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    for warning in done.warnings:
        err.print(str(warning), markup=False)
    if strict and done.warnings:
        raise typer.Exit(2)
    typer.echo(
        f"{file}: valid: {len(done.spec.node_pools)} pools (up to {done.gpus} GPUs), {len(done.spec.teams)} teams"
        + (f", {len(done.warnings)} warnings" if done.warnings else "")
    )


def register(app: typer.Typer) -> None:
    """Add `gpuplane spec ...`."""
    app.add_typer(spec_app, name="spec")
