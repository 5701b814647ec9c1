"""Trace rows that ask for more pods or GPUs than any cluster holds are bad rows (skipped with
their line, or an error with --strict) in every format, before the twin would allocate them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gpuplane.errors import InputError
from gpuplane.limits import limits
from gpuplane.traces import load_workload

GPUPLANE_HEADER = "id,class,submit_s,pod_sets,work_gpu_s,team\n"
POLLUX_HEADER = "timestamp,duration,num_gpus,gpu_time,cluster\n"
DIRLAB_HEADER = "u_id,user,gpu_num,cpu_num,node_num,interval,run_time,wall_time,new_status\n"


def rows(text: str, write: Callable[[str, str], Path]) -> tuple[int, list[str]]:
    loaded = load_workload(write("t.csv", text))
    return len(loaded), [f"{p.line}:{p.path}: {p.message}" for p in loaded.warnings]


def test_pods_and_gpus_per_gpuplane_row(write_csv: Callable[[str, str], Path]) -> None:
    pods, gpus = limits().pods_per_workload, limits().gpus_per_trace_row
    text = (
        GPUPLANE_HEADER
        + f"ok,training,0,worker:{gpus // 8}x8,3600,a\n"
        + f"pods,training,0,worker:{pods + 1}x0,3600,a\n"
        + f"gpus,training,0,a:{gpus // 8}x8;b:1x1,3600,a\n"
    )
    count, warnings = rows(text, write_csv)
    assert count == 1
    assert warnings == [
        f"3:pod_sets: {pods + 1} pods; a workload has at most {pods} (limits: pods_per_workload); row skipped",
        f"4:pod_sets: {gpus + 1} GPUs; a workload has at most {gpus} (limits: gpus_per_trace_row); row skipped",
    ]


def test_philly_and_dirlab_rows(write_csv: Callable[[str, str], Path]) -> None:
    gpus = limits().gpus_per_trace_row
    philly = POLLUX_HEADER + f"2017-10-03 14:00:00,10,{gpus + 1},{10 * (gpus + 1)},vc1\n"
    assert rows(philly, write_csv)[1] == [
        f"2:num_gpus: {gpus + 1} GPUs; a workload has at most {gpus} (limits: gpus_per_trace_row); row skipped"
    ]
    dirlab = DIRLAB_HEADER + f"j1,u1,{gpus + 8},8,{(gpus + 8) // 8},0,60,60,Pass\n"
    assert rows(dirlab, write_csv)[1] == [
        f"2:gpu_num: {gpus + 8} GPUs; a workload has at most {gpus} (limits: gpus_per_trace_row); row skipped"
    ]


def test_strict_makes_the_first_oversized_row_an_error(write_csv: Callable[[str, str], Path]) -> None:
    path = write_csv("t.csv", GPUPLANE_HEADER + "j,training,0,worker:1000000000x8,3600,a\n")
    with pytest.raises(InputError) as caught:
        load_workload(path, strict=True)
    assert str(caught.value) == (
        f"{path}:2: error: pod_sets: 1000000000 pods; a workload has at most 150000 (limits: pods_per_workload)"
    )
