"""A trace format for tests, added through the public registry (`gpuplane.traces.formats`).

`tests-jobs` files have the header `job,gpus,seconds`: one training job of `gpus` whole GPUs for
`seconds` per row, submitted at the row's line number in seconds. Importing this module
registers it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from gpuplane.traces import PodSet, TraceFormat, Workload, register_format
from gpuplane.traces.formats import Rows
from gpuplane.traces.rows import BadRow, Issues, to_float, to_int

HEADER = ["job", "gpus", "seconds"]


def read_jobs(path: Path, header: list[str], rows: Rows, issues: Issues) -> Iterator[Workload]:
    for line, row in rows:
        try:
            if len(row) != 3:
                raise BadRow("job", f"expected 3 cells, got {len(row)}")
            gpus = to_int(row[1], "gpus", minimum=1)
            seconds = to_float(row[2], "seconds", positive=True)
        except BadRow as bad:
            issues.bad_row(line, bad.column, bad.message)
            continue
        yield Workload(
            row[0],
            "t",
            "t",
            "training",
            float(line),
            (PodSet("main", 1, float(gpus)),),
            work_gpu_seconds=gpus * seconds,
            source_line=line,
        )


register_format(TraceFormat("tests-jobs", ",".join(HEADER), lambda header: header == HEADER, read_jobs))
