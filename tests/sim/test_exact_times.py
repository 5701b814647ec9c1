"""Hand-checkable runs: exact admission, start and end times, lost work and restore time."""

from __future__ import annotations

from dataclasses import replace

from gpuplane.sim.config import NodeLoss, SimConfig
from gpuplane.sim.engine import Outcome
from gpuplane.sim.replay import simulate_objects
from gpuplane.sim.state import LOST, USEFUL
from gpuplane.traces import Checkpoint, PodSet, Workload

from .helpers import cluster_queue, flavor, local_queue, pool, team

NO_RANDOM = SimConfig(spot_evictions_per_node_hour=0.0, node_failures_per_node_hour=0.0)


def job(wid: str, submit: float, pods: int, hours: float, ckpt: Checkpoint | None = None) -> Workload:
    return Workload(
        id=wid,
        team="team-a",
        queue="team-a",
        klass="training",
        submit=submit,
        pod_sets=(PodSet("main", pods, 8.0),),
        work_gpu_seconds=pods * 8 * hours * 3600,
        checkpoint=ckpt,
    )


def two_nodes_three_gangs() -> tuple[list[Workload], SimConfig]:
    jobs = [
        job("j1", 0, 1, 2.0, Checkpoint(interval_s=1800, write_s=60, restore_s=120)),
        job("j2", 0, 1, 1.0),
        job("j3", 600, 2, 0.5),
    ]
    config = replace(
        NO_RANDOM,
        provisioning_delay_s=600,
        scale_down_unneeded_s=600,
        node_losses=(NodeLoss(4000, "gpu-0", "spot"),),
    )
    return jobs, config


def run(jobs: list[Workload], config: SimConfig) -> Outcome:
    objects = [flavor("gpu"), cluster_queue("team-a", {"gpu": {"nvidia.com/gpu": 16}}), local_queue("team-a")]
    return simulate_objects([pool(min_nodes=2, max_nodes=3)], [team("team-a")], objects, jobs, config)


def test_eviction_resumes_from_last_checkpoint_with_exact_times() -> None:
    jobs, config = two_nodes_three_gangs()
    out = run(jobs, config)
    j1, j2, j3 = out.runs
    # j2 runs alone on gpu-1 for one hour.
    assert (j2.first_start, j2.end) == (0.0, 3600.0)
    # j1: checkpoints at 1800 and 3600 of progress (60 s each); at t=4000 its node is evicted with
    # 280 s of progress since the last checkpoint. It restarts at once on the free node (quota kept),
    # restores for 120 s, runs the remaining 3600 s with one more checkpoint: ends at 4000+120+3600+60.
    assert j1.evictions == 1 and j1.runs == 2
    assert j1.end == 7780.0
    assert j1.lost_gs == (280 + 120) * 8
    # j3 needs both nodes' worth of quota: admitted when j1 releases its quota, on the free node and
    # the replacement node (ready at 4000 + 600).
    assert j3.first_admit == 7780.0 and j3.first_start == 7780.0 and j3.end == 7780.0 + 1800
    assert j3.quota_wait == 7780.0 - 600 and j3.capacity_wait == 0.0
    assert out.end == 9580.0


def test_ledger_splits_held_time_exactly() -> None:
    jobs, config = two_nodes_three_gangs()
    out = run(jobs, config)
    useful = sum(out.ledger.gs[0][0][USEFUL] for _ in [0])
    lost = out.ledger.gs[0][0][LOST]
    assert useful == sum(j.work_gpu_seconds or 0 for j in jobs)
    assert lost == (280 + 120) * 8
    held = sum(r.held_gs for r in out.runs)
    assert abs(held - sum(out.ledger.gs[0][0])) < 1e-6
    # checkpoint writes of j1: two before the eviction, one after (the one at 5400 of progress)
    assert out.ledger.gs[0][0][1] == 3 * 60 * 8


def test_without_eviction_job_finishes_with_all_checkpoint_writes() -> None:
    jobs, _config = two_nodes_three_gangs()
    quiet = replace(NO_RANDOM, provisioning_delay_s=600, scale_down_unneeded_s=600)
    out = run(jobs, quiet)
    j1, _j2, j3 = out.runs
    assert j1.end == 7200 + 3 * 60
    # j3 waits for quota until j1 ends (j2's end frees only 8 of the 16 GPUs it needs)
    assert j3.first_admit == 7380.0 and j3.end == 7380.0 + 1800
