"""The gpuplane workload CSV: one row per workload, every record field expressible.

The format is documented field by field in docs/workloads.md. Writing then reading gives back
equal records (numbers are written in Python's shortest round-trip form).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import IO

from gpuplane.errors import InputError
from gpuplane.outputs import open_output
from gpuplane.traces.model import (
    FINAL_STATUSES,
    WORKLOAD_CLASSES,
    Checkpoint,
    FinalStatus,
    PodSet,
    Workload,
    WorkloadClass,
    check_workload,
    gang_limit_problem,
)
from gpuplane.traces.rows import BadRow, Issues, column_index, optional_float, to_float, to_int

COLUMNS: tuple[str, ...] = (
    "id",
    "team",
    "queue",
    "class",
    "submit_s",
    "pod_sets",
    "work_gpu_s",
    "run_time_s",
    "priority",
    "checkpoint_interval_s",
    "checkpoint_write_s",
    "checkpoint_restore_s",
    "final_status",
    "end_at_fraction",
    "gpu_model",
    "user",
)
REQUIRED: tuple[str, ...] = ("id", "class", "submit_s", "pod_sets")
_CHECKPOINT = ("checkpoint_interval_s", "checkpoint_write_s", "checkpoint_restore_s")
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_POD_SET = re.compile(r"^(?P<name>[^:\s]+):(?P<count>[^x\s]+)x(?P<gpus>\S+)(?P<attrs>(\s+\S+)*)$")
_ATTRS = ("mig", "cpu_milli", "memory_mib")


def is_gpuplane_header(header: list[str]) -> bool:
    """True when a header names the gpuplane CSV's required columns."""
    return all(c in header for c in REQUIRED)


# -- writing -------------------------------------------------------------------------------------


def num(value: float | int) -> str:
    """Shortest text that reads back as the same number ('3600' for 3600.0, '0.46' for 0.46)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def format_pod_sets(pod_sets: tuple[PodSet, ...]) -> str:
    """`name:COUNTxGPUS[ mig=P][ cpu_milli=N][ memory_mib=N]` joined by '; '."""
    parts = []
    for ps in pod_sets:
        if not _NAME.match(ps.name):
            raise ValueError(f"pod set name {ps.name!r} is not a DNS label; it cannot be written")
        text = f"{ps.name}:{ps.count}x{num(ps.gpus_per_pod)}"
        if ps.mig_profile is not None:
            text += f" mig={ps.mig_profile}"
        if ps.cpu_milli:
            text += f" cpu_milli={ps.cpu_milli}"
        if ps.memory_mib:
            text += f" memory_mib={ps.memory_mib}"
        parts.append(text)
    return "; ".join(parts)


def _opt(value: float | None) -> str:
    return "" if value is None else num(value)


def to_row(w: Workload) -> list[str]:
    """The CSV cells of one workload, in `COLUMNS` order."""
    cp = w.checkpoint
    return [
        w.id,
        w.team,
        w.queue,
        w.klass,
        num(w.submit),
        format_pod_sets(w.pod_sets),
        _opt(w.work_gpu_seconds),
        _opt(w.run_time),
        str(w.priority),
        _opt(cp.interval_s if cp else None),
        _opt(cp.write_s if cp else None),
        _opt(cp.restore_s if cp else None),
        w.final_status,
        num(w.end_at_fraction),
        w.gpu_model or "",
        w.user or "",
    ]


def write_csv_stream(workloads: Iterable[Workload], stream: IO[str]) -> int:
    """Write the header and one row per workload to an open text stream; returns the row count."""
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(COLUMNS)
    count = 0
    for w in workloads:
        writer.writerow(to_row(w))
        count += 1
    return count


def write_workloads_csv(workloads: Iterable[Workload], path: Path) -> int:
    """Write a gpuplane CSV by the rules of `gpuplane.outputs` (atomically for a file).

    Streams row by row, so an 800,000-row export never builds the whole text in memory.
    """
    with open_output(path) as stream:
        return write_csv_stream(workloads, stream)


# -- reading -------------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def parse_pod_sets(text: str) -> tuple[PodSet, ...]:
    """Parse the `pod_sets` cell; raises BadRow('pod_sets', ...) naming what is wrong.

    Cached: equal cells share one tuple, which keeps large files small in memory.
    """
    if not text:
        raise BadRow("pod_sets", "empty; write at least one pod set as name:COUNTxGPUS")
    out = []
    for part in (p.strip() for p in text.split(";")):
        m = _POD_SET.match(part)
        if m is None or not _NAME.match(m["name"]):
            raise BadRow("pod_sets", f"{part!r} is not name:COUNTxGPUS[ mig=P][ cpu_milli=N][ memory_mib=N]")
        attrs: dict[str, str] = {}
        for item in m["attrs"].split():
            key, sep, value = item.partition("=")
            if not sep or key not in _ATTRS or key in attrs or not value:
                raise BadRow(
                    "pod_sets", f"{item!r} in {part!r}: expected one of {', '.join(_ATTRS)} as key=value"
                )
            attrs[key] = value
        out.append(
            PodSet(
                name=m["name"],
                count=to_int(m["count"], "pod_sets", minimum=1),
                gpus_per_pod=to_float(m["gpus"], "pod_sets", minimum=0),
                mig_profile=attrs.get("mig"),
                cpu_milli=to_int(attrs.get("cpu_milli", "0"), "pod_sets", minimum=0),
                memory_mib=to_int(attrs.get("memory_mib", "0"), "pod_sets", minimum=0),
            )
        )
    names = [ps.name for ps in out]
    if len(set(names)) != len(names):
        raise BadRow("pod_sets", "pod set names must be distinct")
    too_large = gang_limit_problem(tuple(out))
    if too_large is not None:
        raise BadRow("pod_sets", too_large)
    return tuple(out)


def _checkpoint(cells: dict[str, str]) -> Checkpoint | None:
    values = [optional_float(cells[c], c, minimum=0) for c in _CHECKPOINT]
    if all(v is None for v in values):
        return None
    for column, value in zip(_CHECKPOINT, values, strict=True):
        if value is None:
            raise BadRow(column, "checkpointing needs all of interval, write and restore times")
    interval, write, restore = values
    assert interval is not None and write is not None and restore is not None
    return _shared_checkpoint(interval, write, restore)


@lru_cache(maxsize=1024)
def _shared_checkpoint(interval: float, write: float, restore: float) -> Checkpoint:
    """Equal checkpoints share one object (files repeat a few settings many times)."""
    return Checkpoint(interval, write, restore)


def _choice(text: str, column: str, allowed: tuple[str, ...], default: str) -> str:
    value = text or default
    if value not in allowed:
        raise BadRow(column, f"{text!r} is not one of {', '.join(allowed)}")
    return value


def parse_row(cells: dict[str, str], line: int) -> Workload:
    """One gpuplane CSV row (column -> stripped text, '' when absent) as a Workload; raises
    BadRow naming the first bad column."""
    team, queue = cells["team"], cells["queue"]
    klass: WorkloadClass = _choice(cells["class"], "class", WORKLOAD_CLASSES, "")  # type: ignore[assignment]
    status: FinalStatus = _choice(cells["final_status"], "final_status", FINAL_STATUSES, "completed")  # type: ignore[assignment]
    fraction, priority = cells["end_at_fraction"], cells["priority"]
    w = Workload(
        id=cells["id"],
        team=team or queue or "default",
        queue=queue or team or "default",
        klass=klass,
        submit=to_float(cells["submit_s"], "submit_s", minimum=0),
        pod_sets=parse_pod_sets(cells["pod_sets"]),
        work_gpu_seconds=optional_float(cells["work_gpu_s"], "work_gpu_s"),
        run_time=optional_float(cells["run_time_s"], "run_time_s"),
        priority=to_int(priority, "priority") if priority else 0,
        checkpoint=_checkpoint(cells),
        final_status=status,
        end_at_fraction=to_float(fraction, "end_at_fraction") if fraction else 1.0,
        gpu_model=cells["gpu_model"] or None,
        user=cells["user"] or None,
        source_line=line,
    )
    problems = check_workload(w)
    if problems:
        column, message = problems[0]
        raise BadRow(column, message)
    return w


def read_gpuplane_rows(
    header: list[str], rows: Iterator[tuple[int, list[str]]], issues: Issues
) -> Iterator[Workload]:
    """Stream workloads from the rows of a gpuplane CSV; duplicate ids are bad rows."""
    unknown = [c for c in header if c not in COLUMNS]
    if unknown:
        raise InputError.single(
            issues.file,
            f"unknown column {unknown[0]!r} (known: {', '.join(COLUMNS)})",
            line=1,
            path=unknown[0],
        )
    index = column_index(header, REQUIRED, issues.file)
    if "work_gpu_s" not in index and "run_time_s" not in index:
        raise InputError.single(issues.file, "the header needs work_gpu_s or run_time_s", line=1)
    positions = [index.get(c, -1) for c in COLUMNS]
    seen: set[str] = set()
    for line, row in rows:
        try:
            width = len(row)
            if width > len(header):
                raise BadRow(header[-1], f"{width} cells but the header has {len(header)} columns")
            cells = dict(
                zip(COLUMNS, [row[i].strip() if 0 <= i < width else "" for i in positions], strict=True)
            )
            w = parse_row(cells, line)
            if w.id in seen:
                raise BadRow("id", f"duplicate id {w.id!r}")
        except BadRow as bad:
            issues.bad_row(line, bad.column, bad.message)
            continue
        seen.add(w.id)
        yield w
