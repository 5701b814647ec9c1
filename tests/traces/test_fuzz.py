"""Whatever the rows hold, a reader yields valid records and located warnings, or (strict) one
InputError; it never crashes with another exception and never yields a record it had to change."""

from __future__ import annotations

import csv
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuplane.errors import InputError
from gpuplane.traces import COLUMNS, check_workload, load_workload

HEADERS = {
    "gpuplane": list(COLUMNS),
    "philly-pollux": ["timestamp", "duration", "num_gpus", "gpu_time", "cluster"],
    "dirlab": [
        "u_id",
        "user",
        "gpu_num",
        "cpu_num",
        "node_num",
        "interval",
        "run_time",
        "wall_time",
        "new_status",
    ],
    "openb": [
        "name",
        "cpu_milli",
        "memory_mib",
        "num_gpu",
        "gpu_milli",
        "gpu_spec",
        "qos",
        "pod_phase",
        "creation_time",
        "deletion_time",
        "scheduled_time",
    ],
}
# Cells that are often almost right, so that rows get deep into the parsers.
_cell = st.one_of(
    st.sampled_from(
        [
            "",
            "0",
            "1",
            "8",
            "-1",
            "0.5",
            "1e309",
            "nan",
            "1000",
            "460",
            "x",
            "2017-10-01 00:00:00",
            "Pass",
            "Failed",
            "LS",
            "BE",
            "Running",
            "Pending",
            "training",
            "batch",
            "inference",
            "worker:1x1",
            "a:2x8 mig=1g.10gb",
            "p:1x0.5; q:1x0",
            "completed",
            "failed",
            "0.25",
        ]
    ),
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=8),
)


@pytest.mark.parametrize("fmt", sorted(HEADERS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.lists(_cell, min_size=0, max_size=12), max_size=8))
def test_any_rows_give_valid_records_or_located_problems(fmt: str, rows: list[list[str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.csv"
        with path.open("w", encoding="utf-8", newline="") as stream:
            writer = csv.writer(stream)
            writer.writerow(HEADERS[fmt])
            writer.writerows(rows)
        ws = load_workload(path, fmt)
        assert ws.format == fmt
        for w in ws:
            assert check_workload(w) == []
        assert all(p.line is not None and p.line >= 2 and p.severity == "warning" for p in ws.warnings)
        try:
            strict = load_workload(path, fmt, strict=True)
        except InputError as exc:
            assert exc.problems[0].line is not None
        else:
            assert list(strict) == list(ws)


def test_text_that_is_not_utf8_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"id,class,submit_s,pod_sets,run_time_s\n" + b"caf\xe9,batch,1,p:1x0,1\n" * 3)
    with pytest.raises(InputError, match="UTF-8"):
        load_workload(path)
