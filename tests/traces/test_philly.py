"""Philly readers on the real reference files and on small broken copies."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuplane.errors import InputError
from gpuplane.traces import PodSet, WorkloadSet, load_workload, read_workloads
from gpuplane.traces.philly import pods_for, split_gang

POLLUX_HEADER = "timestamp,duration,num_gpus,gpu_time,cluster\n"
DIRLAB_HEADER = "u_id,user,gpu_num,cpu_num,node_num,interval,run_time,wall_time,new_status\n"


@pytest.fixture(scope="module")
def philly(shared_dir: Path) -> WorkloadSet:
    return load_workload(shared_dir / "reference/traces/philly-pollux/philly.csv")


def test_pollux_has_the_jobs_vcs_and_gang_sizes_of_the_readme(philly: WorkloadSet) -> None:
    assert philly.format == "philly-pollux"
    assert len(philly) == 82_247
    assert philly.warnings == []
    vcs = Counter(w.queue for w in philly)
    assert len(vcs) == 15
    assert (vcs["6214e9"], vcs["11cb48"], vcs["6c71a0"], vcs["b436b2"]) == (41_226, 16_091, 9_953, 7_423)
    gangs = Counter(int(w.total_gpus) for w in philly)
    assert gangs == {1: 76_627, 2: 1_818, 4: 1_870, 8: 1_643, 12: 7, 16: 199, 24: 7, 32: 67, 64: 6, 128: 3}


def test_pollux_work_and_time_span_match_the_trace(philly: WorkloadSet) -> None:
    gpu_hours = sum(w.work_gpu_seconds or 0.0 for w in philly) / 3600
    assert round(gpu_hours, 1) == 978_078.5
    assert philly[0].submit == 0.0
    assert round(philly[-1].submit / 86400, 1) == 108.9  # 2017-09-04 10:30 -> 2017-12-22 08:02
    assert all(a.submit <= b.submit for a, b in itertools.pairwise(philly))
    durations = sorted(w.duration for w in philly)
    assert durations[math.ceil(0.5 * len(durations)) - 1] == 1_144.0  # nearest-rank p50 (README)
    assert durations[math.ceil(0.9 * len(durations)) - 1] == 11_266.0


def test_pollux_gangs_split_into_pods_of_at_most_eight_gpus(philly: WorkloadSet) -> None:
    by_size = {int(w.total_gpus): w.pod_sets for w in philly}
    assert by_size[8] == (PodSet("worker", 1, 8.0),)
    assert by_size[12] == (PodSet("worker", 2, 6.0),)
    assert by_size[128] == (PodSet("worker", 16, 8.0),)


def test_split_gang_keeps_totals_and_groups_identical_pods() -> None:
    for gpus, pods, cpu in [(5, 3, 2000), (0, 3, 1000), (16, 2, 0), (7, 7, 7)]:
        sets = split_gang(gpus, pods, cpu)
        assert sum(ps.count for ps in sets) == pods
        assert sum(ps.count * ps.gpus_per_pod for ps in sets) == gpus
        assert sum(ps.count * ps.cpu_milli for ps in sets) == cpu
        assert len({(ps.gpus_per_pod, ps.cpu_milli) for ps in sets}) == len(sets)
    assert [pods_for(g) for g in (1, 8, 9, 16, 24, 128)] == [1, 1, 2, 2, 3, 16]


@pytest.mark.parametrize(
    ("name", "counts", "users", "span"),
    [
        (
            "dirlab-philly-15k/philly_data_training.csv",
            {"completed": 8_538, "failed": 4_509, "killed": 1_953},
            136,
            4_977_039.0,
        ),
        (
            "dirlab-helios-15k/helios_data_training.csv",
            {"completed": 9_316, "killed": 3_452, "failed": 2_232},
            106,
            1_744_281.0,
        ),
    ],
)
def test_dirlab_status_users_and_span_match_the_readme(
    traces_dir: Path, name: str, counts: dict[str, int], users: int, span: float
) -> None:
    ws = load_workload(traces_dir / name)
    assert ws.format == "dirlab"
    assert len(ws) == 15_000 and ws.warnings == []
    assert Counter(w.final_status for w in ws) == counts
    assert len({w.user for w in ws}) == users
    assert ws[-1].submit == span
    assert all(w.end_at_fraction == 1.0 for w in ws)


def test_helios_cpu_only_jobs_become_batch_with_a_fixed_run_time(traces_dir: Path) -> None:
    ws = load_workload(traces_dir / "dirlab-helios-15k/helios_data_training.csv")
    cpu_only = [w for w in ws if w.total_gpus == 0]
    assert len(cpu_only) == 4_204
    assert all(w.klass == "batch" and w.run_time is not None and w.work_gpu_seconds is None for w in cpu_only)
    big = max(ws, key=lambda w: w.total_gpus)
    assert big.total_gpus == 160 and big.total_pods == 20


def test_dirlab_failed_job_stops_where_the_trace_stopped(write_csv: Callable[[str, str], Path]) -> None:
    path = write_csv("d.csv", DIRLAB_HEADER + "0,7,8,0,2,0,100,0,Pass\n1,7,8,0,2,30,50,0,Failed\n")
    first, second = read_workloads(path)
    assert (second.submit, second.final_status, second.stop_after, second.user) == (30.0, "failed", 50.0, "7")
    assert second.pod_sets == (PodSet("worker", 2, 4.0),)
    assert first.work_gpu_seconds == 800.0


POLLUX_BAD = [
    ("2017-13-01 00:00:00,10.0,1,10.0,vc", "timestamp"),
    ("2017-10-01 00:00:00,-1,1,-1,vc", "duration"),
    ("2017-10-01 00:00:00,10.0,1.5,15.0,vc", "num_gpus"),
    ("2017-10-01 00:00:00,10.0,2,10.0,vc", "gpu_time"),
    ("2017-10-01 00:00:00,10.0,1,10.0,", "cluster"),
    ("2017-10-01 00:00:00,10.0,1", "gpu_time"),
]


@pytest.mark.parametrize(("row", "column"), POLLUX_BAD)
def test_pollux_bad_row_warns_or_fails_with_line_and_column(
    write_csv: Callable[[str, str], Path], row: str, column: str
) -> None:
    path = write_csv("p.csv", POLLUX_HEADER + "2017-10-01 00:00:10,5.0,1,5.0,vc\n" + row + "\n")
    ws = load_workload(path)
    assert len(ws) == 1
    assert [(p.line, p.path) for p in ws.warnings] == [(3, column)]
    with pytest.raises(InputError) as info:
        load_workload(path, strict=True)
    assert [(p.line, p.path) for p in info.value.problems] == [(3, column)]


def test_pollux_submit_is_relative_to_the_earliest_row_even_when_unsorted(
    write_csv: Callable[[str, str], Path],
) -> None:
    path = write_csv(
        "p.csv", POLLUX_HEADER + "2017-10-01 01:00:00,5.0,1,5.0,b\n2017-10-01 00:00:00,5.0,2,10.0,a\n"
    )
    assert [(w.queue, w.submit) for w in read_workloads(path)] == [("b", 3600.0), ("a", 0.0)]


DIRLAB_BAD = [
    ("1,7,8,0,2,x,50,0,Pass", "interval"),
    ("1,7,8,0,2,5,50,0,Lost", "new_status"),
    ("1,7,2,0,4,5,50,0,Pass", "node_num"),
    ("1,7,2,0,0,5,50,0,Pass", "node_num"),
    ("1,7,2,0,1,5,0,0,Pass", "run_time"),
    ("1,,2,0,1,5,10,0,Pass", "user"),
]


@pytest.mark.parametrize(("row", "column"), DIRLAB_BAD)
def test_dirlab_bad_row_warns_or_fails_with_line_and_column(
    write_csv: Callable[[str, str], Path], row: str, column: str
) -> None:
    path = write_csv("d.csv", DIRLAB_HEADER + "0,7,8,0,2,0,100,0,Pass\n" + row + "\n2,7,1,0,1,10,5,0,Pass\n")
    ws = load_workload(path)
    assert [w.id for w in ws] == ["0", "2"]
    assert [(p.line, p.path) for p in ws.warnings] == [(3, column)]
    with pytest.raises(InputError) as info:
        load_workload(path, strict=True)
    assert [(p.line, p.path) for p in info.value.problems] == [(3, column)]
