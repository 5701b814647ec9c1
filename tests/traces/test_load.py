"""Format detection, streaming, limits and the WorkloadSet returned by load_workload."""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuplane.errors import InputError
from gpuplane.traces import builtin_week, detect_format, load_workload, read_workloads, write_workloads_csv


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("philly-pollux/philly.csv", "philly-pollux"),
        ("dirlab-philly-15k/philly_data_training.csv", "dirlab"),
        ("dirlab-helios-15k/helios_data_training.csv", "dirlab"),
        ("alibaba-gpu-v2023-openb/openb_pod_list_cpu050.csv", "openb"),
    ],
)
def test_format_is_detected_from_the_header(traces_dir: Path, path: str, fmt: str) -> None:
    assert read_workloads(traces_dir / path).format == fmt


def test_unknown_header_is_a_located_error(write_csv: Callable[[str, str], Path]) -> None:
    path = write_csv("x.csv", "a,b,c\n1,2,3\n")
    with pytest.raises(InputError) as info:
        read_workloads(path)
    assert info.value.problems[0].line == 1
    with pytest.raises(InputError):
        detect_format(["job_id", "num_gpu"], "f")


def test_asking_for_another_format_than_the_header_is_an_error(traces_dir: Path) -> None:
    with pytest.raises(InputError, match="asked for format 'openb'"):
        read_workloads(traces_dir / "philly-pollux/philly.csv", "openb")
    assert read_workloads(traces_dir / "philly-pollux/philly.csv", "philly").format == "philly-pollux"


def test_empty_and_missing_files_are_input_errors(
    write_csv: Callable[[str, str], Path], tmp_path: Path
) -> None:
    with pytest.raises(InputError, match="empty"):
        read_workloads(write_csv("e.csv", ""))
    with pytest.raises(InputError, match="cannot read"):
        read_workloads(tmp_path / "absent.csv")


def test_reading_streams_rows_instead_of_loading_the_file(write_csv: Callable[[str, str], Path]) -> None:
    # Row 4 is bad; in strict mode reading only the first two workloads never reaches it.
    rows = "".join(f"j{i},batch,{i},p:1x0,5\n" for i in range(3)) + "bad,batch,x,p:1x0,5\n"
    stream = read_workloads(write_csv("s.csv", "id,class,submit_s,pod_sets,run_time_s\n" + rows), strict=True)
    assert [w.id for w in itertools.islice(stream, 2)] == ["j0", "j1"]
    with pytest.raises(InputError):
        list(stream)


def test_limit_reads_only_the_first_rows(traces_dir: Path) -> None:
    ws = load_workload(traces_dir / "dirlab-philly-15k/philly_data_training.csv", limit=10)
    assert sorted(w.source_line for w in ws) == list(range(2, 12))


def test_load_sorts_by_submit_keeping_file_order_for_ties(write_csv: Callable[[str, str], Path]) -> None:
    path = write_csv(
        "s.csv",
        "id,class,submit_s,pod_sets,run_time_s\nc,batch,5,p:1x0,1\na,batch,1,p:1x0,1\nb,batch,5,p:1x0,1\n",
    )
    assert [w.id for w in load_workload(path)] == ["a", "c", "b"]


def test_load_maps_teams_when_given_the_spec_teams(
    traces_dir: Path, write_csv: Callable[[str, str], Path]
) -> None:
    team_map = write_csv("m.yaml", "default: ops\nmap:\n  6214e9: research\n")
    ws = load_workload(
        traces_dir / "philly-pollux/philly.csv", team_map=team_map, teams=["research", "ops"], limit=500
    )
    assert {w.team for w in ws if w.queue == "6214e9"} == {"research"}
    assert {w.team for w in ws if w.queue != "6214e9"} == {"ops"}
    with pytest.raises(ValueError, match="teams"):
        load_workload(traces_dir / "philly-pollux/philly.csv", team_map={"a": "b"})


def test_builtin_week_csv_is_byte_identical_across_processes(tmp_path: Path) -> None:
    """Same seed, different hash salts: the exported CSV must not change by a byte."""
    code = (
        "import sys; from pathlib import Path; from gpuplane.traces import builtin_week, write_workloads_csv;"
        "write_workloads_csv(builtin_week(3), Path(sys.argv[1]))"
    )
    outputs = []
    for salt in ("1", "2"):
        out = tmp_path / f"w{salt}.csv"
        subprocess.run([sys.executable, "-c", code, str(out)], check=True, env={"PYTHONHASHSEED": salt})
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    here = tmp_path / "here.csv"
    write_workloads_csv(builtin_week(3), here)
    assert here.read_bytes() == outputs[0]


def test_warnings_are_capped_with_a_count_of_the_rest(write_csv: Callable[[str, str], Path]) -> None:
    from gpuplane.traces.rows import MAX_WARNINGS

    bad = "".join(f"j{i},batch,-1,p:1x0,5\n" for i in range(MAX_WARNINGS + 25))
    ws = load_workload(
        write_csv("many.csv", "id,class,submit_s,pod_sets,run_time_s\n" + bad + "ok,batch,1,p:1x0,5\n")
    )
    assert [w.id for w in ws] == ["ok"]
    assert len(ws.warnings) == MAX_WARNINGS + 1
    assert ws.warnings[-1].message.startswith("25 more bad rows skipped")
    assert ws.warnings[MAX_WARNINGS - 1].line == MAX_WARNINGS + 1
