"""Account results as JSON, CSV and terminal tables (`-o json|csv|table`)."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from typing import Any

from rich.console import Console
from rich.table import Table

from gpuplane.account import views
from gpuplane.account.compute import AccountResult
from gpuplane.costs import GpuTime, overhead_rows

_HOURS = tuple(f"{views.kind_name(k)}_gpu_hours" for k in views.ACCOUNT_KINDS)
_COSTS = tuple(f"cost_{k.value}" for k in views.ACCOUNT_KINDS)
CSV_COLUMNS = (
    "dimension",
    "name",
    "provisioned_gpu_hours",
    "allocated_gpu_hours",
    *_HOURS,
    "pods",
    "accepted_units",
    *_COSTS,
    "cost_gpu",
    "currency",
)


def iso(ts: float) -> str:
    """Unix seconds as an ISO 8601 UTC time."""
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def as_dict(result: AccountResult) -> dict[str, Any]:
    """Everything in one JSON-ready dict: window, notes, summary and the three views."""
    effective = views.team_effective(result)
    teams = []
    for row in views.financial(result, "team"):
        entry = row.as_dict()
        if row.name in effective:
            entry["effective_cost"] = effective[row.name].total
            entry["cost_per_accepted_unit"] = effective[row.name].per_accepted_unit(row.accepted)
        teams.append(entry)
    return {
        "cluster": result.cluster,
        "window": {
            "start": iso(result.start),
            "end": iso(result.end),
            "step_seconds": result.step,
            "hours": result.hours,
        },
        "currency": result.currency,
        "activity_source": result.activity_source,
        "notes": result.notes,
        "summary": views.summary(result).as_dict(),
        "financial": {
            "teams": teams,
            "namespaces": [r.as_dict() for r in views.financial(result, "namespace")],
            "pools": [r.as_dict() for r in views.financial(result, "pool")],
            "accelerators": [r.as_dict() for r in views.financial(result, "accelerator")],
            "pods": [r.as_dict() for r in views.financial(result, "pod")],
        },
        "workload": {
            "pods": views.workload(result),
            "kueue": views.kueue(result),
        },
        "platform": {"pools": views.platform(result)},
    }


def to_json(result: AccountResult) -> str:
    """The result as stable, sorted JSON."""
    return json.dumps(as_dict(result), indent=2, sort_keys=True, allow_nan=False) + "\n"


def to_csv(result: AccountResult) -> str:
    """One row per group of every dimension (team, namespace, pool, accelerator, pod)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for dim in views.DIMENSIONS:
        for row in views.financial(result, dim):
            fields = row.as_dict()
            values = [fields[name] for name in ("provisioned_gpu_hours", "allocated_gpu_hours", *_HOURS)]
            values += [row.pods, row.accepted, *(getattr(row.cost, k.value) for k in views.ACCOUNT_KINDS)]
            values.append(row.cost.gpu)
            writer.writerow(
                [dim, row.name, *("" if v is None else _num(v) for v in values), row.cost.currency]
            )
    return out.getvalue()


def _num(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:.4f}"


def _money(value: float | None, currency: str) -> str:
    return "–" if value is None else f"{value:,.2f} {currency}"


def print_tables(result: AccountResult, console: Console) -> None:
    """Summary, pools, teams and the costliest pods as rich tables, then the notes."""
    s = views.summary(result)
    cur = result.currency
    console.print(
        f"[bold]{result.cluster}[/bold]  {iso(result.start)} → {iso(result.end)}  "
        f"step {result.step:g}s  activity: {result.activity_source or 'none'}"
    )
    kinds = "  ".join(f"{k.label} {s.hours[k]:,.1f}" for k in views.ACCOUNT_KINDS)
    console.print(
        f"GPU-hours: provisioned {s.provisioned_h:,.1f}  allocated {s.hours.allocated:,.1f}  {kinds}"
    )
    console.print(
        f"Cost: {_money(s.cost.total, cur)}  accepted units {s.accepted}  per unit "
        f"{_money(s.per_accepted_unit, cur)}  per useful GPU-hour {_money(s.per_useful_gpu_hour, cur)}"
    )
    terms = "  ".join(f"{label} {value}" for label, value in overhead_rows(s.cost))
    console.print(f"Overheads ({cur}): {terms}", markup=False)
    console.print(_rows_table("Pools", views.financial(result, "pool"), cur, provisioned=True))
    console.print(_rows_table("Teams", views.financial(result, "team"), cur))
    pods = sorted(views.financial(result, "pod"), key=lambda r: (-r.cost.gpu, r.name))[:20]
    console.print(_rows_table("Pods (top 20 by cost)", pods, cur))
    for note in result.notes:
        console.print(f"[yellow]note:[/yellow] {note}", highlight=False)


def _rows_table(title: str, rows: list[views.Row], currency: str, provisioned: bool = False) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("name")
    kinds = [k for k in views.ACCOUNT_KINDS if provisioned or k is not GpuTime.UNALLOCATED]
    heads = (["provisioned"] if provisioned else []) + ["allocated"] + [k.label for k in kinds]
    for head in [*heads, f"cost ({currency})"]:
        table.add_column(head, justify="right")
    for row in rows:
        cells = [f"{row.provisioned_h or 0:,.1f}"] if provisioned else []
        cells += [f"{v:,.1f}" for v in (row.hours.allocated, *(row.hours[k] for k in kinds))]
        table.add_row(row.name, *cells, f"{row.cost.gpu:,.2f}")
    return table
