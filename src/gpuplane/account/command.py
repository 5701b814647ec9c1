"""`gpuplane account` and `gpuplane exporter` without typer: the engine's front door.

`account(request)` checks the Prometheus URL, the window and the deadline, loads the priced spec,
runs the engine and writes the HTML report and the workload CSV when asked; `cli/account.py`
prints the returned result as a table, JSON or CSV. `exporter(request)` computes once into a file
(`--once`) or serves `/metrics` and `/healthz` until stopped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpuplane.account import engine, workload_records
from gpuplane.account.compute import AccountResult
from gpuplane.account.promurl import check_url
from gpuplane.account.window import parse_duration, resolve_window
from gpuplane.spec import load_spec

__all__ = ["AccountRequest", "ExporterRequest", "account", "exporter"]


@dataclass(frozen=True)
class AccountRequest:
    """What `account` was asked, as given on the command line (durations and times as text)."""

    prometheus: str
    spec_file: Path
    since: str | None = None
    start: str | None = None
    end: str | None = None
    step: str | None = None
    report: Path | None = None
    export_workload: Path | None = None
    timeout: str = "10m"


def account(request: AccountRequest) -> AccountResult:
    """Account the window: the result, with the report and the workload CSV written when asked."""
    check_url(request.prometheus)
    deadline = parse_duration(request.timeout, "--timeout")
    window = resolve_window(request.since, request.start, request.end, request.step)
    spec = load_spec(request.spec_file, priced=True)
    result = engine.run(
        request.prometheus, spec, window, charts=request.report is not None, timeout_s=deadline
    )
    if request.report is not None:
        from gpuplane.account.report import build_page

        build_page(result).write(request.report)
    if request.export_workload is not None:
        workload_records.export_workloads(result, spec, request.export_workload)
    return result


@dataclass(frozen=True)
class ExporterRequest:
    """What `exporter` was asked, as given on the command line (durations as text)."""

    prometheus: str
    spec_file: Path
    port: int = 9480
    address: str = "127.0.0.1"
    interval: str = "60s"
    window: str = "1h"
    step: str = "30s"
    timeout: str = "2m"
    once: Path | None = None


def exporter(request: ExporterRequest) -> None:
    """Write the exposition text once (`once`), or serve it until stopped."""
    from gpuplane.account.exporter import Exporter, make_server, serve
    from gpuplane.outputs import write_text_atomic

    check_url(request.prometheus)
    window_s = parse_duration(request.window, "--window")
    step_s = parse_duration(request.step, "--step")
    timeout_s = parse_duration(request.timeout, "--timeout")
    interval_s = parse_duration(request.interval, "--interval")
    spec = load_spec(request.spec_file, priced=True)
    exporter = Exporter(request.prometheus, spec, window_s=window_s, step_s=step_s, timeout_s=timeout_s)
    if request.once is not None:
        exporter.result = exporter.compute()
        exporter.last_error = ""
        write_text_atomic(request.once, exporter.exposition())
        return
    server = make_server(exporter, request.address, request.port)  # port and address errors first
    serve(exporter, server, interval_s)
