"""The event loop of the twin: simulated time, a heap of events, never a sleep.

All events at one instant are applied first, then the instant is settled once: scheduling cycles
(only if something Kueue cares about changed, repeated while they admit), placement of admitted
gangs (only in pools whose capacity or backlog changed), autoscaling, and one metrics sample.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gpuplane.sim.admitters import Admitter
from gpuplane.sim.autoscaler import scale_up
from gpuplane.sim.cluster import Cluster, Node
from gpuplane.sim.config import SimConfig
from gpuplane.sim.pools import PoolModel
from gpuplane.sim.requests import PodRequest, allowed_pods, model_ignored, pods_for_placement, tolerated
from gpuplane.sim.series import Billing, PoolSeries
from gpuplane.sim.state import ADMITTED, DONE, QUEUED, REJECTED, RUNNING, Ledger, Run
from gpuplane.traces import Workload

FINISH, READY, LOSS, SCALE_DOWN, INJECT = range(5)
#: Called now and then with (simulated time, share of workloads submitted so far).
Progress = Callable[[float, float], None]
_NEVER = float("inf")


def livelock_guard(workloads: int) -> int:
    """Scheduling cycles one instant may take before it counts as a livelock and is cut short.

    Every cycle that asks for another one admitted, preempted or set aside a workload. Without
    preemption each workload is admitted at most once and set aside at most once per instant, so
    a run needs at most 2 x workloads + 1 cycles; the guard allows twice that and more, so it only
    ends instants that would never end (preemptions going round in circles).
    """
    return 4 * workloads + 1024


_REJECT_REASONS = (
    "their team is not in the spec",
    "they request no GPU",
    "no pool their class may use offers their request on one node",
)


@dataclass
class Outcome:
    """Everything a run produced; outputs and reports read only this."""

    pools: list[PoolModel]
    teams: list[str]
    runs: list[Run]
    ledger: Ledger
    series: list[PoolSeries]
    billing: Billing
    end: float
    events: int = 0
    cycles: int = 0
    warnings: list[str] = field(default_factory=list)
    pending_reasons: dict[int, str] = field(default_factory=dict)


class Engine:
    """One simulation of workloads on a platform (build with `sim.replay.simulate`)."""

    def __init__(
        self,
        pools: list[PoolModel],
        teams: list[str],
        admitter: Admitter,
        config: SimConfig,
        shared_resource: str = "nvidia.com/gpu",
    ) -> None:
        self.pools = pools
        self.teams = teams
        self.team_index = {name: i for i, name in enumerate(teams)}
        self.admitter = admitter
        self.config = config
        self.shared = shared_resource
        self.cluster = Cluster(pools)
        self.heap: list[tuple[float, int, int, int, float]] = []
        self._seq = 0
        self.runs: list[Run] = []
        self.ledger = Ledger(len(teams), len(pools))
        self.series = [PoolSeries() for _ in pools]
        self.billing = Billing.empty(len(pools))
        self.rngs = [random.Random(f"{config.seed}:{p.name}") for p in pools]
        self.waiting: list[dict[int, None]] = [{} for _ in pools]  # admitted, not placed, per pool
        self.provisioning: dict[int, Node] = {}
        self.busy = [0.0] * len(pools)
        self.kueue_dirty = False
        self.place_dirty: set[int] = set()
        self.changed: set[int] = set()
        self.running = 0
        self.events = 0
        self.cycles = 0
        self.warnings: list[str] = []
        self._model_warned = 0
        self._livelocks = 0
        self._shapes: dict[
            tuple[object, ...], tuple[tuple[PodRequest, ...], tuple[int, ...], list[tuple[str, int]]]
        ] = {}
        self.rejected = [0, 0, 0]  # unknown team, no GPU request, no pool can ever run it

    # ---- event plumbing ------------------------------------------------------------------------
    def push(self, time: float, kind: int, a: int, b: float = 0.0) -> None:
        """Schedule an event; ties at one instant keep the order they were pushed in."""
        self._seq += 1
        heapq.heappush(self.heap, (time, self._seq, kind, a, b))

    def run(self, workloads: Sequence[Workload], progress: Progress | None = None) -> Outcome:
        """Replay `workloads` (any order) until nothing can happen or the horizon."""
        order = sorted(range(len(workloads)), key=lambda i: (workloads[i].submit, i))
        self._start_cluster()
        for i, loss in enumerate(self.config.node_losses):
            self.push(loss.time, INJECT, i)
        horizon = self.config.horizon_s
        heap, nxt, total, now, steps = self.heap, 0, len(order), 0.0, 0
        while True:
            t_sub = workloads[order[nxt]].submit if nxt < total else _NEVER
            t_evt = heap[0][0] if heap else _NEVER
            if t_sub == _NEVER and t_evt == _NEVER:
                break
            now = min(t_sub, t_evt)
            if horizon is not None and now > horizon:
                break
            while nxt < total and workloads[order[nxt]].submit == now:
                self._submit(workloads[order[nxt]], now)
                nxt += 1
            while heap and heap[0][0] == now:
                _, _, kind, a, b = heapq.heappop(heap)
                self._event(kind, a, b, now)
            self._settle(now)
            steps += 1
            if progress is not None and steps % 2048 == 0:
                progress(now, nxt / total)
            if horizon is None and nxt == total and not self.running and not self.provisioning:
                break  # nothing runs or is coming: what still waits would wait forever
        end = horizon if horizon is not None else now
        self._close(end)
        return Outcome(
            self.pools,
            self.teams,
            self.runs,
            self.ledger,
            self.series,
            self.billing,
            end,
            self.events,
            self.cycles,
            self.warnings,
            self.admitter.pending_reasons(),
        )

    def _event(self, kind: int, a: int, b: float, now: float) -> None:
        self.events += 1
        if kind == FINISH:
            run = self.runs[a]
            if run.state == RUNNING and run.gen == int(b):
                self._finish(run, now)
        elif kind == READY:
            self._node_ready(a, now)
        elif kind == LOSS:
            node = self.cluster.nodes.get(a)
            if node is not None:
                self._lose_node(node, now, "spot" if b else "failure")
        elif kind == SCALE_DOWN:
            self._maybe_scale_down(a, b, now)
        elif kind == INJECT:
            loss = self.config.node_losses[a]
            found = self.cluster.node_by_name(loss.node)
            if found is not None:
                self._lose_node(found, now, loss.reason)

    # ---- workloads -------------------------------------------------------------------------------
    def _submit(self, w: Workload, now: float) -> None:
        self.events += 1
        idx = len(self.runs)
        team = self.team_index.get(w.team, -1)
        requests, pools, pods = self._shape(w)
        run = Run(idx, w, team, requests, pools, pods)
        self.runs.append(run)
        if model_ignored(w, self.pools):
            self._model_warned += 1
        if team < 0 or not requests or not pools:
            run.state, run.outcome = REJECTED, "rejected"
            self.rejected[0 if team < 0 else 1 if not requests else 2] += 1
            return
        self.admitter.submit(idx, w, requests, pools, now)
        self.kueue_dirty = True

    def _shape(self, w: Workload) -> tuple[tuple[PodRequest, ...], tuple[int, ...], list[tuple[str, int]]]:
        """Requests, allowed pools and pod list of a workload; equal shapes share one (read-only) copy."""
        key = (w.pod_sets, w.klass, w.gpu_model)
        shape = self._shapes.get(key)
        if shape is None:
            requests, pools = allowed_pods(w, self.pools, self.shared)
            shape = (requests, pools, pods_for_placement(requests))
            self._shapes[key] = shape
        return shape

    def _finish(self, run: Run, now: float) -> None:
        run.stop_segment(now, self.ledger, finished=True)
        run.state, run.end = DONE, now
        run.outcome = run.w.final_status
        self._release(run, now)
        self.admitter.finish(run.idx, now)
        self.kueue_dirty = True

    def _release(self, run: Run, now: float) -> None:
        pool = run.pool
        self.busy[pool] -= run.gpu_eq
        self.running -= 1
        for node in self.cluster.release(run.idx, now):
            self.push(now + self.config.scale_down_unneeded_s, SCALE_DOWN, node.id, now)
        self.place_dirty.add(pool)
        self.changed.add(pool)

    def _interrupt(self, run: Run, now: float, preempted: bool) -> None:
        """Stop a running or waiting gang: book lost work, free its devices."""
        if run.state == RUNNING:
            run.stop_segment(now, self.ledger, finished=False)
            self._release(run, now)
            if run.w.klass == "inference":
                run.down_since = now
        elif run.state == ADMITTED:
            self.waiting[run.pool].pop(run.idx, None)
            run.capacity_wait += now - run.wait_since
        if preempted:
            run.preemptions += 1
            run.state, run.wait_since = QUEUED, now
        else:
            run.evictions += 1
            run.state, run.wait_since = ADMITTED, now
            self.waiting[run.pool][run.idx] = None
            self.place_dirty.add(run.pool)

    # ---- settling one instant ------------------------------------------------------------------
    def _settle(self, now: float) -> None:
        rounds, guard = 0, livelock_guard(len(self.runs))
        while self.kueue_dirty:
            rounds += 1
            if rounds > guard:
                self._livelocks += 1
                break
            self.kueue_dirty = False
            outcome = self.admitter.cycle(now)
            self.cycles += outcome.ran
            for victim in outcome.preempted:
                self._interrupt(self.runs[victim], now, preempted=True)
            for wl, pools in outcome.admitted:
                self._admitted(self.runs[wl], pools[0], now)
            if outcome.admitted or outcome.preempted or outcome.requeued:
                self.kueue_dirty = True
        self.kueue_dirty = False
        for pool in sorted(self.place_dirty):
            self._place_pool(pool, now)
        self.place_dirty.clear()
        for pool in sorted(self.changed):
            self._sample(pool, now)
        self.changed.clear()

    def _admitted(self, run: Run, pool: int, now: float) -> None:
        run.quota_wait += now - run.wait_since
        if run.first_admit is None:
            run.first_admit = now
        model = self.pools[pool]
        run.pool, run.state, run.wait_since = pool, ADMITTED, now
        run.gpu_eq = sum(r.count * r.units * model.fraction(r.resource) for r in run.requests)
        run.price = model.gpu_second_price
        self.waiting[pool][run.idx] = None
        self.place_dirty.add(pool)

    def _place_pool(self, pool: int, now: float) -> None:
        waiting = self.waiting[pool]
        if not waiting:
            return
        cluster, placed, blocked = self.cluster, [], []
        free = cluster.pool_free[pool]
        tolerations = self.admitter.tolerations(pool)
        for idx in waiting:
            if not any(free.values()):
                blocked.append(idx)
                continue
            run = self.runs[idx]
            if not tolerated(self.pools[pool], tolerations, {r.resource for r in run.requests}):
                continue
            if cluster.place(idx, pool, run.pods):
                placed.append(idx)
            else:
                blocked.append(idx)
        for idx in placed:
            del waiting[idx]
            run = self.runs[idx]
            finish = run.start_segment(now)
            self.busy[pool] += run.gpu_eq
            self.running += 1
            self.push(finish, FINISH, idx, float(run.gen))
        if placed:
            self.changed.add(pool)
        if blocked:
            self._autoscale(pool, blocked, now)

    # ---- nodes and the autoscaler --------------------------------------------------------------
    def _start_cluster(self) -> None:
        for pool in self.pools:
            for _ in range(pool.min_nodes):
                node = self.cluster.new_node(pool.index, 0.0, 0.0)
                self.billing.nodes_created[pool.index] += 1
                self._node_ready_now(node, 0.0)
            self._sample(pool.index, 0.0)

    def _autoscale(self, pool: int, blocked: list[int], now: float) -> None:
        model, cluster = self.pools[pool], self.cluster
        if cluster.ready_count[pool] + cluster.provisioning[pool] >= model.max_nodes:
            return
        pods = [pod for idx in blocked for pod in self.runs[idx].pods]
        add = scale_up(
            model.per_node, pods, cluster.ready_count[pool], cluster.provisioning[pool], model.max_nodes
        )
        for _ in range(add):
            self._provision(pool, now)

    def _keep_minimum(self, pool: int, now: float) -> None:
        """The autoscaler keeps a pool at its minNodes: a lost node below it is replaced."""
        cluster = self.cluster
        while cluster.ready_count[pool] + cluster.provisioning[pool] < self.pools[pool].min_nodes:
            self._provision(pool, now)

    def _provision(self, pool: int, now: float) -> None:
        node = self.cluster.new_node(pool, now, now + self.config.provisioning_delay_s)
        self.cluster.provisioning[pool] += 1
        self.billing.nodes_created[pool] += 1
        self.provisioning[node.id] = node
        self.push(node.ready, READY, node.id)
        self.changed.add(pool)

    def _node_ready(self, node_id: int, now: float) -> None:
        node = self.provisioning.pop(node_id)
        self.cluster.provisioning[node.pool] -= 1
        self._node_ready_now(node, now)

    def _node_ready_now(self, node: Node, now: float) -> None:
        self.cluster.add_ready(node)
        node.empty_since = now
        self.push(now + self.config.scale_down_unneeded_s, SCALE_DOWN, node.id, now)
        self._draw_loss(node, now)
        self.place_dirty.add(node.pool)
        self.changed.add(node.pool)

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

    def _maybe_scale_down(self, node_id: int, since: float, now: float) -> None:
        node = self.cluster.nodes.get(node_id)
        if node is None or node.empty_since != since or node.pods:
            return
        if self.cluster.ready_count[node.pool] <= self.pools[node.pool].min_nodes:
            return
        if self.waiting[node.pool]:
            # Pods are pending for this pool: the node is not unneeded (kube-scheduler would bind
            # them to it); look again after another unneeded period.
            self.push(now + self.config.scale_down_unneeded_s, SCALE_DOWN, node_id, since)
            return
        self.cluster.remove(node_id)
        self.billing.nodes_removed[node.pool] += 1
        self._bill(node, now)
        self.changed.add(node.pool)

    def _lose_node(self, node: Node, now: float, reason: str) -> None:
        hit = self.cluster.remove(node.id)
        if reason == "spot":
            self.billing.spot_evictions[node.pool] += 1
        else:
            self.billing.node_failures[node.pool] += 1
        self._bill(node, now)
        for idx in hit:
            self._interrupt(self.runs[idx], now, preempted=False)
        self._keep_minimum(node.pool, now)
        self.place_dirty.add(node.pool)
        self.changed.add(node.pool)

    def _bill(self, node: Node, now: float) -> None:
        self.billing.node_seconds[node.pool] += now - node.created

    def _sample(self, pool: int, now: float) -> None:
        model, cluster = self.pools[pool], self.cluster
        ready = cluster.ready_count[pool]
        provisioned = (ready + cluster.provisioning[pool]) * model.gpus_per_node
        self.series[pool].sample(now, ready, provisioned, cluster.used_gpus[pool], self.busy[pool])

    def _close(self, end: float) -> None:
        """Cut what still runs at the end, close waits, and bill nodes that are still up."""
        for run in self.runs:
            if run.state == RUNNING:
                run.stop_segment(end, self.ledger, finished=False, horizon=True)
                run.outcome = "running"
            elif run.state == QUEUED:
                run.quota_wait += max(0.0, end - run.wait_since)
            elif run.state == ADMITTED:
                run.capacity_wait += max(0.0, end - run.wait_since)
                run.outcome = "admitted"
            if run.down_since is not None:
                run.downtime += max(0.0, end - run.down_since)
        for node in self.cluster.nodes.values():
            self._bill(node, end)
        for node in self.provisioning.values():
            self._bill(node, end)
        for pool in range(len(self.pools)):
            self._sample(pool, end)
        for count, why in zip(self.rejected, _REJECT_REASONS, strict=True):
            if count:
                self.warnings.append(f"{count} workloads not simulated: {why}")
        if self._livelocks:
            self.warnings.append(
                f"{self._livelocks} instants kept preempting and admitting without end (a livelock); "
                "their scheduling cycles were stopped and the rest waited for the next event"
            )
        if self._model_warned:
            self.warnings.append(
                f"{self._model_warned} workloads name GPU models no pool offers; their constraint was ignored"
            )
