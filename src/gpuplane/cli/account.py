"""`gpuplane account` and `gpuplane exporter`: GPU time and cost from Prometheus (thin CLI layer)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from gpuplane.errors import UsageError

Url = Annotated[
    str,
    typer.Option(
        "--prometheus",
        help="Prometheus base URL, e.g. http://prometheus:9090 "
        "(a bearer token is read from GPUPLANE_PROMETHEUS_TOKEN; credentials are never printed).",
    ),
]
Timeout = Annotated[
    str,
    typer.Option(
        "--timeout",
        help="Overall deadline for all queries of one run (an unreachable or slow Prometheus exits 3).",
    ),
]
SpecFile = Annotated[Path, typer.Option("--spec", help="Platform spec (pools, teams, prices).")]


def account_command(
    prometheus: Url,
    spec_file: SpecFile,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            help="Window ending now (or at --end): 30m, 6h, 7d, 2w. Default 7d.",
            show_default=False,
        ),
    ] = None,
    start: Annotated[
        str | None,
        typer.Option(
            "--start", help="Window start: ISO 8601 (UTC if no zone) or Unix seconds.", show_default=False
        ),
    ] = None,
    end: Annotated[
        str | None, typer.Option("--end", help="Window end (default now).", show_default=False)
    ] = None,
    step: Annotated[
        str | None,
        typer.Option(
            "--step",
            help="Resolution, e.g. 30s (default: 30s up to a week, coarser beyond).",
            show_default=False,
        ),
    ] = None,
    output: Annotated[str, typer.Option("--output", "-o", help="table, json or csv.")] = "table",
    report: Annotated[
        Path | None, typer.Option("--report", help="Also write the HTML report here.", show_default=False)
    ] = None,
    export_workload: Annotated[
        Path | None,
        typer.Option(
            "--export-workload",
            help="Write the observed pods as a gpuplane workload CSV "
            "(replay with `gpuplane simulate -w FILE`).",
            show_default=False,
        ),
    ] = None,
    timeout: Timeout = "10m",
) -> None:
    """Account allocated, useful, idle, unmeasured, failed and unallocated GPU time and its cost from Prometheus."""
    from gpuplane.account import output as out
    from gpuplane.account.command import AccountRequest, account

    if output not in ("table", "json", "csv"):
        raise UsageError(f"{output!r} is not one of table, json, csv", option="--output")
    request = AccountRequest(prometheus, spec_file, since, start, end, step, report, export_workload, timeout)
    result = account(request)
    if output == "json":
        typer.echo(out.to_json(result), nl=False)
    elif output == "csv":
        typer.echo(out.to_csv(result), nl=False)
    else:
        out.print_tables(result, Console(highlight=False, soft_wrap=False))


def exporter_command(
    prometheus: Url,
    spec_file: SpecFile,
    port: Annotated[int, typer.Option("--port", help="Port for /metrics and /healthz (0-65535).")] = 9480,
    address: Annotated[
        str,
        typer.Option(
            "--address",
            help="Address to listen on. The default, 127.0.0.1, is reachable from this host only; "
            "use 0.0.0.0 in a container (the rendered Deployment does).",
        ),
    ] = "127.0.0.1",
    interval: Annotated[
        str, typer.Option("--interval", help="How often to recompute from Prometheus.")
    ] = "60s",
    window: Annotated[
        str, typer.Option("--window", help="Trailing window the gpuplane_* figures cover.")
    ] = "1h",
    step: Annotated[str, typer.Option("--step", help="Resolution of the integrals.")] = "30s",
    timeout: Annotated[
        str,
        typer.Option(
            "--timeout",
            help="Deadline of one refresh; a refresh that fails keeps the last figures and turns /healthz to 503.",
        ),
    ] = "2m",
    once: Annotated[
        Path | None,
        typer.Option(
            "--once",
            help="Compute once, write the exposition text to this file and exit.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Serve the account views as gpuplane_* Prometheus metrics, with /healthz."""
    from gpuplane.account.command import ExporterRequest, exporter

    exporter(ExporterRequest(prometheus, spec_file, port, address, interval, window, step, timeout, once))


def register(app: typer.Typer) -> None:
    """Add `account` and `exporter` to the app."""
    app.command("account")(account_command)
    app.command("exporter")(exporter_command)
