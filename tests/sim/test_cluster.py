"""Device bookkeeping and placement: best fit, gangs all-or-none, MIG slices, replicas."""

from __future__ import annotations

from gpuplane.sim.cluster import Cluster
from gpuplane.sim.pools import PoolModel

from .helpers import pool

MIG = {"nvidia.com/mig-3g.40gb": 1, "nvidia.com/mig-2g.20gb": 1, "nvidia.com/mig-1g.10gb": 2}


def ready_cluster(model: PoolModel, nodes: int) -> Cluster:
    cluster = Cluster([model])
    for _ in range(nodes):
        cluster.add_ready(cluster.new_node(0, 0.0, 0.0))
    return cluster


def test_best_fit_prefers_the_fullest_node_that_fits() -> None:
    c = ready_cluster(pool(), 2)
    assert c.place(1, 0, [("nvidia.com/gpu", 6)])
    assert c.place(2, 0, [("nvidia.com/gpu", 2)])  # goes next to the 6, not on the empty node
    assert [n.free["nvidia.com/gpu"] for n in c.nodes.values()] == [0, 8]


def test_gang_is_placed_whole_or_not_at_all() -> None:
    c = ready_cluster(pool(), 2)
    assert c.place(1, 0, [("nvidia.com/gpu", 4)])
    # 8 + 8 cannot fit next to the 4-GPU pod: nothing of the gang may stay behind
    assert not c.place(2, 0, [("nvidia.com/gpu", 8), ("nvidia.com/gpu", 8)])
    assert c.pool_free[0]["nvidia.com/gpu"] == 12
    assert 2 not in c.allocs
    assert sorted(n.free["nvidia.com/gpu"] for n in c.nodes.values()) == [4, 8]


def test_mig_slices_follow_the_layout() -> None:
    c = ready_cluster(pool(gpus=1, per_gpu=MIG), 1)
    assert c.place(1, 0, [("nvidia.com/mig-1g.10gb", 1), ("nvidia.com/mig-1g.10gb", 1)])
    assert not c.place(2, 0, [("nvidia.com/mig-1g.10gb", 1)])  # both 1g slices are taken
    assert c.place(3, 0, [("nvidia.com/mig-3g.40gb", 1)])
    assert c.used_gpus[0] == 1


def test_time_slicing_replicas_share_one_gpu() -> None:
    c = ready_cluster(pool(gpus=1, per_gpu={"nvidia.com/gpu": 4}), 1)
    for wl in range(4):
        assert c.place(wl, 0, [("nvidia.com/gpu", 1)])
    assert not c.place(9, 0, [("nvidia.com/gpu", 1)])
    c.release(2, now=5.0)
    assert c.place(9, 0, [("nvidia.com/gpu", 1)])


def test_release_returns_units_and_reports_empty_nodes() -> None:
    c = ready_cluster(pool(), 1)
    assert c.place(1, 0, [("nvidia.com/gpu", 3)])
    emptied = c.release(1, now=42.0)
    assert [n.empty_since for n in emptied] == [42.0]
    node = next(iter(c.nodes.values()))
    assert node.free == {"nvidia.com/gpu": 8} and all(g == {"nvidia.com/gpu": 1} for g in node.gpu_free)
    assert c.used_gpus[0] == 0


def test_removed_node_takes_its_devices_away() -> None:
    c = ready_cluster(pool(), 2)
    assert c.place(1, 0, [("nvidia.com/gpu", 8), ("nvidia.com/gpu", 8)])
    first = next(iter(c.nodes))
    assert c.remove(first) == [1]
    c.release(1, now=1.0)
    assert c.pool_free[0]["nvidia.com/gpu"] == 8 and c.used_gpus[0] == 0
