"""The event loop of the twin: simulated time, a heap of events (sim/events.py), never a sleep.

All events at one instant are applied first, then the instant is settled once: scheduling cycles
(only if something admission cares about changed, repeated while they admit, preempt or set heads
aside), placement of admitted gangs (only in pools whose capacity or backlog changed),
autoscaling, and one metrics sample per changed pool. Nodes are the fleet's (sim/fleet.py); the
CPU-only pods of a workload (Ray heads, MPI launchers) go on the nodes of the CPU pool Kueue admitted
them to (sim/cpu_nodes.py), bound together with its GPU gang; work rates on shared GPUs come from
the contention model (sim/contention.py).

A preempted workload stops working at once and keeps its quota and GPUs for the preemption grace
(its pods terminating); then the admitter releases its quota and it queues again.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gpuplane.limits import limits
from gpuplane.sim.admitters import Admitter
from gpuplane.sim.cluster import Node
from gpuplane.sim.config import SimConfig
from gpuplane.sim.contention import SharedGpus
from gpuplane.sim.cpu_nodes import CpuNodes, CpuPod, CpuPool, cpu_pods
from gpuplane.sim.events import (
    CPU_READY,
    FINISH,
    INJECT,
    LOSS,
    READY,
    RELEASE,
    SCALE_DOWN,
    WINDOW_CLOSE,
    WINDOW_OPEN,
)
from gpuplane.sim.fleet import Fleet
from gpuplane.sim.kueue_admitter import KueueAdmitter
from gpuplane.sim.pools import PoolModel
from gpuplane.sim.requests import Ask, ask_for
from gpuplane.sim.runs import RunTable
from gpuplane.sim.series import Billing, PoolSeries
from gpuplane.sim.state import ADMITTED, QUEUED, REJECTED, RUNNING, TERMINATING, Ledger, Run
from gpuplane.traces import Workload
from gpuplane.vocab import GPU_RESOURCE


@dataclass(frozen=True, slots=True)
class Tick:
    """Where a run stands, for a progress line: simulated time, workloads submitted (of `total`),
    done (finished, failed or rejected) and waiting (submitted, holding no GPUs)."""

    now: float
    submitted: int
    total: int
    done: int
    waiting: int


#: Called now and then (every 64 instants, and every 256 cycles of a long instant) with a `Tick`.
Progress = Callable[[Tick], None]
_NEVER = float("inf")
_REJECT_REASONS = (
    "their team is not in the spec",
    "they request no GPU",
    "no pool their class may use offers their request on one node",
)


def _submission_order(workloads: Sequence[Workload]) -> Sequence[int]:
    """Indices of `workloads` by submit time, ties in list order (no list when already sorted)."""
    n = len(workloads)
    if all(workloads[i].submit <= workloads[i + 1].submit for i in range(n - 1)):
        return range(n)
    return sorted(range(n), key=lambda i: (workloads[i].submit, i))


def livelock_guard(workloads: int) -> int:
    """Scheduling cycles one instant may take before it counts as a livelock and is cut short.

    Every cycle that asks for another one admitted, preempted or set aside a workload. Without
    preemption each workload is admitted at most once and set aside at most once per instant, so
    an instant needs at most 2 x workloads + 1 cycles; the guard allows twice that and more, so it
    only ends instants that would never end (with a preemption grace of 0, preemptions can go
    round in circles: each victim's quota comes back at the same instant).
    """
    return 4 * workloads + 1024


@dataclass
class Outcome:
    """Everything a run produced; outputs and reports read only this."""

    pools: list[PoolModel]
    teams: list[str]
    runs: RunTable
    ledger: Ledger
    series: list[PoolSeries]
    billing: Billing
    end: float
    events: int = 0
    cycles: int = 0
    warnings: list[str] = field(default_factory=list)
    pending_reasons: dict[int, str] = field(default_factory=dict)
    #: Node-hours of each CPU pool (sim/cpu_nodes.py); {} when the platform has none.
    cpu_node_hours: dict[str, float] = field(default_factory=dict)


class Engine:
    """One simulation of workloads on a platform (build with `sim.replay.simulate`)."""

    def __init__(
        self,
        pools: list[PoolModel],
        teams: list[str],
        admitter: Admitter,
        config: SimConfig,
        shared_resource: str = GPU_RESOURCE,
        cpu_pools: Sequence[CpuPool] = (),
    ) -> None:
        self.pools = pools
        self.teams = teams
        self.team_index = {name: i for i, name in enumerate(teams)}
        self.admitter = admitter
        #: The built-in admitter, when it is the one: called directly (compiled), not through the
        #: `Admitter` protocol's generic method calls (one submit and finish per job, a call per cycle).
        self._kueue = admitter if isinstance(admitter, KueueAdmitter) else None
        self.config = config
        self.shared = shared_resource
        self.heap: list[tuple[float, int, int, int, float]] = []
        self._seq = 0
        self.fleet = Fleet(pools, config, self.push)
        self.cluster = self.fleet.cluster
        self.contention = SharedGpus([config.interference(p.sharing) for p in pools])
        self.live: dict[int, Run] = {}  # workloads not done yet, by index
        self.table = RunTable(0)  # results of the done ones (sized when the run starts)
        self.submitted = 0
        self.ledger = Ledger(len(teams), len(pools))
        self.series = [PoolSeries() for _ in pools]
        self.waiting: list[dict[int, None]] = [{} for _ in pools]  # admitted, not placed, per pool
        self.busy = [0.0] * len(pools)
        self.kueue_dirty = False
        self.place_dirty: set[int] = set()
        self.changed: set[int] = set()
        self.holding = 0  # workloads holding devices (running or terminating)
        self.releasing = 0  # preempted workloads whose pods are still going
        self.events = 0
        self.cycles = 0
        self.warnings: list[str] = []
        self._model_warned = 0
        self._livelocks = 0
        self._asks: dict[tuple[int, str, str | None], tuple[object, Ask]] = {}
        self.rejected = [0, 0, 0]  # unknown team, no GPU request, no pool can ever run it
        self.progress: Progress | None = None
        self.cpu_node_hours: dict[str, float] = {}
        self.total = 0
        #: Work rate of admitted TAS gangs (the admitter's `rates`, sim/topology.py); {} without TAS.
        self._topology_rates: dict[int, float] = getattr(admitter, "rates", {})
        #: CPU pools' nodes for CPU-only pod sets, and the CPU pool (the flavor Kueue gave them,
        #: the admitter's `cpu_assignment`) and pods of each admitted workload that has some.
        self.cpu = CpuNodes(
            cpu_pools,
            config.provisioning_delay_s,
            config.scale_down_unneeded_s,
            lambda time, node: self.push(time, CPU_READY, node),
        )
        self._cpu_assignment: dict[int, str] = getattr(admitter, "cpu_assignment", {})
        self._cpu_need: dict[int, tuple[int, list[CpuPod]]] = {}
        self._has_cpu = bool(self.cpu)  # the CPU pools are fixed for the run
        #: Each pool's price of a GPU-second (fixed for the run; read at every admission).
        self._gpu_second_price = [p.gpu_second_price for p in pools]
        self._gpus_per_node = [p.gpus_per_node for p in pools]

    # ---- event plumbing ------------------------------------------------------------------------
    def push(self, time: float, kind: int, a: int, b: float = 0.0) -> None:
        """Schedule an event; ties at one instant keep the order they were pushed in."""
        self._seq += 1
        heapq.heappush(self.heap, (time, self._seq, kind, a, b))

    def run(self, workloads: Sequence[Workload], progress: Progress | None = None) -> Outcome:
        """Replay `workloads` (any order; ties in submit time keep list order) until nothing can
        happen or the horizon."""
        order = _submission_order(workloads)
        self.progress, self.total = progress, len(workloads)
        self.table = RunTable(len(workloads))
        self.fleet.start()
        self.cpu.start()
        for pool in self.pools:
            self._sample(pool.index, 0.0)
        for i, loss in enumerate(self.config.node_losses):
            self.push(loss.time, INJECT, i)
        horizon = self.config.horizon_s
        cap = float(limits().simulated_time_s)
        heap, nxt, total, now, steps = self.heap, 0, len(order), 0.0, 0
        pop = heapq.heappop
        t_sub = workloads[order[0]].submit if total else _NEVER
        while True:
            t_evt = heap[0][0] if heap else _NEVER
            now = t_sub if t_sub < t_evt else t_evt
            if now == _NEVER or (horizon is not None and now > horizon):
                break
            if horizon is None and now > cap:  # the stated limit of simulated time (limits.yaml)
                self.warnings.append(
                    f"the run stopped at the simulated-time limit of {cap:,.0f} s (10 years; limits: "
                    "simulated_time_s): what still ran or waited then is reported unfinished"
                )
                now = cap
                break
            while t_sub == now:
                self._submit(workloads[order[nxt]], now)
                nxt += 1
                t_sub = workloads[order[nxt]].submit if nxt < total else _NEVER
            while heap and heap[0][0] == now:
                _, _, kind, a, b = pop(heap)
                self._event(kind, a, b, now)
            self._settle(now)
            steps += 1
            if progress is not None and steps % 64 == 0:
                progress(self.tick(now, total))
            if (
                horizon is None
                and nxt == total
                and not (
                    self.holding or self.releasing or self.fleet.provisioning or self.fleet.windows_pending
                )
            ):
                break  # nothing runs or is coming: what still waits would wait forever
        end = horizon if horizon is not None else now
        self._close(end)
        return Outcome(
            self.pools,
            self.teams,
            self.table,
            self.ledger,
            self.series,
            self.fleet.billing,
            end,
            self.events,
            self.cycles,
            self.warnings,
            self.admitter.pending_reasons(),
            self.cpu_node_hours,
        )

    def tick(self, now: float, total: int) -> Tick:
        """Where the run stands now."""
        live = len(self.live)
        return Tick(now, self.submitted, total, self.submitted - live, live - self.holding)

    def _event(self, kind: int, a: int, b: float, now: float) -> None:
        self.events += 1
        if kind == FINISH:
            run = self.live.get(a)
            if run is not None and run.state == RUNNING and run.gen == int(b):
                self._finish(run, now)
        elif kind == RELEASE:
            run = self.live.get(a)
            if run is not None and run.state == TERMINATING and run.gen == int(b):
                self._end_grace(run, now)
        elif kind == READY:
            pool = self.fleet.node_ready(a, now)
            self.place_dirty.add(pool)
            self.changed.add(pool)
        elif kind == LOSS:
            node = self.cluster.nodes.get(a)
            if node is not None:
                self._lose_node(node, now, "spot" if b else "failure")
        elif kind == SCALE_DOWN:
            self._scale_down(a, b, now)
        elif kind == CPU_READY:
            self.cpu.node_ready(a, now)
            self._cpu_dirty()
        elif kind == INJECT:
            loss = self.config.node_losses[a]
            found = self.cluster.node_by_name(loss.node)
            if found is not None:
                self._lose_node(found, now, loss.reason)
        elif kind == WINDOW_OPEN:  # sim.purchase: a capacity block's nodes arrive
            self.fleet.open_window(a, int(b), now)
            self.place_dirty.add(a)
            self.changed.add(a)
        elif kind == WINDOW_CLOSE:  # a block ends / a flex-start node's run is up: evicted like spot
            node = self.cluster.nodes.get(a)
            if node is not None:
                self._lose_node(node, now, "purchase-end")

    # ---- workloads -------------------------------------------------------------------------------
    def _submit(self, w: Workload, now: float) -> None:
        self.events += 1
        idx = self.submitted
        self.submitted += 1
        team = self.team_index.get(w.team, -1)
        shape = self._ask(w)
        run = Run(idx, w, team, shape)
        if shape.model_ignored:
            self._model_warned += 1
        if team < 0 or not shape.requests or not shape.pools:
            run.state, run.outcome = REJECTED, "rejected"
            self.rejected[0 if team < 0 else 1 if not shape.requests else 2] += 1
            self.table.store(run)
            return
        self.live[idx] = run
        kueue = self._kueue
        if kueue is not None:
            kueue.submit(idx, w, shape.requests, shape.pools, now)
        else:
            self.admitter.submit(idx, w, shape.requests, shape.pools, now)
        self.kueue_dirty = True

    def _ask(self, w: Workload) -> Ask:
        """The workload's `Ask`; workloads with the same pod sets, class and model share one.

        Readers share identical pod-set tuples between workloads, so the tuple's identity is a
        cheap first key (the tuple is kept in the value, so its id stays unique); equal tuples
        that are distinct objects just get their own entry.
        """
        key = (id(w.pod_sets), w.klass, w.gpu_model)
        hit = self._asks.get(key)
        if hit is None:
            hit = self._asks[key] = (w.pod_sets, ask_for(w, self.pools, self.shared))
        return hit[1]

    def _finish(self, run: Run, now: float) -> None:
        self._stop(run, now, finished=True)
        self._free(run, now)
        run.done(now)
        self.table.store(run)
        del self.live[run.idx]
        cpu_need = self._cpu_need
        if cpu_need and run.idx in cpu_need:  # (a dict's pop is a generic call when compiled)
            del cpu_need[run.idx]
        kueue = self._kueue
        if kueue is not None:
            kueue.finish(run.idx, now)
        else:
            self.admitter.finish(run.idx, now)
        self.kueue_dirty = True

    def _stop(self, run: Run, now: float, finished: bool) -> None:
        """End a running segment: book its GPU time; it no longer works (nor slows its GPU's sharers)."""
        run.stop_segment(now, self.ledger, finished=finished)
        self.busy[run.pool] -= run.gpu_eq
        if self.contention.shared(run.pool):
            self._rerate(self.contention.stop(run.idx), now)

    def _free(self, run: Run, now: float) -> None:
        """Give back every device the workload holds."""
        pool = run.pool
        self.holding -= 1
        for node in self.cluster.release(run.idx, now):
            self.fleet.node_emptied(node, now)
        self.place_dirty.add(pool)
        self.changed.add(pool)
        if run.idx in self.cpu.where:
            self.cpu.release(run.idx, now)
            self._cpu_dirty()

    def _cpu_dirty(self) -> None:
        """CPU capacity came free: every pool with admitted workloads waiting looks again."""
        for pool, waiting in enumerate(self.waiting):
            if waiting:
                self.place_dirty.add(pool)

    def _preempt(self, run: Run, now: float) -> None:
        """Admission took the workload's quota back: it stops working at once and queues again
        when its pods are gone, the preemption grace later (quota and GPUs stay taken until then)."""
        run.preemptions += 1
        if run.state == RUNNING:
            self._stop(run, now, finished=False)
            if run.w.klass == "inference":
                run.down_since = now
            run.seg_start = now  # GPUs held without working from here
            self.changed.add(run.pool)
        else:  # admitted, not placed: no GPUs, but Kueue still has to take the job back
            self.waiting[run.pool].pop(run.idx, None)
            run.capacity_wait += now - run.wait_since
        run.state, run.wait_since = TERMINATING, now
        self.releasing += 1
        grace = self.config.preemption_grace_s
        if grace > 0:
            self.push(now + grace, RELEASE, run.idx, float(run.gen))
        else:
            self._end_grace(run, now)

    def _end_grace(self, run: Run, now: float) -> None:
        """A preempted workload's pods are gone: its GPUs and quota are free, it queues again."""
        self.releasing -= 1
        if run.idx in self.cluster.allocs:
            run.hold(run.seg_start, now, self.ledger)
            self._free(run, now)
        run.gen += 1
        run.state = QUEUED
        self.admitter.release(run.idx, now)
        self.kueue_dirty = True

    def _lose_node(self, node: Node, now: float, reason: str) -> None:
        """Workloads on a lost node keep their quota and wait for capacity again."""
        for idx in self.fleet.lose(node, now, reason):
            run = self.live[idx]
            if run.state == TERMINATING:
                self._end_grace(run, now)
                continue
            self._stop(run, now, finished=False)
            self._free(run, now)
            if run.w.klass == "inference":
                run.down_since = now
            run.evictions += 1
            run.state, run.wait_since = ADMITTED, now
            self.waiting[run.pool][run.idx] = None
        self.fleet.keep_minimum(node.pool, now)
        self.place_dirty.add(node.pool)
        self.changed.add(node.pool)

    def _scale_down(self, node_id: int, since: float, now: float) -> None:
        node = self.cluster.nodes.get(node_id)
        if node is not None and self.fleet.scale_down(node_id, since, now, bool(self.waiting[node.pool])):
            self.changed.add(node.pool)

    def _rerate(self, affected: list[int], now: float) -> None:
        """Workloads whose GPUs got more or less crowded continue at their new rate."""
        for idx in affected:
            run = self.live[idx]
            rate = self.contention.rate(idx)
            if run.state == RUNNING and rate != run.rate:
                self.push(run.set_rate(now, rate), FINISH, idx, float(run.gen))

    # ---- settling one instant ------------------------------------------------------------------
    def _settle(self, now: float) -> None:
        if self.kueue_dirty:
            self._cycles(now)
        dirty = self.place_dirty
        if dirty:
            if len(dirty) > 1:
                for pool in sorted(dirty):
                    self._place_pool(pool, now)
            else:  # (placing adds no pool to `dirty`)
                self._place_pool(next(iter(dirty)), now)
            dirty.clear()
            if self._has_cpu:
                self.cpu.scale(now)
        changed = self.changed
        if changed:
            for pool in sorted(changed) if len(changed) > 1 else changed:
                self._sample(pool, now)
            changed.clear()

    def _cycles(self, now: float) -> None:
        """Scheduling cycles until one changes nothing that another cycle could build on."""
        rounds, guard, runs, kueue = 0, livelock_guard(self.submitted), self.live, self._kueue
        while self.kueue_dirty:
            rounds += 1
            if self.progress is not None and rounds % 256 == 0:
                self.progress(self.tick(now, self.total))
            if rounds > guard:
                self._livelocks += 1
                break
            self.kueue_dirty = False
            outcome = kueue.cycle(now) if kueue is not None else self.admitter.cycle(now)
            self.cycles += outcome.ran
            for victim in outcome.preempted:
                self._preempt(runs[victim], now)
            for wl, pools in outcome.admitted:
                self._admitted(runs[wl], pools[0], now)
            if outcome.more and (outcome.admitted or outcome.preempted or outcome.requeued):
                self.kueue_dirty = True
        self.kueue_dirty = False

    def _admitted(self, run: Run, pool: int, now: float) -> None:
        run.quota_wait += now - run.wait_since
        if run.first_admit is None:
            run.first_admit = now
        run.pool, run.state, run.wait_since = pool, ADMITTED, now
        run.gpu_eq = run.shape.gpu_eq(self.pools[pool])
        run.price = self._gpu_second_price[pool]
        self.waiting[pool][run.idx] = None
        self.place_dirty.add(pool)
        if self._has_cpu:
            self._cpu_need.pop(run.idx, None)
            cpu_pool = self.cpu.pool_of(self._cpu_assignment.get(run.idx, ""))
            if cpu_pool is not None:
                self._cpu_need[run.idx] = (cpu_pool, cpu_pods(run.w))

    def _place_pool(self, pool: int, now: float) -> None:
        waiting = self.waiting[pool]
        if not waiting:
            return
        cluster, placed, blocked = self.cluster, [], []
        free = cluster.pool_free[pool]
        kueue = self._kueue
        tolerations = kueue.tolerations(pool) if kueue is not None else self.admitter.tolerations(pool)
        model = self.pools[pool]
        cpu_need = self._cpu_need
        has_free = any(free.values())  # (only a placement below takes units)
        for idx in waiting:
            cpu_plan = None
            if cpu_need and idx in cpu_need:
                # CPU-only pods (a Ray head, an MPI launcher) go on their CPU pool's nodes; the
                # workload runs only when they and its GPU gang are all bound (sim/cpu_nodes.py)
                cpu_pool, pods = cpu_need[idx]
                cpu_plan = self.cpu.fits(cpu_pool, pods, now)
                if cpu_plan is None:
                    self.cpu.want(cpu_pool, pods)
                    run = self.live[idx]
                    if not has_free or not self._gpu_would_fit(idx, pool, run.pods, now):
                        blocked.append(idx)  # the GPU pool scales up at the same time
                    continue
            if not has_free:
                blocked.append(idx)
                continue
            run = self.live[idx]
            if not run.shape.tolerates(model, tolerations):
                continue
            if cluster.place(idx, pool, run.pods):
                if cpu_plan is not None:
                    self.cpu.bind(idx, cpu_plan)
                placed.append(idx)
                has_free = any(free.values())
            else:
                blocked.append(idx)
        for idx in placed:
            del waiting[idx]
            self._start(self.live[idx], pool, now)
        if placed:
            self.changed.add(pool)
        if blocked and self.fleet.autoscale(
            pool, [pod for idx in blocked for pod in self.live[idx].pods], now
        ):
            self.changed.add(pool)

    def _gpu_would_fit(self, idx: int, pool: int, pods: list[tuple[str, int]], now: float) -> bool:
        """Whether the gang fits the pool's ready nodes now (placed and taken back, leaving every
        node as it was)."""
        cluster = self.cluster
        prior = {n.id: n.empty_since for n in cluster.nodes.values() if n.pool == pool}
        if not cluster.place(idx, pool, pods):
            return False
        cluster.release(idx, now)
        for node_id, since in prior.items():
            cluster.nodes[node_id].empty_since = since
        return True

    def _start(self, run: Run, pool: int, now: float) -> None:
        rate = 1.0
        rates = self._topology_rates
        if rates:
            rate = rates.get(run.idx, 1.0)  # a TAS gang spanning a wide domain runs slower (sim/topology.py)
        if self.contention.shared(pool):
            self._rerate(self.contention.start(run.idx, pool, self.cluster.allocs[run.idx]), now)
            rate = self.contention.rate(run.idx)
        self.push(run.start_segment(now, rate), FINISH, run.idx, float(run.gen))
        self.busy[pool] += run.gpu_eq
        self.holding += 1

    def _sample(self, pool: int, now: float) -> None:
        cluster = self.cluster
        ready = cluster.ready_count[pool]
        provisioned = (ready + cluster.provisioning[pool]) * self._gpus_per_node[pool]
        self.series[pool].sample(now, ready, provisioned, cluster.used_gpus[pool], self.busy[pool])

    def _close(self, end: float) -> None:
        """Cut what still runs at the end, close waits, and bill nodes that are still up."""
        for run in self.live.values():
            if run.state == RUNNING:
                run.stop_segment(end, self.ledger, finished=False, horizon=True)
                run.outcome = "running"
            elif run.state == TERMINATING:
                if run.idx in self.cluster.allocs:
                    run.hold(run.seg_start, end, self.ledger)
                run.quota_wait += max(0.0, end - run.wait_since)
            elif run.state == QUEUED:
                run.quota_wait += max(0.0, end - run.wait_since)
            elif run.state == ADMITTED:
                run.capacity_wait += max(0.0, end - run.wait_since)
                run.outcome = "admitted"
            if run.down_since is not None:
                run.downtime += max(0.0, end - run.down_since)
            self.table.store(run)
        self.fleet.bill_all(end)
        if self.cpu:
            self.cpu_node_hours = self.cpu.bill_all(end)
        for pool in range(len(self.pools)):
            self._sample(pool, end)
        self._warn()

    def _warn(self) -> None:
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
