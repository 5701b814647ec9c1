"""Cluster-autoscaler decisions and their timing in the twin."""

from __future__ import annotations

from gpuplane.sim.autoscaler import nodes_needed, scale_up
from gpuplane.sim.config import SimConfig
from gpuplane.sim.replay import simulate_objects
from gpuplane.traces import PodSet, Workload

from .helpers import cluster_queue, flavor, local_queue, pool, team

GPU = "nvidia.com/gpu"


def test_pods_are_packed_first_fit_decreasing() -> None:
    assert nodes_needed({GPU: 8}, [(GPU, 4), (GPU, 8), (GPU, 4), (GPU, 2)]) == 3
    assert nodes_needed({GPU: 8}, [(GPU, 16)]) == 0  # never fits a node: no scale-up helps


def test_scale_up_counts_nodes_on_their_way_and_stops_at_max() -> None:
    assert scale_up({GPU: 8}, [(GPU, 8)] * 3, ready=0, provisioning=1, max_nodes=10) == 2
    assert scale_up({GPU: 8}, [(GPU, 8)] * 5, ready=2, provisioning=0, max_nodes=4) == 2


def test_scale_from_zero_waits_for_provisioning_and_scales_down_after_unneeded_time() -> None:
    w = Workload(
        id="j",
        team="t",
        queue="t",
        klass="training",
        submit=100.0,
        pod_sets=(PodSet("main", 2, 8.0),),
        work_gpu_seconds=16 * 3600.0,
    )
    objects = [flavor("gpu"), cluster_queue("t", {"gpu": {GPU: 16}}), local_queue("t")]
    config = SimConfig(
        provisioning_delay_s=420,
        scale_down_unneeded_s=600,
        spot_evictions_per_node_hour=0,
        node_failures_per_node_hour=0,
        horizon_s=10_000,
    )
    out = simulate_objects([pool(min_nodes=0, max_nodes=4)], [team("t")], objects, [w], config)
    run = out.runs[0]
    assert run.first_admit == 100.0 and run.first_start == 520.0 and run.end == 520.0 + 3600
    assert run.capacity_wait == 420.0 and run.quota_wait == 0.0
    s = out.series[0]
    assert list(s.t) == [0.0, 100.0, 520.0, 4120.0, 4720.0]
    assert list(s.nodes) == [0, 0, 2, 2, 0]  # ready nodes
    assert list(s.provisioned) == [0, 16, 16, 16, 0]  # billed GPUs (provisioning included)
    assert list(s.allocated) == [0, 0, 16, 0, 0]
    assert out.billing.nodes_created == [2] and out.billing.nodes_removed == [2]
    # two nodes billed from the scale-up request (100) to removal (end + 600)
    assert out.billing.node_seconds[0] == 2 * (4120.0 + 600 - 100)
