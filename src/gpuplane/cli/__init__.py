"""The `gpuplane` command line: a thin typer app. Each command family lives in its own module
under `gpuplane.cli` and only parses arguments, calls one engine and prints."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.console import Console

from gpuplane import __version__
from gpuplane.errors import InputError

app = typer.Typer(
    name="gpuplane",
    help="Declare a GPU Kubernetes platform once: render its manifests, explain Kueue admission, "
    "simulate workloads, audit manifests and account GPU time and cost.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gpuplane {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """gpuplane: one platform spec for a GPU Kubernetes cluster."""


def _register_all() -> None:
    # Imported here so that each family registers its commands on the one app.
    from gpuplane.cli import account, audit, explain, mig, render, simulate, spec

    for module in (spec, mig, render, explain, simulate, audit, account):
        module.register(app)


_register_all()


def main() -> None:
    """Console-script entry point: bad input becomes located messages and exit code 2.

    Click's standalone mode handles usage errors (exit 2) and `typer.Exit` codes itself;
    `InputError` passes through it and is printed here.
    """
    try:
        app()
    except InputError as exc:
        for problem in exc.problems:
            err_console.print(str(problem), markup=False)
        sys.exit(2)
