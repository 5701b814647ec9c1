"""The gpuplane CSV: round trip, the pod-set syntax, and located bad rows."""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuplane.errors import InputError
from gpuplane.limits import limits
from gpuplane.traces import (
    COLUMNS,
    FINAL_STATUSES,
    Checkpoint,
    PodSet,
    Workload,
    generate,
    load_workload,
    parse_pod_sets,
    read_workloads,
    write_csv_stream,
    write_workloads_csv,
)

HEADER = ",".join(COLUMNS)

EDGE_CASES = [
    Workload(
        "train-1",
        "team-a",
        "vc1",
        "training",
        0.0,
        (PodSet("launcher", 1, 0.0, None, 2000, 4096), PodSet("worker", 4, 8.0, None, 64000, 512000)),
        work_gpu_seconds=32 * 7200.0,
        priority=100,
        checkpoint=Checkpoint(1800.0, 45.5, 91.0),
        final_status="failed",
        end_at_fraction=0.375,
        user="alice",
    ),
    Workload(
        "svc,with comma",
        "team-b",
        "team-b",
        "inference",
        12.345,
        (PodSet("server", 3, 1.0, "1g.10gb", 4000, 16384),),
        run_time=86400.0,
        priority=1000,
    ),
    Workload(
        "shared",
        "LS",
        "LS",
        "batch",
        1e-3,
        (PodSet("pod", 1, 0.46),),
        work_gpu_seconds=0.1 + 0.2,
        final_status="killed",
        end_at_fraction=1.0,
        gpu_model="V100M16|V100M32",
    ),
    # Submitted at the simulated-time limit itself: the last instant a trace row may have.
    Workload(
        "cpu",
        "q",
        "q",
        "batch",
        float(limits().simulated_time_s),
        (PodSet("pod", 2, 0.0, None, 500, 0),),
        run_time=0.0,
    ),
]


def _roundtrip(workloads: list[Workload], tmp_path: Path) -> list[Workload]:
    path = tmp_path / "w.csv"
    write_workloads_csv(workloads, path)
    return list(read_workloads(path, strict=True))


def test_read_of_write_gives_equal_records(tmp_path: Path) -> None:
    assert _roundtrip(EDGE_CASES, tmp_path) == EDGE_CASES


def test_generated_workloads_round_trip_and_rewrite_byte_identically(tmp_path: Path) -> None:
    original = generate(7, 2 * 86400, ("a", "b"), jobs_per_hour=30)
    back = _roundtrip(original, tmp_path)
    assert back == original
    first, second = io.StringIO(), io.StringIO()
    write_csv_stream(original, first)
    write_csv_stream(back, second)
    assert first.getvalue() == second.getvalue()


_names = st.from_regex(r"[a-z][a-z0-9-]{0,6}[a-z0-9]", fullmatch=True)
# Valid records keep the stated limits (limits.yaml): submit times up to simulated_time_s, runs up
# to job_run_s (work up to job_run_s x the smallest GPU request drawn below, 0.25).
_secs = st.floats(min_value=0, max_value=limits().job_run_s, allow_nan=False, allow_infinity=False)
_submits = st.floats(min_value=0, max_value=limits().simulated_time_s, allow_nan=False, allow_infinity=False)
_work = st.floats(1e-3, limits().job_run_s * 0.25)


@st.composite
def _workloads(draw: st.DrawFn) -> Workload:
    mig = draw(st.sampled_from([None, "1g.10gb", "3g.40gb"]))
    gpus = float(draw(st.integers(1, 8))) if mig else draw(st.sampled_from([0.25, 0.46, 1.0, 2.0, 8.0]))
    pods = tuple(
        PodSet(
            n, draw(st.integers(1, 64)), gpus, mig, draw(st.integers(0, 10**6)), draw(st.integers(0, 10**7))
        )
        for n in draw(st.lists(_names, min_size=1, max_size=3, unique=True))
    )
    status = draw(st.sampled_from(FINAL_STATUSES))
    frac = 1.0 if status == "completed" else draw(st.floats(min_value=1e-6, max_value=1.0))
    fixed = draw(st.booleans())
    cp = draw(st.none() | st.builds(Checkpoint, st.floats(1, 1e5), _secs, _secs))
    return Workload(
        draw(_names),
        draw(_names),
        draw(_names),
        draw(st.sampled_from(["training", "batch", "inference"])),
        draw(_submits),
        pods,
        None if fixed else draw(_work),
        draw(_secs) if fixed else None,
        draw(st.integers(-1000, 10**6)),
        cp,
        status,
        frac,
        draw(st.none() | st.just("A100|H100")),
        draw(st.none() | _names),
    )


@settings(max_examples=40, deadline=None)
@given(st.lists(_workloads(), max_size=5, unique_by=lambda w: w.id))
def test_round_trip_holds_for_any_valid_record(workloads: list[Workload]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "w.csv"
        write_workloads_csv(workloads, path)
        assert list(read_workloads(path, strict=True)) == workloads


def test_pod_set_syntax() -> None:
    assert parse_pod_sets("worker:4x8 cpu_milli=8000 memory_mib=65536; launcher:1x0") == (
        PodSet("worker", 4, 8.0, None, 8000, 65536),
        PodSet("launcher", 1, 0.0),
    )
    assert parse_pod_sets("svc:2x1 mig=2g.20gb") == (PodSet("svc", 2, 1.0, "2g.20gb"),)


def test_minimal_hand_written_file_gets_defaults(write_csv: Callable[[str, str], Path]) -> None:
    path = write_csv("m.csv", "id,class,submit_s,pod_sets,work_gpu_s\njob1,training,10,worker:2x4,800\n")
    [w] = list(read_workloads(path))
    assert (w.team, w.queue, w.priority, w.final_status, w.end_at_fraction) == (
        "default",
        "default",
        0,
        "completed",
        1.0,
    )
    assert w.duration == 100.0
    assert w.source_line == 2


BAD_ROWS = [
    ("j,training,-5,worker:1x1,10", "submit_s"),
    ("j,training,abc,worker:1x1,10", "submit_s"),
    ("j,training,5,worker:1x1,nan", "work_gpu_s"),
    ("j,trainin,5,worker:1x1,10", "class"),
    ("j,training,5,worker 1x1,10", "pod_sets"),
    ("j,training,5,worker:1x1 colour=red,10", "pod_sets"),
    ("j,training,5,Worker:1x1,10", "pod_sets"),
    ("j,training,5,worker:0x1,10", "pod_sets"),
    ("j,training,5,a:1x1;a:1x1,10", "pod_sets"),
    ("j,training,5,worker:1x0,10", "work_gpu_s"),
    ("j,training,5,worker:1x1,10,extra", "work_gpu_s"),
]


@pytest.mark.parametrize(("row", "column"), BAD_ROWS)
def test_bad_row_is_skipped_with_a_located_warning(
    write_csv: Callable[[str, str], Path], row: str, column: str
) -> None:
    path = write_csv("b.csv", "id,class,submit_s,pod_sets,work_gpu_s\nok,batch,1,p:1x1,5\n" + row + "\n")
    ws = load_workload(path)
    assert [w.id for w in ws] == ["ok"]
    [warning] = ws.warnings
    assert (warning.file, warning.line, warning.path, warning.severity) == (str(path), 3, column, "warning")


@pytest.mark.parametrize(("row", "column"), BAD_ROWS)
def test_strict_fails_on_the_bad_row(write_csv: Callable[[str, str], Path], row: str, column: str) -> None:
    path = write_csv("b.csv", "id,class,submit_s,pod_sets,work_gpu_s\nok,batch,1,p:1x1,5\n" + row + "\n")
    with pytest.raises(InputError) as info:
        load_workload(path, strict=True)
    [problem] = info.value.problems
    assert (problem.line, problem.path) == (3, column)
    assert str(path) in str(problem)


def test_duplicate_id_is_a_bad_row(write_csv: Callable[[str, str], Path]) -> None:
    path = write_csv("d.csv", "id,class,submit_s,pod_sets,run_time_s\na,batch,1,p:1x0,5\na,batch,2,p:1x0,5\n")
    ws = load_workload(path)
    assert len(ws) == 1
    assert ws.warnings[0].line == 3 and "duplicate" in ws.warnings[0].message


def test_unknown_column_fails_the_whole_file(write_csv: Callable[[str, str], Path]) -> None:
    path = write_csv("u.csv", "id,class,submit_s,pod_sets,work_gpu_s,colour\n")
    with pytest.raises(InputError, match="colour"):
        load_workload(path)


def test_failed_write_leaves_no_file(tmp_path: Path) -> None:
    bad = Workload("x", "t", "q", "batch", 0.0, (PodSet("Not A Label", 1, 0.0),), run_time=1.0)
    target = tmp_path / "out.csv"
    with pytest.raises(ValueError, match="DNS label"):
        write_workloads_csv([*EDGE_CASES, bad], target)
    assert list(tmp_path.iterdir()) == []


def test_header_row_is_the_documented_columns(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    write_workloads_csv(EDGE_CASES[:1], path)
    assert path.read_text().splitlines()[0] == HEADER


def test_the_example_in_the_docs_reads_and_round_trips(repo_dir: Path, tmp_path: Path) -> None:
    doc = (repo_dir / "docs" / "workloads.md").read_text(encoding="utf-8")
    block = doc.split("```csv\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "doc.csv"
    path.write_text(block, encoding="utf-8")
    workloads = list(read_workloads(path, strict=True))
    assert [w.id for w in workloads] == ["job-0000001", "svc-0001"]
    assert workloads[0].stop_after == 115200 / 16 * 0.25
    assert workloads[1].mig_profiles == ("1g.10gb",)
    out = tmp_path / "again.csv"
    write_workloads_csv(workloads, out)
    assert out.read_text(encoding="utf-8") == block
