"""Shared GPUs slow down: time-sliced pods share their GPU's time, MPS clients by their factor,
MIG slices not at all. Expected times are worked out by hand from rate(k) = 1 / (1 + s (k - 1))."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuplane.sim.config import SimConfig
from gpuplane.sim.contention import work_rate
from gpuplane.sim.engine import Outcome
from gpuplane.sim.replay import simulate_objects
from gpuplane.sim.state import IDLE, USEFUL
from gpuplane.traces import PodSet, Workload

from .helpers import cluster_queue, flavor, local_queue, pool, team

GPU = "nvidia.com/gpu"
QUIET = SimConfig(spot_evictions_per_node_hour=0.0, node_failures_per_node_hour=0.0)


def shared_job(wid: str, submit: float, seconds: float) -> Workload:
    """One pod asking for half a GPU (a replica of a shared GPU) for `seconds` of work."""
    return Workload(
        wid,
        "t",
        "t",
        "inference",
        submit,
        (PodSet("p", 1, 0.5),),
        run_time=None,
        work_gpu_seconds=0.5 * seconds,
    )


def run(jobs: list[Workload], sharing: str, config: SimConfig = QUIET) -> Outcome:
    # One node with one GPU split into 2 replicas: both jobs land on the same physical GPU.
    gpu = pool(gpus=1, per_gpu={GPU: 2}, min_nodes=1, max_nodes=1, sharing=sharing)
    objects = [flavor("gpu"), cluster_queue("t", {"gpu": {GPU: 2}}), local_queue("t")]
    return simulate_objects([gpu], [team("t")], objects, jobs, config)


def test_rate_is_one_over_one_plus_interference_per_extra_sharer() -> None:
    assert work_rate(1.0, 1) == 1.0 and work_rate(1.0, 4) == 0.25
    assert work_rate(0.5, 3) == 0.5 and work_rate(0.0, 7) == 1.0


def test_two_time_sliced_pods_on_one_gpu_each_run_at_half_speed() -> None:
    out = run([shared_job("a", 0.0, 3600.0), shared_job("b", 0.0, 3600.0)], "time-slicing")
    assert [r.end for r in out.runs] == [7200.0, 7200.0]


def test_a_sharer_arriving_late_slows_the_first_and_speeds_up_when_it_leaves() -> None:
    # a alone 0-1800 (1800 s done), both at 1/2 until a has its last 1800 s done at 5400;
    # b did 1800 s by then at half speed and does its last 1800 s alone: ends at 7200.
    out = run([shared_job("a", 0.0, 3600.0), shared_job("b", 1800.0, 3600.0)], "time-slicing")
    a, b = out.runs
    assert (a.end, b.end) == (5400.0, 7200.0)
    # a held half a GPU for 5400 s: 1800 GPU-s of work, the other 900 GPU-s waiting for its slice.
    assert a.held_gs == 2700.0
    assert out.ledger.gs[0][0][USEFUL] == 2 * 1800.0
    assert out.ledger.gs[0][0][IDLE] == pytest.approx(900.0 + 900.0)


def test_mps_clients_keep_their_speed_by_default_and_slow_by_the_configured_factor() -> None:
    jobs = [shared_job("a", 0.0, 3600.0), shared_job("b", 0.0, 3600.0)]
    assert [r.end for r in run(jobs, "mps").runs] == [3600.0, 3600.0]
    # s = 0.5: two busy clients run at 1 / 1.5 each: 3600 s of work take 5400 s.
    assert [r.end for r in run(jobs, "mps", replace(QUIET, mps_interference=0.5)).runs] == [5400.0, 5400.0]


def test_exclusive_and_mig_gpus_are_isolated() -> None:
    jobs = [shared_job("a", 0.0, 3600.0), shared_job("b", 0.0, 3600.0)]
    assert [r.end for r in run(jobs, "exclusive").runs] == [3600.0, 3600.0]
    assert [r.end for r in run(jobs, "mig").runs] == [3600.0, 3600.0]


def test_time_slicing_interference_zero_turns_contention_off() -> None:
    jobs = [shared_job("a", 0.0, 3600.0), shared_job("b", 0.0, 3600.0)]
    assert [r.end for r in run(jobs, "time-slicing", replace(QUIET, time_slicing_interference=0.0)).runs] == [
        3600.0,
        3600.0,
    ]
