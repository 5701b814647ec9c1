"""Purchased capacity in the twin, by hand event tables (issue 24, done means 2).

Config: no random losses, provisioning delay 600 s, scale-down after 600 s empty. Every job asks
one 8-GPU pod; checkpoints every 3600 s of progress, 0 s to write, 60 s to restore (the restore
counts as lost GPU time, as for spot evictions).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gpuplane.costs import PoolPrice
from gpuplane.purchase.mix import Commitment, FlexStart, PurchaseMix
from gpuplane.sim.admitters import TeamQueue
from gpuplane.sim.config import SimConfig
from gpuplane.sim.pools import PoolModel
from gpuplane.sim.replay import simulate_objects
from gpuplane.sim.state import LOST
from gpuplane.traces import Checkpoint, PodSet, Workload

from .helpers import cluster_queue, flavor, local_queue, pool, team

GPU = "nvidia.com/gpu"
QUIET = SimConfig(
    spot_evictions_per_node_hour=0.0,
    node_failures_per_node_hour=0.0,
    provisioning_delay_s=600.0,
    scale_down_unneeded_s=600.0,
)
CKPT = Checkpoint(3600.0, 0.0, 60.0)
DAY = 86400.0


def job(wid: str, submit: float, seconds: float) -> Workload:
    return Workload(
        id=wid,
        team="t",
        queue="q",
        klass="training",
        submit=submit,
        pod_sets=(PodSet("main", 1, 8.0),),
        work_gpu_seconds=8 * seconds,
        checkpoint=CKPT,
    )


def setup(
    mix: PurchaseMix, max_nodes: int = 2
) -> tuple[list[PoolModel], list[TeamQueue], list[dict[str, Any]]]:
    base = pool(max_nodes=max_nodes)
    priced = replace(base, price=PoolPrice("gpu", 8.0, 8.0, False, 8, "test", mix=mix))
    objects = [flavor("gpu"), cluster_queue("t", {"gpu": {GPU: 16}}), local_queue("t")]
    return [priced], [team("t")], objects


def block(start: float, end: float, count: int = 1) -> Commitment:
    return Commitment("capacity-block", count, 5.0, start=start, end=end, terminates=True)


def test_block_end_evicts_at_the_block_end_and_loses_work_since_the_last_checkpoint() -> None:
    # | t (s)   | event                                                                    |
    # | 0       | the block's node is ready                                                |
    # | 1800    | j1 (30 h of work) submitted, starts on the block node                    |
    # | 86400   | block ends: node terminated, j1 evicted at progress 84600 s; last        |
    # |         | checkpoint 82800 s (23 h): 1800 s x 8 GPUs lost; on-demand node asked    |
    # | 87000   | on-demand node ready; j1 restores 60 s (lost), resumes at 82800 s         |
    # | 112260  | j1 ends: 87060 + (108000 - 82800)                                        |
    pools, teams, objects = setup(PurchaseMix("gpu", (block(0.0, DAY),), burst=True))
    out = simulate_objects(pools, teams, objects, [job("j1", 1800.0, 30 * 3600.0)], QUIET)
    run = out.runs[0]
    assert run.first_start == 1800.0
    assert run.evictions == 1
    assert run.lost_gs == (1800 + 60) * 8
    assert out.ledger.gs[0][0][LOST] == (1800 + 60) * 8
    assert run.end == 87060.0 + (108000 - 82800)
    assert out.billing.nodes_created == [2]
    # a block end is neither a spot eviction nor a node failure
    assert out.billing.spot_evictions == [0] and out.billing.node_failures == [0]


def test_block_end_lost_work_follows_the_checkpoint_interval() -> None:
    # Same as above with a 7200 s checkpoint interval: progress 84600 s at the block end, last
    # checkpoint 79200 s (11 x 7200): 5400 s x 8 GPUs lost, plus the 60 s restore.
    pools, teams, objects = setup(PurchaseMix("gpu", (block(0.0, DAY),), burst=True))
    j = replace(job("j1", 1800.0, 30 * 3600.0), checkpoint=Checkpoint(7200.0, 0.0, 60.0))
    out = simulate_objects(pools, teams, objects, [j], QUIET)
    assert out.runs[0].lost_gs == (5400 + 60) * 8


def test_block_only_pool_has_no_nodes_outside_its_window() -> None:
    # | 0      | j1 submitted; no node: the block starts at 3600 and there is no burst      |
    # | 3600   | block node ready; j1 starts                                                |
    # | 90000  | block ends (24 h later): j1 evicted at progress 86400 (a checkpoint), no    |
    # |        | node to go back to: it never finishes                                      |
    pools, teams, objects = setup(PurchaseMix("gpu", (block(3600.0, 3600.0 + DAY),), burst=False))
    out = simulate_objects(
        pools, teams, objects, [job("j1", 0.0, 30 * 3600.0)], replace(QUIET, horizon_s=2 * DAY)
    )
    run = out.runs[0]
    assert run.first_start == 3600.0
    assert run.evictions == 1 and run.end is None
    assert out.billing.nodes_created == [1]
    assert out.billing.node_seconds == [DAY]
    series = out.series[0]
    assert list(series.t)[:3] == [0.0, 3600.0, 3600.0 + DAY]
    assert list(series.nodes)[:3] == [0, 1, 0]


def test_flex_start_nodes_arrive_after_the_delay_and_run_at_most_their_max() -> None:
    # flex-start: delay 7200 s, max run 37800 s (10.5 h), up to 1 node.
    # | 0      | j1 (20 h) submitted; flex node asked                                        |
    # | 7200   | node ready; j1 starts                                                       |
    # | 45000  | node's run is up: j1 evicted at progress 37800, checkpoint 36000: 1800 s lost |
    # |        | another flex node asked                                                     |
    # | 52200  | ready; restore 60 s; j1 ends at 52260 + 36000 = 88260 (before 52200 + 37800)  |
    flex = FlexStart(max_nodes=1, hourly=3.0, delay_s=7200.0, max_run_s=37800.0)
    pools, teams, objects = setup(PurchaseMix("gpu", (), flex=flex, burst=False), max_nodes=4)
    out = simulate_objects(pools, teams, objects, [job("j1", 0.0, 20 * 3600.0)], QUIET)
    run = out.runs[0]
    assert run.first_start == 7200.0
    assert run.evictions == 1 and run.lost_gs == (1800 + 60) * 8
    assert run.end == 88260.0
    assert max(out.series[0].nodes) == 1


def test_spec_blocks_are_timed_from_the_specs_earliest_block() -> None:
    from gpuplane.costs import pool_price
    from gpuplane.spec import parse_spec

    text = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: c1, provider: eks, region: us-east-1}
nodePools:
  - name: a
    accelerator: H100-80GB
    vmSize: p5.48xlarge
    maxNodes: 4
    purchase:
      - {option: capacity-block, count: 2, start: 2026-12-10T11:30:00Z, end: 2026-12-17T11:30:00Z, hourly: 30}
  - name: b
    accelerator: H100-80GB
    vmSize: p5.48xlarge
    maxNodes: 4
    purchase:
      - {option: reserved, count: 1, term: 1y, hourly: 40}
      - {option: capacity-block, count: 1, start: 2026-12-11T11:30:00Z, end: 2026-12-12T11:30:00Z, hourly: 31}
      - {option: on-demand}
"""
    spec, _ = parse_spec(text, "blocks.yaml", priced=True)
    a, b = (pool_price(spec, p).mix for p in spec.node_pools)
    assert a is not None and b is not None
    assert (a.commitments[0].start, a.commitments[0].end) == (0.0, 7 * DAY)
    reserved, blk = b.commitments
    assert (reserved.start, reserved.end, reserved.terminates) == (None, None, False)
    assert (blk.start, blk.end, blk.terminates) == (DAY, 2 * DAY, True)
    assert not a.burst and b.burst
