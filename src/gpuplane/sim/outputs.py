"""Files a run writes: the per-workload CSV and the JSON metrics (atomically, byte-stable)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gpuplane.outputs import write_text_atomic
from gpuplane.sim.engine import Outcome
from gpuplane.sim.state import Run

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


def workload_row(run: Run, outcome: Outcome) -> list[str]:
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


def workloads_csv(outcome: Outcome, runs: Iterable[Run] | None = None) -> str:
    """The per-workload CSV as text, in submission order."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for run in runs if runs is not None else outcome.runs:
        writer.writerow(workload_row(run, outcome))
    return buffer.getvalue()


def write_csv(path: Path, outcome: Outcome) -> None:
    """Write the per-workload CSV atomically."""
    write_text_atomic(path, workloads_csv(outcome))


def dumps(data: Any) -> str:
    """Stable JSON text (sorted keys, two-space indent, trailing newline)."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_json(path: Path, data: Any) -> None:
    """Write JSON metrics atomically."""
    write_text_atomic(path, dumps(data))
