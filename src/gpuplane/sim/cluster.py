"""Nodes of the simulated cluster and the device-level bookkeeping of what runs where.

Every physical GPU keeps its free units per resource (whole GPU, MIG slice, time-slicing/MPS
replica), so a GPU or slice can never be handed out twice: units only move between "free" and
one workload's allocation. A per-pool index of nodes bucketed by free units makes best-fit
placement cost O(units per node), not O(nodes).
"""

from __future__ import annotations

from bisect import insort

from gpuplane.sim.pools import PoolModel

#: One allocation: (node id, GPU index on the node, resource, units).
Alloc = tuple[int, int, str, int]


class Node:
    """One node: its free units per GPU and per resource, and the workloads on it."""

    __slots__ = (
        "created",
        "empty_since",
        "free",
        "gpu_avail",
        "gpu_free",
        "gpu_used",
        "id",
        "name",
        "pods",
        "pool",
        "ready",
        "zone",
    )

    def __init__(
        self, node_id: int, name: str, pool: PoolModel, zone: str, created: float, ready: float
    ) -> None:
        self.id = node_id
        self.name = name
        self.pool = pool.index
        self.zone = zone
        self.gpu_free: list[dict[str, int]] = [dict(pool.per_gpu) for _ in range(pool.gpus_per_node)]
        self.gpu_used: list[int] = [0] * pool.gpus_per_node  # allocations holding units of each GPU
        # Per resource, the GPUs (ascending) with free units of it: placement takes from the front.
        self.gpu_avail: dict[str, list[int]] = {
            res: list(range(pool.gpus_per_node)) for res, _ in pool.per_gpu
        }
        self.free: dict[str, int] = pool.per_node
        self.pods: dict[int, int] = {}  # workload index -> pods of it on this node
        self.created = created
        self.ready = ready
        self.empty_since: float | None = ready


class Cluster:
    """Ready nodes of every pool, indexed for best-fit placement of pods."""

    def __init__(self, pools: list[PoolModel]) -> None:
        self.pools = pools
        self.nodes: dict[int, Node] = {}
        self._next_id = 0
        self._serial = [0] * len(pools)
        self.ready_count = [0] * len(pools)
        self.provisioning = [0] * len(pools)
        self.pool_free: list[dict[str, int]] = [dict.fromkeys(p.per_node, 0) for p in pools]
        # _index[pool][resource][free units] -> nodes with exactly that many free (insertion-ordered)
        self._index: list[dict[str, list[dict[int, Node]]]] = [
            {res: [{} for _ in range(cap + 1)] for res, cap in p.per_node.items()} for p in pools
        ]
        self.allocs: dict[int, list[Alloc]] = {}
        self.used_gpus = [0] * len(pools)  # physical GPUs with at least one unit allocated

    # ---- nodes -------------------------------------------------------------------------------
    def new_node(self, pool: int, created: float, ready: float) -> Node:
        """A node of `pool` (not yet placeable): its name and zone are fixed now, round-robin."""
        model = self.pools[pool]
        serial = self._serial[pool]
        self._serial[pool] += 1
        zone = model.zones[serial % len(model.zones)]
        node = Node(self._next_id, f"{model.name}-{serial}", model, zone, created, ready)
        self._next_id += 1
        return node

    def add_ready(self, node: Node) -> None:
        """Make a node placeable."""
        self.nodes[node.id] = node
        self.ready_count[node.pool] += 1
        for res, units in node.free.items():
            self._index[node.pool][res][units][node.id] = node
            self.pool_free[node.pool][res] += units

    def remove(self, node_id: int) -> list[int]:
        """Take a node away (scale-down, eviction, failure); returns the workloads that had pods on it.

        Their allocations stay recorded until the caller releases them (the whole gang goes).
        """
        node = self.nodes.pop(node_id)
        self.ready_count[node.pool] -= 1
        for res, units in node.free.items():
            del self._index[node.pool][res][units][node.id]
            self.pool_free[node.pool][res] -= units
        node.free = {}
        self.used_gpus[node.pool] -= sum(1 for used in node.gpu_used if used)
        return sorted(node.pods)

    def node_by_name(self, name: str) -> Node | None:
        """A ready node by name."""
        return next((n for n in self.nodes.values() if n.name == name), None)

    def _move(self, node: Node, res: str, delta: int) -> None:
        bucket = self._index[node.pool][res]
        old = node.free[res]
        del bucket[old][node.id]
        node.free[res] = old + delta
        bucket[old + delta][node.id] = node
        self.pool_free[node.pool][res] += delta

    # ---- placement ---------------------------------------------------------------------------
    def place(self, wl: int, pool: int, pods: list[tuple[str, int]]) -> bool:
        """Place all pods of a gang on ready nodes of `pool`, best fit, or none of them."""
        if len(pods) == 1:  # one pod: nothing to undo
            res, units = pods[0]
            if self.pool_free[pool].get(res, 0) < units:
                return False
            node = self._best_fit(pool, res, units)
            if node is None:
                return False
            self.allocs[wl] = self._take(node, wl, res, units)
            return True
        need: dict[str, int] = {}
        for res, units in pods:
            need[res] = need.get(res, 0) + units
        free = self.pool_free[pool]
        if any(free.get(res, 0) < units for res, units in need.items()):
            return False
        done: list[Alloc] = []
        prior: dict[int, float | None] = {}
        for res, units in sorted(pods, key=lambda p: -p[1]):
            node = self._best_fit(pool, res, units)
            if node is None:
                self._undo(wl, done, prior)
                return False
            prior.setdefault(node.id, node.empty_since)
            done.extend(self._take(node, wl, res, units))
        self.allocs[wl] = done
        return True

    def _best_fit(self, pool: int, res: str, units: int) -> Node | None:
        buckets = self._index[pool].get(res)
        if buckets is None:
            return None
        for free in range(units, len(buckets)):
            for node in buckets[free].values():
                return node
        return None

    def _take(self, node: Node, wl: int, res: str, units: int) -> list[Alloc]:
        """Take `units` of `res` from the lowest-numbered GPUs of `node` that have some free."""
        out: list[Alloc] = []
        left = units
        avail, gpu_free, gpu_used = node.gpu_avail[res], node.gpu_free, node.gpu_used
        k = 0
        while left:
            gpu = avail[k]
            gfree = gpu_free[gpu]
            have = gfree[res]
            take = have if have < left else left
            gfree[res] = have - take
            if have == take:
                del avail[k]  # this GPU has none left: the next one moves to position k
            else:
                k += 1
            if not gpu_used[gpu]:
                self.used_gpus[node.pool] += 1
            gpu_used[gpu] += 1
            out.append((node.id, gpu, res, take))
            left -= take
        self._move(node, res, -units)
        node.pods[wl] = node.pods.get(wl, 0) + 1
        node.empty_since = None
        return out

    def _undo(self, wl: int, done: list[Alloc], prior: dict[int, float | None]) -> None:
        self.allocs[wl] = done
        self.release(wl, now=0.0)
        for node_id, since in prior.items():
            self.nodes[node_id].empty_since = since

    def release(self, wl: int, now: float) -> list[Node]:
        """Free every unit a workload holds; returns the nodes that became empty."""
        emptied: list[Node] = []
        allocs = self.allocs.get(wl)
        if allocs is None:
            return emptied
        del self.allocs[wl]  # (`get` and `del`: a dict's pop is a generic call when compiled)
        nodes = self.nodes
        # Units given back on one node and resource by consecutive allocations move the node in
        # the best-fit index once (the same end state: each move puts it last in its new bucket).
        moving: Node | None = None
        moving_res = ""
        moving_units = 0
        for node_id, gpu, res, units in allocs:
            node = nodes.get(node_id)
            if node is None:
                continue  # the node is gone with its devices
            gfree = node.gpu_free[gpu]
            if not gfree[res]:
                avail = node.gpu_avail[res]
                if not avail or avail[-1] < gpu:
                    avail.append(gpu)  # (where insort puts it, without the call)
                else:
                    insort(avail, gpu)
            gfree[res] += units
            used = node.gpu_used
            left = used[gpu] - 1
            used[gpu] = left
            if not left:
                self.used_gpus[node.pool] -= 1
            if node is moving and res == moving_res:
                moving_units += units
            else:
                if moving is not None:
                    self._move(moving, moving_res, moving_units)
                moving, moving_res, moving_units = node, res, units
            pods = node.pods
            if wl in pods:
                del pods[wl]
                if not pods:
                    node.empty_since = now
                    emptied.append(node)
        if moving is not None:
            self._move(moving, moving_res, moving_units)
        return emptied
