"""The CPU pools' nodes in the twin: where the CPU-only pod sets of a workload (Ray heads and
submitters, MPI launchers, CPU Jobs) run, and the node-hours they cost.

Kueue admits a CPU-only pod set to the flavor whose quota it fits: render lists the CPU pools'
flavors first in every ClusterQueue (render/quotas.py `team_flavors`), so a CPU pool's. This
module places those pods on that pool's nodes, as kube-scheduler would once Kueue unsuspends the
job:

- a node offers the pool's `cpuPerNode` and `memoryGiBPerNode` (the spec, or the catalog's VM
  size); pods are packed best fit (the node with the least cpu left that still holds the pod);
- a workload's pods run only when all of them are bound: the twin places the CPU pods together
  with the workload's GPU gang (sim/engine.py), so a job whose head cannot be placed waits, as its
  workers would wait for the head on a cluster;
- pods that do not fit make the pool scale up (cluster-autoscaler: first-fit decreasing on empty
  nodes, nodes on their way count, within `maxNodes`); a new node is ready after the provisioning
  delay (the same `SimConfig.provisioning_delay_s` as GPU pools);
- a node above `minNodes` that has been empty for `scale_down_unneeded_s` is removed then;
- node-seconds are billed from the scale-up request to removal (or the end of the run), as for GPU
  pools (sim/fleet.py); `node_hours` feeds the cost model's `cpu_nodes` term (gpuplane/costs.py).

Not modelled: spot evictions and failures of CPU nodes, and a CPU pod set admitted to a GPU flavor
(no CPU pool in the spec): those pods are not placed and the run says so (sim/requests.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gpuplane.spec import PlatformSpec
from gpuplane.traces import Workload

#: Schedules a CPU node's readiness on the engine's heap: (time, node id).
Ready = Callable[[float, int], None]
#: A CPU pod's request: (cpu millicores, memory MiB).
CpuPod = tuple[int, int]


@dataclass(frozen=True)
class CpuPool:
    """One CPU pool as the twin sees it: what a node offers and how far the pool may scale."""

    name: str
    cpu_milli: int
    memory_mib: int
    min_nodes: int
    max_nodes: int


@dataclass
class CpuNode:
    """One CPU node: free capacity, the workloads with pods on it, when it was requested and since
    when it has been empty (None while it has pods)."""

    id: int
    pool: int
    created: float
    ready: float
    free_cpu: int
    free_mem: int
    pods: dict[int, list[CpuPod]]
    empty_since: float | None


def cpu_pools(spec: PlatformSpec) -> list[CpuPool]:
    """The spec's CPU pools that take work (those render gives a flavor), in spec order. A pool
    whose cpu or memory per node is unknown is left out (render gives its flavor no quota of that
    resource, so Kueue sends CPU pod sets elsewhere, and the twin's note names them)."""
    from gpuplane.render.quotas import cpu_pools as flavored

    out = []
    for p in flavored(spec):
        if not p.cpu_per_node or not p.memory_gib_per_node:
            continue
        out.append(
            CpuPool(
                p.name,
                round(p.cpu_per_node * 1000),
                round(p.memory_gib_per_node * 1024),
                p.min_nodes,
                p.max_nodes,
            )
        )
    return out


def cpu_pods(w: Workload) -> list[CpuPod]:
    """The pods of `w`'s CPU-only pod sets, each as (cpu millicores, memory MiB)."""
    return [
        (ps.cpu_milli, ps.memory_mib)
        for ps in w.pod_sets
        if ps.count > 0 and ps.gpus_per_pod <= 0 and not ps.mig_profile
        for _ in range(ps.count)
    ]


def _fits(pod: CpuPod, cpu: int, mem: int) -> bool:
    return pod[0] <= cpu and pod[1] <= mem


def nodes_needed(pool: CpuPool, pods: Sequence[CpuPod]) -> int:
    """Empty nodes of `pool` the pods need, first-fit decreasing (pods no node can hold are
    skipped: scaling up would not help them)."""
    bins: list[list[int]] = []
    for pod in sorted(pods, reverse=True):
        if not _fits(pod, pool.cpu_milli, pool.memory_mib):
            continue
        for b in bins:
            if _fits(pod, b[0], b[1]):
                b[0] -= pod[0]
                b[1] -= pod[1]
                break
        else:
            bins.append([pool.cpu_milli - pod[0], pool.memory_mib - pod[1]])
    return len(bins)


class CpuNodes:
    """Nodes of every CPU pool: ready, on their way, placed pods and billed node-seconds."""

    def __init__(self, pools: Sequence[CpuPool], delay_s: float, unneeded_s: float, ready: Ready) -> None:
        self.pools = list(pools)
        self.index = {p.name: i for i, p in enumerate(self.pools)}
        self.delay_s = delay_s
        self.unneeded_s = unneeded_s
        self._ready_cb = ready
        self.nodes: dict[int, CpuNode] = {}
        self.coming: dict[int, CpuNode] = {}
        self.where: dict[int, list[int]] = {}  # workload -> nodes holding its pods
        self.node_seconds = [0.0] * len(self.pools)
        self.nodes_created = [0] * len(self.pools)
        self._wanted: dict[int, list[CpuPod]] = {}
        self._next = 0

    def __bool__(self) -> bool:
        return bool(self.pools)

    # ---- nodes -------------------------------------------------------------------------------
    def start(self) -> None:
        """Every CPU pool's minNodes nodes, ready and billed from t=0."""
        for i, pool in enumerate(self.pools):
            for _ in range(pool.min_nodes):
                node = self._new(i, 0.0, 0.0)
                self.nodes[node.id] = node

    def _new(self, pool: int, created: float, ready: float) -> CpuNode:
        p = self.pools[pool]
        node = CpuNode(self._next, pool, created, ready, p.cpu_milli, p.memory_mib, {}, created)
        self._next += 1
        self.nodes_created[pool] += 1
        return node

    def node_ready(self, node_id: int, now: float) -> None:
        """A requested node is ready (empty since now)."""
        node = self.coming.pop(node_id)
        node.empty_since = now
        self.nodes[node.id] = node

    def _count(self, pool: int) -> tuple[int, int]:
        ready = sum(1 for n in self.nodes.values() if n.pool == pool)
        coming = sum(1 for n in self.coming.values() if n.pool == pool)
        return ready, coming

    def _shrink(self, now: float) -> None:
        """Remove the nodes that were empty for the unneeded time by `now` (oldest first), keeping
        every pool at minNodes; each is billed until the instant it went."""
        due = sorted(
            (n.empty_since + self.unneeded_s, n.id)
            for n in self.nodes.values()
            if n.empty_since is not None and n.empty_since + self.unneeded_s <= now
        )
        for at, node_id in due:
            node = self.nodes[node_id]
            if self._count(node.pool)[0] <= self.pools[node.pool].min_nodes:
                continue
            del self.nodes[node_id]
            self.node_seconds[node.pool] += at - node.created

    # ---- pods --------------------------------------------------------------------------------
    def pool_of(self, name: str) -> int | None:
        """The index of the CPU pool called `name` (a flavor's pool), or None."""
        return self.index.get(name)

    def fits(self, pool: int, pods: Sequence[CpuPod], now: float) -> list[tuple[int, CpuPod]] | None:
        """Where the pods would go on ready nodes of `pool` (best fit, largest first), or None."""
        self._shrink(now)
        free = {n.id: [n.free_cpu, n.free_mem] for n in self.nodes.values() if n.pool == pool}
        plan: list[tuple[int, CpuPod]] = []
        for pod in sorted(pods, reverse=True):
            room = [(f[0], f[1], nid) for nid, f in free.items() if _fits(pod, f[0], f[1])]
            if not room:
                return None
            best = min(room)
            free[best[2]][0] -= pod[0]
            free[best[2]][1] -= pod[1]
            plan.append((best[2], pod))
        return plan

    def bind(self, wl: int, plan: list[tuple[int, CpuPod]]) -> None:
        """Bind a workload's pods where `fits` said."""
        for node_id, pod in plan:
            node = self.nodes[node_id]
            node.free_cpu -= pod[0]
            node.free_mem -= pod[1]
            assert node.free_cpu >= 0 and node.free_mem >= 0, "a CPU node was overcommitted"
            node.pods.setdefault(wl, []).append(pod)
            node.empty_since = None
        self.where[wl] = sorted({node_id for node_id, _ in plan})

    def release(self, wl: int, now: float) -> None:
        """Free the workload's pods (it ended, was preempted or lost a GPU node)."""
        self._shrink(now)
        for node_id in self.where.pop(wl, []):
            node = self.nodes.get(node_id)
            if node is None:
                continue
            for cpu, mem in node.pods.pop(wl, []):
                node.free_cpu += cpu
                node.free_mem += mem
            if not node.pods:
                node.empty_since = now

    def want(self, pool: int, pods: Sequence[CpuPod]) -> None:
        """Pods that found no room: the pool scales up for them at the end of the instant."""
        self._wanted.setdefault(pool, []).extend(pods)

    def scale(self, now: float) -> None:
        """Request the nodes the pods wanted this instant need, beyond those on their way."""
        wanted, self._wanted = self._wanted, {}
        for pool, pods in sorted(wanted.items()):
            ready, coming = self._count(pool)
            room = self.pools[pool].max_nodes - ready - coming
            add = max(0, min(room, nodes_needed(self.pools[pool], pods) - coming))
            for _ in range(add):
                node = self._new(pool, now, now + self.delay_s)
                node.empty_since = None
                self.coming[node.id] = node
                self._ready_cb(node.ready, node.id)

    def bill_all(self, end: float) -> dict[str, float]:
        """Bill every node still up until `end`; node-hours per CPU pool."""
        self._shrink(end)
        for node in (*self.nodes.values(), *self.coming.values()):
            self.node_seconds[node.pool] += end - node.created
        self.nodes.clear()
        self.coming.clear()
        return {p.name: s / 3600.0 for p, s in zip(self.pools, self.node_seconds, strict=True)}
