"""Job life in the twin: trace failures, Kueue preemption, spot evictions, services, determinism."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gpuplane.sim.admitters import TeamQueue
from gpuplane.sim.config import NodeLoss, SimConfig
from gpuplane.sim.output import workloads_csv
from gpuplane.sim.pools import PoolModel
from gpuplane.sim.replay import simulate_objects
from gpuplane.sim.state import FAILED, LOST, USEFUL
from gpuplane.traces import Checkpoint, FinalStatus, PodSet, Workload

from .helpers import cluster_queue, flavor, local_queue, pool, team

GPU = "nvidia.com/gpu"
QUIET = SimConfig(
    spot_evictions_per_node_hour=0.0,
    node_failures_per_node_hour=0.0,
    provisioning_delay_s=600.0,
    scale_down_unneeded_s=600.0,
)


def wl(
    wid: str,
    submit: float,
    gpus: int,
    seconds: float,
    *,
    team: str = "t",
    priority: int = 0,
    checkpoint: Checkpoint | None = None,
    final_status: FinalStatus = "completed",
    end_at_fraction: float = 1.0,
) -> Workload:
    return Workload(
        id=wid,
        team=team,
        queue="q",
        klass="training",
        submit=submit,
        pod_sets=(PodSet("main", 1, float(gpus)),),
        work_gpu_seconds=gpus * seconds,
        priority=priority,
        checkpoint=checkpoint,
        final_status=final_status,
        end_at_fraction=end_at_fraction,
    )


def one_team(
    quota: int = 8, *, min_nodes: int = 0, max_nodes: int = 2, spot: bool = False
) -> tuple[list[PoolModel], list[TeamQueue], list[dict[str, Any]]]:
    objects = [
        flavor("gpu"),
        cluster_queue("t", {"gpu": {GPU: quota}}, preemption={"withinClusterQueue": "LowerPriority"}),
        local_queue("t"),
    ]
    return [pool(min_nodes=min_nodes, max_nodes=max_nodes, spot=spot)], [team("t")], objects


def test_failed_trace_job_stops_at_the_same_point_and_counts_as_failed() -> None:
    pools, teams, objects = one_team(min_nodes=1, max_nodes=1)
    job = wl("f", 0.0, 4, 1000.0, final_status="failed", end_at_fraction=0.25)
    out = simulate_objects(pools, teams, objects, [job], QUIET)
    run = out.runs[0]
    assert run.end == 250.0 and run.outcome == "failed"
    assert out.ledger.gs[0][0][FAILED] == 4 * 250.0 and out.ledger.gs[0][0][USEFUL] == 0.0


def test_a_preempted_victim_holds_its_gpus_for_the_grace_then_resumes_from_its_checkpoint() -> None:
    pools, teams, objects = one_team(min_nodes=1, max_nodes=1)
    low = wl("low", 0.0, 8, 7200.0, priority=10, checkpoint=Checkpoint(1800, 0, 60))
    high = wl("high", 2000.0, 8, 1000.0, priority=100)
    out = simulate_objects(pools, teams, objects, [low, high], replace(QUIET, preemption_grace_s=30.0))
    lo, hi = out.runs
    # high preempts low at 2000; low stops working then (1800 s saved, 200 s lost) but its pods
    # terminate for 30 s, holding quota and GPUs: high is admitted and starts at 2030.
    assert lo.preemptions == 1 and hi.first_admit == 2030.0 and hi.first_start == 2030.0
    assert hi.quota_wait == 30.0 and hi.end == 3030.0
    # low waits for quota until high ends, restores for 60 s and runs the remaining 5400 s.
    assert lo.end == 3030.0 + 60 + (7200 - 1800)
    assert lo.lost_gs == (200 + 30 + 60) * 8
    assert out.ledger.gs[0][0][LOST] == (200 + 30 + 60) * 8
    assert out.ledger.gs[0][0][USEFUL] == 8 * (7200 + 1000)
    held = sum(r.held_gs for r in out.runs)
    assert held == sum(out.ledger.gs[0][0])


def test_higher_priority_preempts_and_the_victim_resumes_from_its_checkpoint() -> None:
    pools, teams, objects = one_team(min_nodes=1, max_nodes=1)
    low = wl("low", 0.0, 8, 7200.0, priority=10, checkpoint=Checkpoint(1800, 0, 60))
    high = wl("high", 2000.0, 8, 1000.0, priority=100)
    out = simulate_objects(pools, teams, objects, [low, high], replace(QUIET, preemption_grace_s=0.0))
    lo, hi = out.runs
    assert lo.preemptions == 1 and hi.first_start == 2000.0 and hi.end == 3000.0
    # low kept 1800 s of progress and lost 200 s; back at 3000 it restores for 60 s (counted as
    # lost GPU time too) and runs the remaining 5400 s
    assert lo.lost_gs == (200 + 60) * 8
    assert lo.end == 3000.0 + 60 + (7200 - 1800)
    assert out.ledger.gs[0][0][LOST] == (200 + 60) * 8
    assert out.ledger.gs[0][0][USEFUL] == 8 * (7200 + 1000)


def test_service_on_a_lost_node_loses_availability_not_work() -> None:
    pools, teams, objects = one_team(min_nodes=1, max_nodes=1)
    svc = Workload(
        id="s",
        team="t",
        queue="q",
        klass="inference",
        submit=0.0,
        pod_sets=(PodSet("server", 1, 1.0),),
        run_time=10_000.0,
    )
    config = replace(QUIET, node_losses=(NodeLoss(3000.0, "gpu-0", "spot"),))
    out = simulate_objects(pools, teams, objects, [svc], config)
    run = out.runs[0]
    # the replacement node is ready 600 s later; the service resumes where it stopped
    assert run.downtime == 600.0 and run.end == 10_600.0 and run.lost_gs == 0.0
    assert out.billing.spot_evictions == [1]


def test_same_seed_gives_identical_output_and_another_seed_differs() -> None:
    pools, teams, objects = one_team(quota=64, min_nodes=0, max_nodes=8, spot=True)
    jobs = [wl(f"j{i}", i * 300.0, 8, 20_000.0, checkpoint=Checkpoint(1800, 30, 60)) for i in range(30)]

    def csv_for(seed: int) -> str:
        config = SimConfig(seed=seed, spot_evictions_per_node_hour=0.05, node_failures_per_node_hour=0.0)
        out = simulate_objects(pools, teams, objects, jobs, config)
        return workloads_csv(out)

    assert csv_for(3) == csv_for(3)
    assert csv_for(3) != csv_for(4)


def test_workload_of_unknown_team_or_without_gpus_is_rejected_not_simulated() -> None:
    pools, teams, objects = one_team()
    stranger = wl("x", 0.0, 1, 10.0, team="nobody")
    cpu = Workload(
        id="c",
        team="t",
        queue="q",
        klass="batch",
        submit=0.0,
        pod_sets=(PodSet("cpu", 1, 0.0),),
        run_time=5.0,
    )
    out = simulate_objects(pools, teams, objects, [stranger, cpu], QUIET)
    assert [r.outcome for r in out.runs] == ["rejected", "rejected"]
