"""`gpuplane providers`: what each Kubernetes provider does about GPUs (the facts render and
`spec validate` obey, each with its source), or with `--spec` what one platform uses of them."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from gpuplane.catalog.providers import all_facts
from gpuplane.providers.matrix import COLUMNS, cell, matrix, spec_usage
from gpuplane.spec import load_spec_with_warnings


class Output(StrEnum):
    """Output formats."""

    table = "table"
    json = "json"


HEADERS = {
    "driver": "driver",
    "device_plugin": "device plugin",
    "mig": "MIG",
    "time_slicing": "time-slicing",
    "mps": "MPS",
    "spot": "spot",
    "scale_to_zero": "scale to 0",
    "fabric": "fabric",
    "dra": "DRA",
}


def _matrix_table(console: Console) -> None:
    """Facts as rows, providers as columns (fits a terminal better than the JSON's shape)."""
    table = Table(title="GPU facts by provider (gpuplane providers -o json for notes and sources)")
    table.add_column("", no_wrap=True)
    every = list(all_facts().values())
    for facts in every:
        table.add_column(facts.name if facts.renders else f"{facts.name}*", overflow="fold")
    for key in COLUMNS:
        table.add_row(HEADERS[key], *(cell(facts[key]) for facts in every))
    console.print(table)
    console.print("* listed for comparison; gpuplane does not render it", markup=False)


def _usage_table(console: Console, usage: dict[str, Any]) -> None:
    console.print(
        f"{usage['title']} ({usage['provider']}), gpuStack {usage['gpuStack']}: {usage['stack']['note']}",
        markup=False,
    )
    console.print(f"  source: {usage['stack']['source']}, read {usage['stack']['date']}", markup=False)
    table = Table()
    table.add_column("pool", no_wrap=True)
    for column in ("device API", "sharing", "set by", "offers", "source"):
        table.add_column(column, overflow="fold")
    for pool in usage["pools"]:
        fact_key = next((k for k in ("mig", "time_slicing", "mps") if k in pool), None)
        by = pool[fact_key]["by"] if fact_key else ""
        source = pool[fact_key]["fact"]["source"] if fact_key else ""
        if "dra" in pool:
            source = pool["dra"]["source"]
        offers = ", ".join(f"{k}: {v}" for k, v in pool["offers"].items())
        table.add_row(pool["pool"], pool["deviceApi"] or "", pool["sharing"], by, offers, source)
    console.print(table)


def providers_command(
    spec: Annotated[
        Path | None,
        typer.Option(
            "--spec", metavar="SPEC", help="A platform spec: show what it uses of its provider's facts."
        ),
    ] = None,
    output: Annotated[Output, typer.Option("--output", "-o", help="table or json.")] = Output.table,
) -> None:
    """Print what each provider does about GPUs: driver, device plugin, MIG, time-slicing, MPS, spot
    taint and eviction notice, scale to zero, fabric, DRA and GPU VM families, each fact with its
    source and date. With --spec, what that platform relies on."""
    console = Console(highlight=False, soft_wrap=True)
    if spec is not None:
        platform, _ = load_spec_with_warnings(spec)
        usage = spec_usage(platform)
        if output == Output.json:
            typer.echo(json.dumps(usage, indent=2))
        else:
            _usage_table(console, usage)
        return
    if output == Output.json:
        typer.echo(json.dumps(matrix(), indent=2))
    else:
        _matrix_table(console)


def register(app: typer.Typer) -> None:
    """Add `gpuplane providers`."""
    app.command("providers")(providers_command)
