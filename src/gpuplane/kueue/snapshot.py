"""The mutable scheduling state: quota tree, queues and workloads, driven cycle after cycle.

Despite its name, `Snapshot` is not Kueue's per-cycle snapshot (`pkg/cache/scheduler` copies the
cache at the start of each cycle and throws the copy away). It is what Kueue keeps between
cycles: the cache (`pkg/cache`: ClusterQueues, cohorts, flavors, admitted workloads and their
usage in the quota tree) together with the queue manager (`pkg/queue`: each ClusterQueue's heap
and inadmissible set). A cycle changes it in place and undoes its own simulated changes, so no
copy is needed. `Snapshot.from_objects` builds it from parsed objects; the simulator then calls
`add_workload`, `finish`, `evict` and `release_preempted` between `schedule_cycle` calls. Usage
is kept incrementally in the quota tree (see `resource_node.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.candidate_lists import SortedCandidates, SubtreeScan
from gpuplane.kueue.objects import (
    FR,
    Admission,
    ClusterQueue,
    Cohort,
    FairSharingConfig,
    LabelSelector,
    LocalQueue,
    Namespace,
    ResourceFlavor,
    ResourceGroup,
    Workload,
)
from gpuplane.kueue.queues import HEAP, INADMISSIBLE, ClusterQueueQueue, PendingQueue
from gpuplane.kueue.shape_queue import ShapeQueue

#: The pending-queue class of new snapshots. `ShapeQueue` parks and wakes a shape group at once;
#: `ClusterQueueQueue` (Kueue's one-by-one requeue) is the reference the differential tests
#: compare it with (`use_reference_queues`).
QUEUE_CLASS: type[ShapeQueue] | type[ClusterQueueQueue] = ShapeQueue


def use_reference_queues(on: bool) -> None:
    """Build later snapshots with the reference queues (`on`) or the shape-grouped ones."""
    global QUEUE_CLASS
    QUEUE_CLASS = ClusterQueueQueue if on else ShapeQueue


@dataclass
class CQState:
    """One ClusterQueue: its spec, quota node, queue, admitted workloads and activity."""

    spec: ClusterQueue
    node: rn.Node
    queue: PendingQueue
    workloads: dict[str, Workload] = field(default_factory=dict)
    inactive: str | None = None
    group_of: dict[str, ResourceGroup] = field(default_factory=dict)
    generation: int = 0
    wver: int = 0
    evicted: dict[str, Workload] = field(default_factory=dict)
    cand_cache: dict[frozenset[FR], SortedCandidates] = field(default_factory=dict)
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.spec.name

    def mark_evicted(self, wl: Workload) -> None:
        """Record that an admitted workload was told to leave (it keeps its quota for now)."""
        wl.evicted = True
        self.evicted[wl.key] = wl


class LazyText:
    """A text formatted only when read (`Snapshot.reason`): a head's reason, kept as the figures
    it quotes, since most are replaced by the next cycle's before anything reads them (issue 23)."""

    def text(self) -> str:
        """The text, formatted now."""
        raise NotImplementedError


@dataclass(init=False)
class ScanState:
    """Flavor scan progress of a workload (FlavorFungibilityPreserveScanProgress).

    (Its own `__init__`: the compiled twin runs it natively; see `results`' docstring.)"""

    last_tried: dict[tuple[int, str], int]
    generation: int

    def __init__(self, last_tried: dict[tuple[int, str], int], generation: int) -> None:
        self.last_tried = last_tried
        self.generation = generation


class Snapshot:
    """Everything the scheduler reads and changes between cycles (Kueue's cache and queue manager,
    not its per-cycle snapshot). Build with `from_objects`."""

    def __init__(self, fair_sharing: FairSharingConfig | None = None) -> None:
        self.flavors: dict[str, ResourceFlavor] = {}
        self.cqs: dict[str, CQState] = {}
        self.cohorts: dict[str, rn.Node] = {}
        self.local_queues: dict[tuple[str, str], LocalQueue] = {}
        self.namespaces: dict[str, Namespace] | None = None
        self.workloads: dict[str, Workload] = {}
        self.usage_of: dict[str, dict[FR, int]] = {}
        self.unqueued: dict[str, str] = {}
        #: Why each head that was not admitted waits, as its last cycle found it (read: `reason`).
        self.reasons: dict[str, str | LazyText] = {}
        self.scan: dict[str, ScanState] = {}
        self.fair_sharing = fair_sharing
        self.notes: list[str] = []
        self.now = 0.0
        self.cycle = 0
        #: ClusterQueues whose heap is not empty (kept by their queues).
        self.active: set[str] = set()
        #: ClusterQueues with workloads set aside as inadmissible (kept by their queues).
        self.parked: set[str] = set()
        #: Per ClusterQueue, the root of its cohort tree (itself without a cohort; the tree is
        #: fixed once built): a release of quota wakes the parked queues of that tree.
        self._root_of: dict[str, rn.Node] = {}
        #: ClusterQueue names in name order, without the inactive ones (the order of a cycle's heads).
        self.head_order: list[str] = []
        #: Admitted workloads whose ClusterQueue is unknown (kept in `workloads`, charged nowhere).
        self._unplaced: dict[str, Workload] = {}
        #: Topology-aware scheduling state (`gpuplane.kueue.tas.state.TASState`), None without TAS.
        self.tas: Any = None
        #: Classical preemption's above-nominal ClusterQueues per (cohort, skipped child, frs)
        #: (`candidates.borrowing_cqs`; each entry checks the usage versions it read).
        self.subtree_scans: dict[tuple[rn.Node, rn.Node | None, frozenset[FR]], SubtreeScan] = {}

    def reason(self, key: str) -> str | None:
        """Why a head that was not admitted waits (its last cycle's words), or None."""
        found = self.reasons.get(key)
        if found is None or isinstance(found, str):
            return found
        text = found.text()
        self.reasons[key] = text
        return text

    # ----------------------------------------------------------------- building
    @classmethod
    def from_objects(
        cls,
        objects: Iterable[object],
        fair_sharing: bool | FairSharingConfig | None = None,
    ) -> Snapshot:
        """Build a snapshot from parsed Kueue objects (flavors, queues, cohorts, workloads...).

        `fair_sharing=True` turns fair sharing on with default strategies; a
        `FairSharingConfig` among the objects does the same unless `fair_sharing=False`.
        """
        objs = list(objects)
        config = next((o for o in objs if isinstance(o, FairSharingConfig)), None)
        if fair_sharing is True:
            config = config or FairSharingConfig()
        elif isinstance(fair_sharing, FairSharingConfig):
            config = fair_sharing
        elif fair_sharing is False:
            config = None
        snap = cls(config if config is not None and config.enable else None)
        cqs = sorted((o for o in objs if isinstance(o, ClusterQueue)), key=lambda c: c.name)
        cohorts = sorted((o for o in objs if isinstance(o, Cohort)), key=lambda c: c.name)
        for obj in objs:
            if isinstance(obj, ResourceFlavor):
                snap.flavors[obj.name] = obj
            elif isinstance(obj, LocalQueue):
                snap.local_queues[(obj.namespace, obj.name)] = obj
            elif isinstance(obj, Namespace):
                if snap.namespaces is None:
                    snap.namespaces = {}
                snap.namespaces[obj.name] = obj
        snap._build_tree(cqs, cohorts)
        if snap.namespaces is None and any(c.namespace_selector != LabelSelector() for c in cqs):
            snap.notes.append(
                "no Namespace objects in the input: ClusterQueue namespaceSelectors are not checked"
            )
        workloads = sorted((o for o in objs if isinstance(o, Workload)), key=lambda w: w.key)
        for wl in workloads:
            if wl.admission is not None:
                snap.add_workload(wl)
        for wl in workloads:
            if wl.admission is None:
                snap.add_workload(wl)
        return snap

    def _build_tree(self, cqs: list[ClusterQueue], cohorts: list[Cohort]) -> None:
        for cohort in cohorts:
            node = rn.Node(cohort.name, is_cq=False, weight=cohort.fair_weight)
            node.set_quotas(cohort.resource_groups)
            self.cohorts[cohort.name] = node
        parents = {c.name: c.parent for c in cohorts if c.parent}
        for cq in cqs:
            if cq.cohort and cq.cohort not in self.cohorts:
                self.cohorts[cq.cohort] = rn.Node(cq.cohort, is_cq=False)
        cyclic = {name for name in parents if _in_cycle(name, parents)}
        for child, parent in sorted(parents.items()):
            if child in cyclic:
                continue  # a cohort tree with a cycle is disabled; keep it unlinked
            if parent not in self.cohorts:
                self.cohorts[parent] = rn.Node(parent, is_cq=False)
            node, pnode = self.cohorts[child], self.cohorts[parent]
            node.parent = pnode
            pnode.child_cohorts.append(node)
        for cq in cqs:
            node = rn.Node(cq.name, is_cq=True, weight=cq.fair_weight)
            node.set_quotas(cq.resource_groups)
            state = CQState(cq, node, QUEUE_CLASS(cq.queueing_strategy, cq.name, self.active, self.parked))
            for group in cq.resource_groups:
                for res in group.covered_resources:
                    state.group_of.setdefault(res, group)  # first group wins, as RGByResource
            if cq.cohort:
                node.parent = self.cohorts[cq.cohort]
                node.parent.child_cqs.append(node)
            self.cqs[cq.name] = state
        for node in self.cohorts.values():
            if node.parent is None:
                rn.compute_quotas(node)
        for state in self.cqs.values():
            if state.node.parent is None:
                rn.compute_quotas(state.node)
            state.inactive = self._inactive_reason(state, cyclic)
        for state in self.cqs.values():
            self._root_of[state.name] = state.node.root()
        self.head_order = sorted(name for name, state in self.cqs.items() if state.inactive is None)

    def _inactive_reason(self, state: CQState, cyclic: set[str]) -> str | None:
        spec = state.spec
        if spec.stop_policy not in ("", "None"):
            return f"ClusterQueue {spec.name} is stopped (stopPolicy {spec.stop_policy})"
        missing = sorted(
            {fq.name for g in spec.resource_groups for fq in g.flavors if fq.name not in self.flavors}
        )
        if missing:
            return f"ClusterQueue {spec.name} is inactive: flavor(s) {', '.join(missing)} not found"
        if spec.cohort and spec.cohort in cyclic:
            return f"ClusterQueue {spec.name} is inactive: cohort {spec.cohort} is part of a cycle"
        return None

    # ----------------------------------------------------------------- lookups
    def has_heads(self) -> bool:
        """Whether a scheduling cycle would find a head: some active ClusterQueue's heap is not empty.

        Without heads a cycle changes nothing (every pending workload is set aside as inadmissible
        or waits in a queue that is stopped or inactive), so a caller may skip it.
        """
        cqs = self.cqs
        return any(cqs[name].inactive is None for name in self.active)

    def cq_for(self, wl: Workload) -> tuple[str | None, str | None]:
        """(ClusterQueue name, problem): resolve the workload's LocalQueue."""
        if wl.admission is not None:
            return wl.admission.cluster_queue, None
        lq = self.local_queues.get((wl.namespace, wl.queue_name))
        if lq is None:
            return None, f"LocalQueue {wl.namespace}/{wl.queue_name} doesn't exist"
        if lq.stop_policy not in ("", "None"):
            return lq.cluster_queue, f"LocalQueue {wl.namespace}/{wl.queue_name} is stopped"
        if lq.cluster_queue not in self.cqs:
            return lq.cluster_queue, f"ClusterQueue {lq.cluster_queue} doesn't exist"
        return lq.cluster_queue, None

    def queue_of(self, key: str) -> tuple[str | None, str | None]:
        """(ClusterQueue, `heap`|`inadmissible`) of a pending workload."""
        wl = self.workloads.get(key)
        if wl is None:
            return None, None
        if key in self.unqueued:
            cq, _ = self.cq_for(wl)
            return cq, INADMISSIBLE
        cq_name, _ = self.cq_for(wl)
        state = self.cqs.get(cq_name or "")
        if state is None:
            return cq_name, None
        return cq_name, state.queue.where(key)

    def pending(self) -> list[Workload]:
        """Workloads that hold no quota, sorted by key."""
        return [w for k, w in sorted(self.workloads.items()) if w.admission is None]

    def admitted(self) -> list[Workload]:
        """Workloads holding quota (including evicted ones not yet released), sorted by key."""
        return [w for k, w in sorted(self.workloads.items()) if w.admission is not None]

    # ----------------------------------------------------------------- changes
    def add_workload(self, wl: Workload) -> None:
        """Add a workload: admitted ones take their quota, pending ones join their queue."""
        self.workloads[wl.key] = wl
        if wl.admission is not None:
            state = self.cqs.get(wl.admission.cluster_queue)
            if state is None:
                self.notes.append(
                    f"{wl.key}: admitted to unknown ClusterQueue {wl.admission.cluster_queue}; ignored"
                )
                self._unplaced[wl.key] = wl
                return
            self._charge(state, wl)
            return
        self._enqueue(wl)

    def _enqueue(self, wl: Workload) -> None:
        self.unqueued.pop(wl.key, None)
        if wl.problem is not None:
            self.unqueued[wl.key] = wl.problem
            return
        if not wl.active:
            self.unqueued[wl.key] = "the Workload is deactivated (spec.active is false)"
            return
        cq_name, problem = self.cq_for(wl)
        if problem is not None or cq_name is None:
            self.unqueued[wl.key] = problem or "no ClusterQueue"
            return
        self.cqs[cq_name].queue.push(wl)

    def _charge(self, state: CQState, wl: Workload) -> None:
        usage = wl.admitted_usage()
        self.usage_of[wl.key] = usage
        state.workloads[wl.key] = wl
        state.wver += 1
        if wl.evicted:
            state.evicted[wl.key] = wl
        rn.add_usage_map(state.node, usage, 1)
        if self.tas is not None:
            self.tas.charge(wl)

    def _release(self, wl: Workload) -> CQState | None:
        """Take a workload's quota back; returns its ClusterQueue."""
        if wl.admission is None:
            return None
        state = self.cqs.get(wl.admission.cluster_queue)
        usage = self.usage_of.pop(wl.key, None)
        if self.tas is not None:
            self.tas.release(wl.key)
        if state is not None and usage is not None:
            rn.add_usage_map(state.node, usage, -1)
            del state.workloads[wl.key]
            state.evicted.pop(wl.key, None)
            state.generation += 1
            state.wver += 1
        wl.admission = None
        wl.evicted = False
        wl.quota_reserved_time = None
        return state

    def _notify(self, state: CQState | None) -> None:
        """Capacity may be free: requeue inadmissible workloads of the whole cohort tree.

        Kueue moves every inadmissible workload of the tree back (`QueueInadmissibleWorkloads`,
        ../shared/reference/kueue.md §3); the queues that hold none are not visited: `parked`
        names those that do, so a release costs what it wakes, not the number of ClusterQueues.
        Each queue's requeue touches only that queue, so their order does not matter."""
        parked = self.parked
        if state is None or not parked:
            return
        root = self._root_of[state.name]
        cqs = self.cqs
        if len(parked) == 1:
            for name in parked:
                if self._root_of[name] is root:
                    queue = cqs[name].queue
                    break
            else:
                return
            queue.requeue_inadmissible()
            return
        root_of = self._root_of
        for name in [n for n in parked if root_of[n] is root]:
            cqs[name].queue.requeue_inadmissible()

    def finish(self, key: str) -> None:
        """A workload ended (or was deleted): release its quota or drop it from its queue."""
        wl = self.workloads.pop(key, None)
        if wl is None:
            return
        if self.unqueued:
            self.unqueued.pop(key, None)
        self.reasons.pop(key, None)
        if self.scan:
            self.scan.pop(key, None)
        if wl.admission is not None:
            self._notify(self._release(wl))
            return
        cq_name, _ = self.cq_for(wl)
        if cq_name in self.cqs:
            self.cqs[cq_name].queue.delete(key)

    def evict(self, key: str, reason: str = "Preempted") -> None:
        """Evict an admitted workload now: quota released, requeued per Kueue's rules.

        Preempted workloads keep their creation timestamp (back to their old place);
        evictions for `PodsReadyTimeout` or `AdmissionCheck` requeue with the eviction time.
        """
        wl = self.workloads.get(key)
        if wl is None or wl.admission is None:
            return
        state = self._release(wl)
        if reason in ("PodsReadyTimeout", "AdmissionCheck"):
            wl.requeue_time = self.now
        self._enqueue(wl)
        self._notify(state)

    def evicted_keys(self) -> list[str]:
        """Workloads told to leave that still hold quota."""
        # Each ClusterQueue keeps its evicted workloads (`CQState.evicted`): no walk over every
        # workload of the snapshot, which `explain --eta` calls after each preempting cycle.
        keys = [
            k
            for state in self.cqs.values()
            if state.evicted
            for k, w in state.evicted.items()
            if w.evicted and w.admission is not None
        ]
        for k, w in self._unplaced.items():
            if w.evicted and w.admission is not None and self.workloads.get(k) is w:
                keys.append(k)
        return sorted(keys)

    def release_preempted(self) -> list[str]:
        """Release every evicted workload's quota and requeue it; returns their keys."""
        keys = self.evicted_keys()
        for key in keys:
            self.evict(key, "Preempted")
        return keys

    def admit(self, wl: Workload, cq: str, usage: dict[FR, int], admission: object) -> None:
        """Record an admission decided by the scheduler (usage already added to the tree)."""
        assert isinstance(admission, Admission)
        key = wl.key
        state = self.cqs[cq]
        state.queue.delete(key)
        wl.admission = admission
        wl.quota_reserved_time = self.now
        self.usage_of[key] = usage
        state.workloads[key] = wl
        state.wver += 1
        if self.tas is not None:
            self.tas.charge(wl)
        if self.reasons:
            self.reasons.pop(key, None)
        if self.scan:
            self.scan.pop(key, None)

    def where(self, key: str) -> str:
        """`admitted`, `heap`, `inadmissible` or `unknown`."""
        wl = self.workloads.get(key)
        if wl is None:
            return "unknown"
        if wl.admission is not None:
            return "admitted"
        return self.queue_of(key)[1] or INADMISSIBLE


def _in_cycle(name: str, parents: dict[str, str]) -> bool:
    """True when following parents from cohort `name` loops."""
    seen: set[str] = set()
    cur: str | None = name
    while cur is not None:
        if cur in seen:
            return True
        seen.add(cur)
        cur = parents.get(cur)
    return False


__all__ = ["HEAP", "INADMISSIBLE", "CQState", "ScanState", "Snapshot"]
