"""What happens at one instant: a burst is settled completely, ties keep file order, and the
nodes a pool starts with are ready (and billed) from t=0. Expected times are worked out by hand."""

from __future__ import annotations

from gpuplane.sim.config import SimConfig
from gpuplane.sim.engine import Outcome
from gpuplane.sim.replay import simulate_objects
from gpuplane.traces import PodSet, Workload

from .helpers import cluster_queue, flavor, local_queue, pool, team

GPU = "nvidia.com/gpu"
QUIET = SimConfig(spot_evictions_per_node_hour=0.0, node_failures_per_node_hour=0.0)


def one_gpu_job(i: int, submit: float = 0.0, hours: float = 1.0) -> Workload:
    return Workload(
        id=f"j{i}",
        team="t",
        queue="t",
        klass="training",
        submit=submit,
        pod_sets=(PodSet("main", 1, 1.0),),
        work_gpu_seconds=hours * 3600.0,
    )


def run(jobs: list[Workload], quota: int, nodes: int, config: SimConfig = QUIET) -> Outcome:
    objects = [flavor("gpu"), cluster_queue("t", {"gpu": {GPU: quota}}), local_queue("t")]
    return simulate_objects([pool(min_nodes=nodes, max_nodes=nodes)], [team("t")], objects, jobs, config)


def test_a_burst_of_2000_one_gpu_jobs_on_2048_free_gpus_all_start_at_zero() -> None:
    # One ClusterQueue admits one head per cycle, so this instant needs 2,000 admitting cycles.
    out = run([one_gpu_job(i) for i in range(2000)], quota=2048, nodes=256)
    assert [r.first_start for r in out.runs] == [0.0] * 2000
    assert all(r.end == 3600.0 for r in out.runs)
    assert not out.warnings


def test_workloads_submitted_at_one_instant_are_admitted_in_file_order() -> None:
    # Quota for one GPU: the twelve one-hour jobs run one after the other in file order
    # (j10 and j11 after j9, not after j1 as their names would sort as text).
    out = run([one_gpu_job(i) for i in range(12)], quota=1, nodes=1)
    assert [r.first_start for r in out.runs] == [i * 3600.0 for i in range(12)]


def test_the_nodes_a_pool_starts_with_are_ready_and_billed_from_time_zero() -> None:
    # minNodes 2: both nodes exist at t=0 (no provisioning delay), so a job submitted at 0 starts
    # at 0, and the pool bills 2 nodes x the whole window (the job's hour).
    config = SimConfig(
        spot_evictions_per_node_hour=0.0, node_failures_per_node_hour=0.0, provisioning_delay_s=900
    )
    out = run([one_gpu_job(0)], quota=8, nodes=2, config=config)
    [job] = out.runs
    assert (job.first_start, job.capacity_wait, job.end) == (0.0, 0.0, 3600.0)
    assert out.billing.node_seconds == [2 * 3600.0]
    assert out.billing.nodes_created == [2]
