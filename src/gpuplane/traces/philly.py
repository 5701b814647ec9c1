"""Readers for Microsoft Philly as flattened by the Pollux authors (`philly.csv`) and for the
DIR-LAB reformatting of Philly and Helios (`*_data_training.csv`).

Both describe whole-GPU gang jobs. Neither records how a gang was split into pods, so pods get
at most `max_gpus_per_pod` GPUs (8: one pod per 8-GPU node); the DIR-LAB files do record the
number of nodes, and there each node gets one pod.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from gpuplane.traces.model import FinalStatus, PodSet, Workload, WorkloadClass, gang_limit_problem, timed_work
from gpuplane.traces.rows import BadRow, Issues, column_index, numbered_rows, open_csv, to_float, to_int

POLLUX_COLUMNS = ("timestamp", "duration", "num_gpus", "gpu_time", "cluster")
DIRLAB_COLUMNS = (
    "u_id",
    "user",
    "gpu_num",
    "cpu_num",
    "node_num",
    "interval",
    "run_time",
    "wall_time",
    "new_status",
)
DIRLAB_STATUS: dict[str, FinalStatus] = {"Pass": "completed", "Failed": "failed", "Killed": "killed"}
MAX_GPUS_PER_POD = 8


@lru_cache(maxsize=4096)
def split_gang(gpus: int, pods: int, cpu_milli: int = 0) -> tuple[PodSet, ...]:
    """A gang of `gpus` GPUs (and `cpu_milli` CPU) over `pods` pods, as even as whole numbers
    allow. Identical pods form one pod set: `worker`, then `worker-2`, ... for the uneven rest."""
    if pods < 1:
        raise ValueError("a gang needs at least one pod")
    base, extra = divmod(gpus, pods)
    cpu_base, cpu_extra = divmod(cpu_milli, pods)
    # Pod i gets one more GPU when i < extra and one more milli-CPU when i < cpu_extra.
    cuts = [*sorted({0, min(extra, cpu_extra), max(extra, cpu_extra), pods} - {pods}), pods]
    out = []
    for k, (lo, hi) in enumerate(itertools.pairwise(cuts)):
        if hi <= lo:
            continue
        name = "worker" if k == 0 else f"worker-{k + 1}"
        out.append(PodSet(name, hi - lo, float(base + (lo < extra)), None, cpu_base + (lo < cpu_extra), 0))
    return tuple(out)


def _limited(pod_sets: tuple[PodSet, ...], column: str) -> tuple[PodSet, ...]:
    too_large = gang_limit_problem(pod_sets)
    if too_large is not None:
        raise BadRow(column, too_large)
    return pod_sets


def pods_for(gpus: int, max_per_pod: int = MAX_GPUS_PER_POD) -> int:
    """Fewest pods of at most `max_per_pod` GPUs (16 -> 2, 12 -> 2 (6 + 6), 9 -> 2 (5 + 4))."""
    return max(1, -(-gpus // max_per_pod))


def philly_origin(path: Path) -> datetime | None:
    """The earliest submit timestamp of a Pollux Philly file (one streaming pass; the file is not
    sorted). Submit times are seconds after it. Unreadable timestamps are left to the main pass."""
    earliest: datetime | None = None
    with open_csv(path) as stream:
        header, rows = numbered_rows(stream, str(path), Issues(str(path), strict=False))
        index = column_index(header, POLLUX_COLUMNS, str(path))
        col = index["timestamp"]
        for _, row in rows:
            try:
                ts = datetime.fromisoformat(row[col].strip())
            except (ValueError, IndexError):
                continue
            if earliest is None or ts < earliest:
                earliest = ts
    return earliest


def read_pollux(
    header: list[str], rows: Iterator[tuple[int, list[str]]], issues: Issues, origin: datetime | None
) -> Iterator[Workload]:
    """Philly jobs: training gangs of `num_gpus` whole GPUs with `duration x num_gpus` GPU-seconds
    of work, queue = team = the virtual cluster. No status is recorded, so all complete."""
    index = column_index(header, POLLUX_COLUMNS, issues.file)
    c_ts, c_dur, c_gpus, c_gt, c_vc = (index[c] for c in POLLUX_COLUMNS)
    width = max(c_ts, c_dur, c_gpus, c_gt, c_vc) + 1
    for line, row in rows:
        try:
            if len(row) < width:
                raise BadRow(header[len(row)], f"missing (the row has {len(row)} cells)")
            try:
                ts = datetime.fromisoformat(row[c_ts].strip())
            except ValueError:
                raise BadRow("timestamp", f"{row[c_ts]!r} is not YYYY-MM-DD HH:MM:SS") from None
            duration = to_float(row[c_dur], "duration", positive=True)
            gpus = to_int(row[c_gpus], "num_gpus", minimum=1)
            gpu_time = to_float(row[c_gt], "gpu_time", positive=True)
            if abs(gpu_time - duration * gpus) > 1e-6 * gpu_time:
                raise BadRow("gpu_time", f"{gpu_time:g} is not duration x num_gpus ({duration * gpus:g})")
            vc = row[c_vc].strip()
            if not vc:
                raise BadRow("cluster", "empty virtual cluster")
            gang = _limited(split_gang(gpus, pods_for(gpus)), "num_gpus")
        except BadRow as bad:
            issues.bad_row(line, bad.column, bad.message)
            continue
        start = origin or ts
        yield Workload(
            f"philly-{line}",
            vc,
            vc,
            "training",
            (ts - start).total_seconds(),
            gang,
            duration * gpus,
            None,
            0,
            None,
            "completed",
            1.0,
            None,
            None,
            line,
        )


def read_dirlab(
    header: list[str], rows: Iterator[tuple[int, list[str]]], issues: Issues
) -> Iterator[Workload]:
    """DIR-LAB jobs: submit = running sum of `interval`, one pod per node, queue = `user-<id>`,
    final status Pass/Failed/Killed; a failed or killed job stops at the end of its recorded run.

    A skipped row still moves time on by its interval when that cell could be read.
    """
    index = column_index(header, DIRLAB_COLUMNS, issues.file)
    cols = [index[c] for c in DIRLAB_COLUMNS]
    width = max(cols) + 1
    c_id, c_user, c_gpu, c_cpu, c_nodes, c_int, c_run, _, c_status = cols
    submit = 0.0
    for line, row in rows:
        try:
            if len(row) < width:
                raise BadRow(header[len(row)], f"missing (the row has {len(row)} cells)")
            submit += to_float(row[c_int], "interval", minimum=0)
            job_id, user = row[c_id].strip(), row[c_user].strip()
            if not job_id or not user:
                raise BadRow("u_id" if not job_id else "user", "empty")
            gpus = to_int(row[c_gpu], "gpu_num", minimum=0)
            cpus = to_int(row[c_cpu], "cpu_num", minimum=0)
            nodes = to_int(row[c_nodes], "node_num", minimum=1)
            if gpus and nodes > gpus:
                raise BadRow("node_num", f"{nodes} nodes for {gpus} GPUs would leave pods without a GPU")
            run = to_float(row[c_run], "run_time", minimum=0)
            status = DIRLAB_STATUS.get(row[c_status].strip())
            if status is None:
                raise BadRow("new_status", f"{row[c_status]!r} is not Pass, Failed or Killed")
            klass: WorkloadClass = "training" if gpus else "batch"
            pod_sets = _limited(split_gang(gpus, nodes, cpus * 1000), "gpu_num")
            if gpus and run <= 0:
                raise BadRow("run_time", "a GPU job needs a run time > 0")
        except BadRow as bad:
            issues.bad_row(line, bad.column, bad.message)
            continue
        work, fixed = timed_work(klass, pod_sets, run)
        queue = f"user-{user}"
        yield Workload(
            job_id,
            queue,
            queue,
            klass,
            submit,
            pod_sets,
            work,
            fixed,
            0,
            None,
            status,
            1.0,
            None,
            user,
            line,
        )
