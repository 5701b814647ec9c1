"""The terminal summary of a run (rich tables), side by side for a what-if."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from gpuplane.sim.session import RunResult


def _money(value: float | None) -> str:
    return "–" if value is None else f"{value:,.2f}"


def _h(seconds: float) -> str:
    return f"{seconds / 3600:,.1f}"


def _rows(s: dict[str, Any]) -> list[tuple[str, str]]:
    w, c = s["workloads"], s["cost"]
    waits = s["teams"]
    worst = max((v["queue_wait"]["p90_s"] for v in waits.values()), default=0.0)
    mean_quota = max((v["quota_wait"]["mean_s"] for v in waits.values()), default=0.0)
    mean_cap = max((v["capacity_wait"]["mean_s"] for v in waits.values()), default=0.0)
    base = s.get("baselines", {})
    return [
        ("cost per accepted unit", _money(s["cost_per_accepted_unit"])),
        ("  rented VMs instead (per unit)", _money(base.get("rental", {}).get("per_accepted_unit"))),
        ("  model API instead (per unit)", _money(base.get("api", {}).get("per_accepted_unit"))),
        ("total cost", _money(c["total"])),
        ("  useful GPU time", _money(c["useful"])),
        ("  idle (checkpoint writes)", _money(c["idle"])),
        ("  failed runs", _money(c["failed"])),
        ("  evicted & lost", _money(c["evicted_lost"])),
        ("  unallocated GPUs", _money(c["unallocated"])),
        ("  support + operations", _money(c["support"] + c["operations"])),
        ("accepted units", f"{s['accepted_units']:,.0f}"),
        ("workloads (completed/failed/killed)", f"{w['completed']:,}/{w['failed']:,}/{w['killed']:,}"),
        ("still waiting at the end", f"{w['pending'] + w['admitted']:,}"),
        ("worst team p90 queue wait (h)", _h(worst)),
        ("worst team mean quota / capacity wait (h)", f"{_h(mean_quota)} / {_h(mean_cap)}"),
        (
            "evictions / preemptions",
            f"{s['interruptions']['evictions']} / {s['interruptions']['preemptions']}",
        ),
        ("inference availability", f"{s['inference']['availability'] * 100:.3f} %"),
        ("simulated window (days)", f"{s['window_hours'] / 24:,.1f}"),
    ]


def summary_table(results: Sequence[RunResult]) -> Table:
    """One column per platform, one row per key figure."""
    currency = results[0].summary["currency"]
    table = Table(
        title=f"gpuplane simulate ({currency}; seed {results[0].summary['seed']})", title_justify="left"
    )
    table.add_column("figure")
    for r in results:
        table.add_column(r.label, justify="right", overflow="fold")
    columns = [_rows(r.summary) for r in results]
    for i, (label, _) in enumerate(columns[0]):
        table.add_row(label, *(col[i][1] for col in columns))
    return table


def _compact(hours: float) -> str:
    """Whole GPU-hours, thousands as `12.3k` past 9,999, so the table fits 80 columns."""
    return f"{hours / 1000:,.1f}k" if hours >= 10_000 else f"{hours:,.0f}"


def pools_table(result: RunResult) -> Table:
    """GPU-hours per pool of one run."""
    table = Table(title=f"{result.label}: GPU-hours per pool", title_justify="left", box=box.SIMPLE_HEAD)
    pools = result.summary["pools"]
    table.add_column("pool", no_wrap=True, min_width=max([4, *(len(name) for name in pools)]))
    for name in ("prov", "alloc", "useful", "failed", "lost", "unalloc", "nodes", "evict"):
        table.add_column(name, justify="right", min_width=len(name), no_wrap=True)
    keys = ("provisioned", "allocated", "useful", "failed", "evicted_lost", "unallocated")
    for pool, p in result.summary["pools"].items():
        h = p["gpu_hours"]
        # Whole GPU-hours keep the table inside an 80-column terminal; the JSON has the decimals.
        table.add_row(pool, *(_compact(h[k]) for k in keys), str(p["peak_nodes"]), str(p["spot_evictions"]))
    return table


def print_summary(console: Console, results: Sequence[RunResult]) -> None:
    """Print the comparison table, then each run's pool table and warnings."""
    console.print(summary_table(results))
    for r in results:
        console.print(pools_table(r))
        for warning in r.summary["warnings"]:
            console.print(f"warning: {warning}", markup=False)
