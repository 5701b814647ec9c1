"""The nodes of a run over time: the ones a pool starts with, scale-up, readiness, scale-down,
spot evictions and failures, and the node-seconds that providers bill.

Each pool starts with its `minNodes` nodes ready at t=0 (no provisioning delay) and billed from
t=0; nodes added later are billed from the scale-up request. The fleet owns the `Cluster` (device
bookkeeping) and schedules its events through the engine's `push`; what happens to the workloads
on a lost node is the engine's business.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from gpuplane.sim.autoscaler import scale_up
from gpuplane.sim.cluster import Cluster, Node
from gpuplane.sim.config import SimConfig, default
from gpuplane.sim.events import LOSS, READY, SCALE_DOWN, WINDOW_CLOSE, WINDOW_OPEN
from gpuplane.sim.pools import PoolModel
from gpuplane.sim.purchase import autoscale_cap, flex_delay, flex_run, windows
from gpuplane.sim.series import Billing

Push = Callable[[float, int, int, float], None]


class Fleet:
    """Nodes of every pool: ready, on their way, and billed."""

    def __init__(self, pools: list[PoolModel], config: SimConfig, push: Push) -> None:
        self.pools = pools
        self.config = config
        self.push = push
        self.cluster = Cluster(pools)
        self.billing = Billing.empty(len(pools))
        self.provisioning: dict[int, Node] = {}
        self.rngs = [random.Random(f"{config.seed}:{p.name}") for p in pools]
        # A pool whose size can never exceed minNodes never scales down: no scale-down checks.
        self._can_shrink = [p.max_nodes > p.min_nodes for p in pools]
        self._scan_s = default("autoscaler_scan_s")
        # Purchased capacity (sim.purchase): block nodes by id, per-pool autoscaler caps.
        self.pinned: dict[int, int] = {}
        self.pinned_count = [0] * len(pools)
        self.windows_pending = 0
        self._caps = [autoscale_cap(p.price.mix, p.max_nodes) for p in pools]

    def start(self) -> None:
        """Every pool's minNodes nodes, ready and billed from t=0."""
        for pool in self.pools:
            for _ in range(pool.min_nodes):
                node = self.cluster.new_node(pool.index, 0.0, 0.0)
                self.billing.nodes_created[pool.index] += 1
                self._ready(node, 0.0)
        for pool in self.pools:
            for index, start, _end, _count in windows(pool.price.mix):
                self.windows_pending += 1
                self.push(max(start, 0.0), WINDOW_OPEN, pool.index, float(index))

    def open_window(self, pool: int, index: int, now: float) -> None:
        """A capacity block starts: its nodes are ready now and end with the block."""
        self.windows_pending -= 1
        mix = self.pools[pool].price.mix
        assert mix is not None
        block = mix.commitments[index]
        if block.end is not None and block.end <= now:
            return
        for _ in range(block.count):
            node = self.cluster.new_node(pool, now, now)
            self.billing.nodes_created[pool] += 1
            self.pinned[node.id] = pool
            self.pinned_count[pool] += 1
            self._ready(node, now)
            if block.end is not None:
                self.push(block.end, WINDOW_CLOSE, node.id, 0.0)

    def autoscale(self, pool: int, pods: list[tuple[str, int]], now: float) -> bool:
        """Request the nodes the unplaceable `pods` need (within maxNodes); True when some were."""
        model, cluster = self.pools[pool], self.cluster
        ready, coming = cluster.ready_count[pool], cluster.provisioning[pool]
        ready -= self.pinned_count[pool]
        cap = self._caps[pool]
        if ready + coming >= cap:
            return False
        add = scale_up(model.per_node, pods, ready, coming, cap)
        for _ in range(add):
            self.provision(pool, now)
        return add > 0

    def provision(self, pool: int, now: float) -> None:
        """Request one node; it becomes ready after the provisioning delay."""
        delay = flex_delay(self.pools[pool].price.mix, self.config.provisioning_delay_s)
        node = self.cluster.new_node(pool, now, now + delay)
        self.cluster.provisioning[pool] += 1
        self.billing.nodes_created[pool] += 1
        self.provisioning[node.id] = node
        self.push(node.ready, READY, node.id, 0.0)

    def keep_minimum(self, pool: int, now: float) -> None:
        """The autoscaler keeps a pool at its minNodes: a lost node below it is replaced."""
        cluster = self.cluster
        while cluster.ready_count[pool] + cluster.provisioning[pool] < self.pools[pool].min_nodes:
            self.provision(pool, now)

    def node_ready(self, node_id: int, now: float) -> int:
        """A requested node is ready; returns its pool."""
        node = self.provisioning.pop(node_id)
        self.cluster.provisioning[node.pool] -= 1
        self._ready(node, now)
        run = flex_run(self.pools[node.pool].price.mix)
        if run is not None:
            self.push(now + run, WINDOW_CLOSE, node.id, 0.0)
        return node.pool

    def _ready(self, node: Node, now: float) -> None:
        self.cluster.add_ready(node)
        node.empty_since = now
        self.node_emptied(node, now)
        self._draw_loss(node, now)

    def node_emptied(self, node: Node, now: float) -> None:
        """A node has no pods since `now`: look at it again after the unneeded time."""
        if self._can_shrink[node.pool]:
            self.push(now + self.config.scale_down_unneeded_s, SCALE_DOWN, node.id, now)

    def _draw_loss(self, node: Node, now: float) -> None:
        model = self.pools[node.pool]
        spot = self.config.spot_evictions_per_node_hour if model.spot else 0.0
        rate = spot + self.config.node_failures_per_node_hour
        if rate <= 0:
            return
        rng = self.rngs[node.pool]
        delay = rng.expovariate(rate / 3600.0)
        is_spot = rng.random() < spot / rate
        self.push(now + delay, LOSS, node.id, 1.0 if is_spot else 0.0)

    def scale_down(self, node_id: int, since: float, now: float, pods_pending: bool) -> bool:
        """Remove a node empty since `since` if it is still unneeded; True when it was removed.

        With pods pending for its pool the node is not unneeded (kube-scheduler would bind them
        to it): it is looked at again after another unneeded period, and no sooner than the
        autoscaler's next scan (`autoscaler_scan_s`; an unneeded time of 0 once re-checked the node
        at the same instant without end).
        """
        node = self.cluster.nodes.get(node_id)
        if node is None or node.empty_since != since or node.pods or node_id in self.pinned:
            return False
        if self.cluster.ready_count[node.pool] <= self.pools[node.pool].min_nodes:
            return False
        if pods_pending:
            again = max(self.config.scale_down_unneeded_s, self._scan_s)
            self.push(now + again, SCALE_DOWN, node_id, since)
            return False
        self.cluster.remove(node_id)
        self.billing.nodes_removed[node.pool] += 1
        self._bill(node, now)
        return True

    def lose(self, node: Node, now: float, reason: str) -> list[int]:
        """A node is evicted (`spot`) or fails; returns the workloads that had pods on it."""
        hit = self.cluster.remove(node.id)
        if reason == "spot":
            self.billing.spot_evictions[node.pool] += 1
        elif reason == "failure":
            self.billing.node_failures[node.pool] += 1
        if self.pinned.pop(node.id, None) is not None:
            self.pinned_count[node.pool] -= 1
        self._bill(node, now)
        return hit

    def _bill(self, node: Node, now: float) -> None:
        self.billing.node_seconds[node.pool] += now - node.created

    def bill_all(self, end: float) -> None:
        """Bill every node still up (ready or on its way) until `end`."""
        for node in self.cluster.nodes.values():
            self._bill(node, end)
        for node in self.provisioning.values():
            self._bill(node, end)
