"""Figures of a run: accepted units per class, cost per unit, percentiles, GPU-hour accounting."""

from __future__ import annotations

import pytest

from gpuplane.costs import Overheads
from gpuplane.errors import UsageError
from gpuplane.sim.config import SimConfig, parse_units
from gpuplane.sim.metrics import percentile, summarize
from gpuplane.sim.replay import simulate_objects
from gpuplane.traces import PodSet, Workload

from .helpers import cluster_queue, flavor, local_queue, pool, team

GPU = "nvidia.com/gpu"


def run(config: SimConfig):  # type: ignore[no-untyped-def]
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
