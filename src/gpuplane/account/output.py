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

CSV_COLUMNS = (
    "dimension",
    "name",
    "provisioned_gpu_hours",
    "allocated_gpu_hours",
    "useful_gpu_hours",
    "idle_allocated_gpu_hours",
    "failed_gpu_hours",
    "unallocated_gpu_hours",
    "pods",
    "accepted_units",
    "cost_useful",
    "cost_idle",
    "cost_failed",
    "cost_unallocated",
    "cost_gpu",
    "currency",
)


def iso(ts: float) -> str:
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
            "kueue": {
                "pending_workloads": result.kueue_pending,
                "mean_admission_wait_seconds": result.kueue_wait_s,
                "resource_usage": [
                    {"cluster_queue": q, "resource": r, "usage": v}
                    for (q, r), v in sorted(result.raw.kueue_usage.items())
                ],
            },
        },
        "platform": {"pools": views.platform(result)},
    }


def to_json(result: AccountResult) -> str:
    return json.dumps(as_dict(result), indent=2, sort_keys=True) + "\n"


def to_csv(result: AccountResult) -> str:
    """One row per group of every dimension (team, namespace, pool, accelerator, pod)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for dim in views.DIMENSIONS:
        for row in views.financial(result, dim):
            c = row.cost
            values = [
                row.provisioned_h,
                row.hours.allocated,
                row.hours.useful,
                row.hours.idle,
                row.hours.failed,
                row.hours.unallocated,
                row.pods,
                row.accepted,
                c.useful,
                c.idle,
                c.failed,
                c.unallocated,
                c.gpu,
            ]
            writer.writerow([dim, row.name, *("" if v is None else _num(v) for v in values), c.currency])
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
    console.print(
        f"GPU-hours: provisioned {s.provisioned_h:,.1f}  allocated {s.hours.allocated:,.1f}  "
        f"useful {s.hours.useful:,.1f}  idle {s.hours.idle:,.1f}  failed {s.hours.failed:,.1f}  "
        f"unallocated {s.hours.unallocated:,.1f}"
    )
    console.print(
        f"Cost: {_money(s.cost.total, cur)}  accepted units {s.accepted}  per unit "
        f"{_money(s.per_accepted_unit, cur)}  per useful GPU-hour {_money(s.per_useful_gpu_hour, cur)}"
    )
    console.print(_rows_table("Pools", views.financial(result, "pool"), cur, provisioned=True))
    console.print(_rows_table("Teams", views.financial(result, "team"), cur))
    pods = sorted(views.financial(result, "pod"), key=lambda r: (-r.cost.gpu, r.name))[:20]
    console.print(_rows_table("Pods (top 20 by cost)", pods, cur))
    for note in result.notes:
        console.print(f"[yellow]note:[/yellow] {note}", highlight=False)


def _rows_table(title: str, rows: list[views.Row], currency: str, provisioned: bool = False) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("name")
    heads = (["provisioned"] if provisioned else []) + ["allocated", "useful", "idle", "failed"]
    heads += ["unallocated"] if provisioned else []
    for head in [*heads, f"cost ({currency})"]:
        table.add_column(head, justify="right")
    for row in rows:
        cells = [f"{row.provisioned_h or 0:,.1f}"] if provisioned else []
        cells += [
            f"{v:,.1f}" for v in (row.hours.allocated, row.hours.useful, row.hours.idle, row.hours.failed)
        ]
        cells += [f"{row.hours.unallocated:,.1f}"] if provisioned else []
        table.add_row(row.name, *cells, f"{row.cost.gpu:,.2f}")
    return table
