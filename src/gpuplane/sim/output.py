"""The output layer of `simulate`: the per-workload CSV, the JSON metrics, the terminal summary,
and writing the requested files (all rendered in memory first, then each written atomically
through `gpuplane.outputs`, so a failure leaves nothing half written).

Every figure comes from the typed `RunSummary` of each run (sim/summary.py); the CSV rows come
from the run's `Outcome`.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from gpuplane.costs import overhead_rows
from gpuplane.outputs import check_file_target, write_text_atomic
from gpuplane.sim.engine import Outcome
from gpuplane.sim.runs import RunRecord
from gpuplane.sim.spec_workload import LABEL as SPEC_WORKLOAD
from gpuplane.sim.summary import RunSummary
from gpuplane.sim.whatif import RunResult

#: Columns of the per-workload CSV, in order (seconds from the start of the trace; cost in the
#: spec's currency). queue_wait = quota_wait (waiting for Kueue) + capacity_wait (admitted,
#: waiting for nodes), summed over every admission of the workload.
CSV_COLUMNS: tuple[str, ...] = (
    "id",
    "team",
    "class",
    "pool",
    "status",
    "submit_s",
    "admit_s",
    "start_s",
    "end_s",
    "queue_wait_s",
    "quota_wait_s",
    "capacity_wait_s",
    "runs",
    "evictions",
    "preemptions",
    "gpu_s",
    "lost_gpu_s",
    "unavailable_s",
    "cost",
)


def _num(value: float | None) -> str:
    if value is None:
        return ""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def workload_row(run: RunRecord, outcome: Outcome) -> list[str]:
    """One CSV row for a workload."""
    pool = outcome.pools[run.pool].name if run.pool >= 0 else ""
    return [
        run.w.id,
        outcome.teams[run.team] if run.team >= 0 else run.w.team,
        run.w.klass,
        pool,
        run.outcome,
        _num(run.submit),
        _num(run.first_admit),
        _num(run.first_start),
        _num(run.end),
        _num(run.quota_wait + run.capacity_wait),
        _num(run.quota_wait),
        _num(run.capacity_wait),
        str(run.runs),
        str(run.evictions),
        str(run.preemptions),
        _num(run.held_gs),
        _num(run.lost_gs),
        _num(run.downtime),
        f"{run.cost:.4f}",
    ]


def workloads_csv(outcome: Outcome, runs: Iterable[RunRecord] | None = None) -> str:
    """The per-workload CSV as text, in submission order."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for run in runs if runs is not None else outcome.runs:
        writer.writerow(workload_row(run, outcome))
    return buffer.getvalue()


def dumps(data: Any) -> str:
    """Stable JSON text (sorted keys, two-space indent, trailing newline)."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def metrics_json(summaries: Sequence[RunSummary]) -> str:
    """The `--json` text: one run's figures, or `{"platforms": [...]}` for a what-if."""
    if len(summaries) == 1:
        return dumps(summaries[0].to_dict())
    return dumps({"platforms": [s.to_dict() for s in summaries]})


@dataclass(frozen=True)
class Targets:
    """The files a session writes (None: not asked for)."""

    json: Path | None = None
    csv: Path | None = None
    report: Path | None = None


def numbered(path: Path, index: int, count: int) -> Path:
    """`out.csv` for one platform, `out-1.csv`, `out-2.csv`... for several."""
    return path if count == 1 else path.with_name(f"{path.stem}-{index + 1}{path.suffix}")


def check_targets(targets: Targets, platforms: int) -> None:
    """OutputError now (before the run) for any file a session of `platforms` runs could not write."""
    paths = [targets.json, targets.report]
    if targets.csv is not None:
        paths += [numbered(targets.csv, i, platforms) for i in range(platforms)]
    for path in paths:
        if path is not None:
            check_file_target(path)


def render_outputs(results: Sequence[RunResult], targets: Targets) -> list[tuple[Path, str]]:
    """Every requested file as (path, text), nothing written yet."""
    from gpuplane.sim.report import build_report

    texts: list[tuple[Path, str]] = []
    if targets.json is not None:
        texts.append((targets.json, metrics_json([r.summary for r in results])))
    if targets.csv is not None:
        for i, r in enumerate(results):
            texts.append((numbered(targets.csv, i, len(results)), workloads_csv(r.outcome)))
    if targets.report is not None:
        texts.append((targets.report, build_report(results).render()))
    return texts


def write_outputs(results: Sequence[RunResult], targets: Targets) -> list[Path]:
    """Render every requested output, then write each atomically; returns the written paths."""
    texts = render_outputs(results, targets)
    for path, text in texts:
        write_text_atomic(path, text)
    return [path for path, _ in texts]


# ---- the terminal summary ------------------------------------------------------------------------
def _money(value: float | None) -> str:
    return "–" if value is None else f"{value:,.2f}"


def _h(seconds: float) -> str:
    return f"{seconds / 3600:,.1f}"


def _rows(s: RunSummary) -> list[tuple[str, str]]:
    w, c = s.workloads, s.cost
    mean_quota = max((t.quota_wait.mean_s for t in s.teams), default=0.0)
    mean_cap = max((t.capacity_wait.mean_s for t in s.teams), default=0.0)
    rental = s.baselines.rental.per_accepted_unit if s.baselines else None
    api = s.baselines.api.per_accepted_unit if s.baselines else None
    return [
        ("cost per accepted unit", _money(s.cost_per_accepted_unit)),
        ("  rented VMs instead (per unit)", _money(rental)),
        ("  model API instead (per unit)", _money(api)),
        ("total cost", _money(c.total)),
        ("  useful GPU time", _money(c.useful)),
        ("  idle (checkpoints, GPU-share waits)", _money(c.idle)),
        ("  failed runs", _money(c.failed)),
        ("  evicted & lost", _money(c.evicted_lost)),
        ("  unallocated GPUs", _money(c.unallocated)),
        *((f"  {label}", value) for label, value in overhead_rows(c)),
        ("accepted units", f"{s.accepted_units:,.0f}"),
        ("workloads (completed/failed/killed)", f"{w.completed:,}/{w.failed:,}/{w.killed:,}"),
        ("still waiting at the end", f"{w.waiting:,}"),
        ("worst team p90 queue wait (h)", _h(s.worst_p90_wait_s)),
        ("worst team mean quota / capacity wait (h)", f"{_h(mean_quota)} / {_h(mean_cap)}"),
        ("evictions / preemptions", f"{s.evictions} / {s.preemptions}"),
        ("inference availability", f"{s.inference.availability * 100:.3f} %"),
        ("simulated window (days)", f"{s.window_hours / 24:,.1f}"),
    ]


def summary_table(results: Sequence[RunResult]) -> Table:
    """One column per platform, one row per key figure."""
    first = results[0].summary
    table = Table(title=f"gpuplane simulate ({first.currency}; seed {first.seed})", title_justify="left")
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
    pools = result.summary.pools
    table.add_column("pool", no_wrap=True, min_width=max([4, *(len(p.name) for p in pools)]))
    for name in ("prov", "alloc", "useful", "failed", "lost", "unalloc", "nodes", "evict"):
        table.add_column(name, justify="right", min_width=len(name), no_wrap=True)
    for p in pools:
        h = p.gpu_hours
        # Whole GPU-hours keep the table inside an 80-column terminal; the JSON has the decimals.
        hours = (h.provisioned, h.allocated, h.useful, h.failed, h.evicted_lost, h.unallocated)
        table.add_row(p.name, *(_compact(v) for v in hours), str(p.peak_nodes), str(p.spot_evictions))
    return table


def print_summary(console: Console, results: Sequence[RunResult]) -> None:
    """Print the comparison table, then each run's pool table and warnings."""
    console.print(summary_table(results))
    for r in results:
        console.print(pools_table(r))
        if r.summary.workload.startswith(SPEC_WORKLOAD):
            console.print(f"workload: {r.summary.workload}", markup=False)
        for warning in r.summary.warnings:
            console.print(f"warning: {warning}", markup=False)
