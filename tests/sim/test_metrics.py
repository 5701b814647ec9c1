"""Figures of a run: accepted units per class, cost per unit, percentiles, GPU-hour accounting."""

from __future__ import annotations

import pytest

from gpuplane.costs import Overheads
from gpuplane.errors import UsageError
from gpuplane.sim.config import SimConfig, parse_units
from gpuplane.sim.engine import Outcome
from gpuplane.sim.metrics import percentile, summarize
from gpuplane.sim.replay import simulate_objects
from gpuplane.traces import PodSet, Workload

from .helpers import cluster_queue, flavor, local_queue, pool, team

GPU = "nvidia.com/gpu"


def run(config: SimConfig) -> Outcome:
    jobs = [
        Workload(
            id="t",
            team="a",
            queue="q",
            klass="training",
            submit=0.0,
            pod_sets=(PodSet("m", 1, 8.0),),
            work_gpu_seconds=8 * 3600.0,
        ),
        Workload(
            id="s",
            team="a",
            queue="q",
            klass="inference",
            submit=0.0,
            pod_sets=(PodSet("m", 1, 8.0),),
            run_time=3600.0,
        ),
    ]
    objects = [flavor("gpu"), cluster_queue("a", {"gpu": {GPU: 16}}), local_queue("a")]
    return simulate_objects([pool(min_nodes=2, max_nodes=2, hourly=16.0)], [team("a")], objects, jobs, config)


def test_accepted_units_are_weighted_per_class_and_divide_the_total_cost() -> None:
    config = SimConfig(
        spot_evictions_per_node_hour=0,
        node_failures_per_node_hour=0,
        accepted_units=parse_units(["inference=0", "training=2"]),
    )
    figures = summarize(run(config), config, Overheads(support_monthly=730.0))
    assert figures.accepted_units == 2.0
    # two 8-GPU nodes at 16/h for the one-hour window, plus 1 h of a 730/month support contract
    assert figures.cost.total == pytest.approx(2 * 16.0 + 1.0)
    assert figures.cost_per_accepted_unit == pytest.approx((2 * 16.0 + 1.0) / 2)
    gpu = figures.pool("gpu").gpu_hours
    assert gpu.provisioned == 16.0 and gpu.useful == 16.0 and gpu.unallocated == 0.0
    assert figures.to_dict()["pools"]["gpu"]["gpu_hours"]["provisioned"] == 16.0


def test_unknown_class_in_unit_weights_is_refused() -> None:
    with pytest.raises(UsageError, match="--unit"):
        parse_units(["gpu=1"])


def test_percentile_is_nearest_rank() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 90) == 4.0
    assert percentile([], 50) == 0.0


def test_waits_so_far_count_the_workload_that_never_started() -> None:
    # one 8-GPU node, quota 8, three 1-hour 8-GPU jobs at t=0, a 1.5-hour window: `first` runs
    # 0-1 h, `second` from 1 h, `third` (batch) still waits at the end, 5400 s so far
    jobs = [
        Workload(
            id=wid,
            team="a",
            queue="q",
            klass="batch" if wid == "third" else "training",
            submit=0.0,
            pod_sets=(PodSet("m", 1, 8.0),),
            run_time=3600.0,
        )
        for wid in ("first", "second", "third")
    ]
    objects = [flavor("gpu"), cluster_queue("a", {"gpu": {GPU: 8}}), local_queue("a")]
    config = SimConfig(spot_evictions_per_node_hour=0, node_failures_per_node_hour=0, horizon_s=5400.0)
    out = simulate_objects([pool(gpus=8, min_nodes=1, max_nodes=1)], [team("a")], objects, jobs, config)
    figures = summarize(out, config)
    a = figures.team("a")
    assert (a.queue_wait.n, a.queue_wait.p90_s) == (2, 3600.0)  # started workloads only
    # nearest rank over [0, 3600, 5400]: p50 is the 2nd, p90 and p99 the 3rd
    so_far = a.wait_so_far
    assert (so_far.n, so_far.p50_s, so_far.p90_s, so_far.p99_s) == (3, 3600.0, 5400.0, 5400.0)
    assert figures.class_wait("training").p90_s == 3600.0
    assert (figures.class_wait("batch").n, figures.class_wait("batch").p50_s) == (1, 5400.0)
    assert figures.to_dict()["classes"]["batch"]["wait_so_far"]["p50_s"] == 5400.0
    with pytest.raises(KeyError):
        figures.class_wait("inference")
