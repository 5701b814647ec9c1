"""Admission in the twin is `gpuplane.kueue`, run on the Kueue objects `render` derives from the spec.

This adapter turns trace workloads into Kueue Workloads (one LocalQueue per team, node affinity on
the pools the workload class may use), drives the mutable `Snapshot` cycle by cycle, and maps
admitted flavors back to pools (one ResourceFlavor per pool, named after it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpuplane.kueue import (
    PodSet,
    Snapshot,
    Toleration,
    Workload,
    parse_objects,
    pending_report,
    schedule_cycle,
)
from gpuplane.kueue.objects import ResourceFlavor, SelectorRequirement
from gpuplane.kueue.queues import Shape, shape_of
from gpuplane.kueue.results import AdmittedPodSet
from gpuplane.sim.admitters import AdmissionSetup, CycleOutcome, TeamQueue, register_admitter
from gpuplane.sim.pools import PoolModel
from gpuplane.sim.requests import GPU, PodRequest
from gpuplane.sim.topology import TwinTopology
from gpuplane.traces import PodSet as TracePodSet
from gpuplane.traces import Workload as TraceWorkload
from gpuplane.vocab import HOSTNAME_LABEL, LABEL_POOL

#: The outcome of a cycle that had no heads (shared: the engine only reads outcomes).
_SKIPPED = CycleOutcome(ran=False, more=False)


class ShapeToken:
    """Stands for one scheduling-equivalence shape (`kueue.queues.shape_of`) of the workloads the
    twin submits: one token per distinct shape, so workloads share a token exactly when their
    shapes are equal. The queues use the shape only as a key (hash and equality), and hashing the
    shape itself walks its tolerations and selectors (dataclass `__hash__`, Python code, on every
    push, pop and park); a token hashes by identity."""

    __slots__ = ()


class KueueAdmitter:
    """`sim.admitters.Admitter` on top of `gpuplane.kueue`."""

    def __init__(
        self,
        objects: Sequence[Mapping[str, Any]],
        pools: list[PoolModel],
        teams: list[TeamQueue],
        fair_sharing: bool | None = None,
        topology: TwinTopology | None = None,
    ) -> None:
        parsed = parse_objects(objects, source="<render>")
        self.notes = list(parsed.notes)
        self.snap = Snapshot.from_objects(parsed.objects, fair_sharing=fair_sharing)
        self.pools = pools
        self.teams = {t.name: t for t in teams}
        #: Per team: namespace, LocalQueue and default priority.
        self._team_queue = {t.name: (t.namespace, t.local_queue, t.priority) for t in teams}
        self.keys: dict[int, str] = {}
        self.index: dict[str, int] = {}
        self.flavor_pool = self._flavor_pools(parsed.objects, pools)
        self._tolerations = self._flavor_tolerations(parsed.objects, pools)
        self._shapes: dict[tuple[tuple[PodRequest, ...], tuple[int, ...], str], list[PodSet]] = {}
        #: Per (id of a requests tuple, pools, team): the tuple (kept, so its id stays unique), its
        #: pod sets, and the shape key of workloads with just those pod sets (None until the first).
        self._by_id: dict[tuple[int, tuple[int, ...], str], tuple[object, list[PodSet], list[Shape]]] = {}
        #: Per id of a trace pod-set tuple: the tuple (kept) and its CPU-only Kueue pod sets.
        self._cpu_by_id: dict[int, tuple[object, list[PodSet]]] = {}
        #: One `ShapeToken` per distinct shape (see ShapeToken).
        self._tokens: dict[Shape, Shape] = {}
        self.topology: TwinTopology | None = topology
        #: Work rate of each admitted TAS gang (1 / the runtime factor of the level it spans).
        self.rates: dict[int, float] = {}
        #: TAS admissions and how many ran at each runtime factor (for the end-of-run notes).
        self.placements = 0
        self.factors: dict[float, int] = {}
        if topology is not None:
            flavors = [o for o in parsed.objects if isinstance(o, ResourceFlavor)]
            self.snap.tas = topology.tas_state(flavors, {p.name: p.per_node for p in pools})
        # CPU-only pod sets (Ray heads, MPI launchers) go to Kueue with their cpu/memory, so they
        # take the flavor (and quota) Kueue gives them; the engine places them on that flavor's
        # CPU pool (sim/cpu_nodes.py).
        self.gpu_pod_sets: dict[int, int] = {}
        #: Admissions of CPU-only pod sets, by the flavor of their cpu ("" when they request nothing).
        self.cpu_flavors: dict[str, int] = {}
        #: The pool of the flavor each admitted workload's first CPU-only pod set got (its node label).
        self.cpu_assignment: dict[int, str] = {}
        self._flavor_pool_name = {
            o.name: o.node_labels.get(LABEL_POOL, o.name)
            for o in parsed.objects
            if isinstance(o, ResourceFlavor)
        }

    @staticmethod
    def _flavor_pools(objects: list[object], pools: list[PoolModel]) -> dict[str, int]:
        by_name = {p.name: p.index for p in pools}
        out: dict[str, int] = {}
        for obj in objects:
            if isinstance(obj, ResourceFlavor):
                pool = obj.node_labels.get(LABEL_POOL, obj.name)
                if pool in by_name:
                    out[obj.name] = by_name[pool]
        return out

    def _flavor_tolerations(
        self, objects: list[object], pools: list[PoolModel]
    ) -> list[frozenset[tuple[str, str]]]:
        out: list[set[tuple[str, str]]] = [set() for _ in pools]
        for obj in objects:
            if isinstance(obj, ResourceFlavor) and obj.name in self.flavor_pool:
                for tol in obj.tolerations:
                    value = "" if tol.operator == "Exists" else tol.value
                    out[self.flavor_pool[obj.name]].add((tol.key, value))
        return [frozenset(s) for s in out]

    # ---- Admitter ------------------------------------------------------------------------------
    def submit(
        self,
        wl: int,
        workload: TraceWorkload,
        requests: tuple[PodRequest, ...],
        pools: tuple[int, ...],
        now: float,
    ) -> None:
        """Create the Kueue Workload in the team's LocalQueue."""
        namespace, local_queue, team_priority = self._team_queue[workload.team]
        topology_team = workload.team if self.topology is not None else ""
        # Engines share one requests tuple between workloads of one shape, so its identity is a
        # cheap first key (equal tuples that are distinct objects get their own entry).
        id_key = (id(requests), pools, topology_team)
        hit = self._by_id.get(id_key)
        if hit is None:
            hit = self._by_id[id_key] = (requests, self._pod_sets(requests, pools, topology_team), [])
        cpu_sets = self._cpu_sets(workload.pod_sets)
        # The UID breaks queue-order ties: zero-padded submission order, so workloads submitted at
        # one instant with one priority are admitted in file order (not by name as text).
        number = str(wl)
        digits = len(number)
        kwl = Workload(
            namespace=namespace,
            name="wl-" + number,
            uid=number if digits >= 12 else _ZEROS[digits:] + number,
            queue_name=local_queue,
            priority=workload.priority or team_priority,
            creation_time=workload.submit,
            pod_sets=[*hit[1], *cpu_sets] if cpu_sets else list(hit[1]),
        )
        if not cpu_sets:  # the shape depends on the pod sets alone: one token per distinct shape
            known = hit[2]
            if not known:
                known.append(self._tokens.setdefault(shape_of(kwl), (ShapeToken(),)))
            kwl.shape = known[0]
        self.gpu_pod_sets[wl] = len(requests)
        key = kwl.key
        self.keys[wl] = key
        self.index[key] = wl
        snap = self.snap
        snap.now = now
        snap.add_workload(kwl)

    def _cpu_sets(self, pod_sets: tuple[TracePodSet, ...]) -> list[PodSet]:
        """`_cpu_pod_sets` of the trace pod sets, shared (read-only, like the GPU pod sets) by the
        workloads that share one pod-set tuple (readers share them; the tuple is kept in the value,
        so its id stays unique). Most have none."""
        hit = self._cpu_by_id.get(id(pod_sets))
        if hit is None:
            hit = self._cpu_by_id[id(pod_sets)] = (pod_sets, _cpu_pod_sets(pod_sets))
        return hit[1]

    def _pod_sets(
        self, requests: tuple[PodRequest, ...], pools: tuple[int, ...], team: str = ""
    ) -> list[PodSet]:
        """Kueue pod sets for a request shape; identical shapes share (read-only) PodSet objects.

        With topology, a team's placement goes on its gangs' pod sets (`sim.topology`)."""
        key = (requests, pools, team)
        cached = self._shapes.get(key)
        if cached is None:
            names = tuple(sorted(self.pools[p].name for p in pools))
            affinity = ((SelectorRequirement(LABEL_POOL, "In", names),),)
            tolerations = tuple(
                Toleration(key=key, operator="Exists")
                for key in sorted({GPU, *(r.resource for r in requests)})
            )
            cached = [
                PodSet(
                    r.name,
                    r.count,
                    {r.resource: r.units},
                    tolerations=tolerations,
                    affinity_terms=affinity,
                    topology=self.topology.request(team, r.count) if self.topology is not None else None,
                )
                for r in requests
            ]
            self._shapes[key] = cached
        return list(cached)

    def finish(self, wl: int, now: float) -> None:
        """Release the quota of a workload that ended."""
        self.snap.now = now
        # (`in` and `del`, not `pop`: a dict's pop is a generic method call when compiled)
        gpu_pod_sets, cpu_assignment, rates = self.gpu_pod_sets, self.cpu_assignment, self.rates
        if wl in gpu_pod_sets:
            del gpu_pod_sets[wl]
        if cpu_assignment and wl in cpu_assignment:
            del cpu_assignment[wl]
        key = self.keys[wl]
        del self.keys[wl]
        del self.index[key]
        if rates and wl in rates:
            del rates[wl]
        self.snap.finish(key)

    def release(self, wl: int, now: float) -> None:
        """A preempted workload's pods are gone: Kueue releases its quota and requeues it."""
        self.snap.now = now
        self.snap.evict(self.keys[wl], "Preempted")

    def cycle(self, now: float) -> CycleOutcome:
        """One Kueue cycle; victims keep their quota until `release`."""
        snap = self.snap
        if not snap.has_heads():
            return _SKIPPED  # no heads (every pending workload is parked): a cycle changes nothing
        snap.now = now
        result = schedule_cycle(snap)
        out = CycleOutcome(requeued=result.parked > 0, more=snap.has_heads())
        index = self.index
        if result.preempted:
            out.preempted.extend(index[victim.workload] for victim in result.preempted)
        topology = self.topology
        for adm in result.admitted:
            wl = index[adm.workload]
            n = self.gpu_pod_sets[wl]
            pod_sets = adm.pod_sets
            if n == 1:  # most workloads: one GPU pod set
                pools: tuple[int, ...] = (self._pool_of(pod_sets[0].flavors),)
            else:
                pools = tuple([self._pool_of(ps.flavors) for ps in pod_sets[:n]])
            if len(pod_sets) > n:
                for i, ps in enumerate(pod_sets[n:]):
                    flavor = ps.flavors.get("cpu") or next(iter(ps.flavors.values()), "")
                    self.cpu_flavors[flavor] = self.cpu_flavors.get(flavor, 0) + 1
                    if i == 0:
                        self.cpu_assignment[wl] = self._flavor_pool_name.get(flavor, flavor)
            out.admitted.append((wl, pools))
            if topology is not None:
                self._rate(wl, pod_sets[:n], pools)
        return out

    def _rate(self, wl: int, pod_sets: list[AdmittedPodSet], pools: tuple[int, ...]) -> None:
        """The gang's work rate from the widest level its pod sets span (1.0 without TAS)."""
        assert self.topology is not None
        factor = 1.0
        for ps, pool in zip(pod_sets, pools, strict=True):
            if ps.topology is not None and ps.count > 1:
                factor = max(factor, self.topology.factor(self.pools[pool].name, ps.topology))
        self.placements += 1
        self.factors[factor] = self.factors.get(factor, 0) + 1
        if factor != 1.0:
            self.rates[wl] = 1.0 / factor
        else:
            self.rates.pop(wl, None)

    def topology_notes(self) -> list[str]:
        """End-of-run notes on topology: gangs by runtime factor, workloads still waiting on the
        topology, and the free GPUs of the TAS pools they could not use (fragmentation)."""
        if self.topology is None or self.snap.tas is None:
            return []
        by_factor = ", ".join(f"{n} at x{f:g}" for f, n in sorted(self.factors.items()))
        notes = [f"topology-aware scheduling placed {self.placements} admissions ({by_factor or 'none'})"]
        waiting = [r for r in self.pending_reasons().values() if 'topology "' in r]
        if waiting:
            tas = self.snap.tas
            free = 0
            for node in tas.nodes:
                used = tas.usage.get(("h", node.labels.get(HOSTNAME_LABEL, node.name)), {})
                free += sum(
                    (q - used.get(res, 0)) // 1000 for res, q in node.allocatable.items() if res != "pods"
                )
            notes.append(
                f"{len(waiting)} workloads still wait on the topology while the TAS pools have {free} free "
                f"GPU units no pending gang can use (fragmentation); e.g. {waiting[0]}"
            )
        return notes

    def topology_rate(self, wl: int) -> float:
        """Work rate of an admitted workload: 1 / the runtime factor of its topology span."""
        return self.rates.get(wl, 1.0)

    def _pool_of(self, flavors: Mapping[str, str]) -> int:
        for res in sorted(flavors) if len(flavors) > 1 else flavors:
            pool = self.flavor_pool.get(flavors[res])
            if pool is not None:
                return pool
        raise ValueError(f"admitted to flavors {dict(flavors)} that match no pool")

    def tolerations(self, pool: int) -> frozenset[tuple[str, str]]:
        """Tolerations the pool's ResourceFlavor adds to admitted pods."""
        return self._tolerations[pool]

    def pending_reasons(self) -> dict[int, str]:
        """Why each workload without quota waits (Kueue's own words)."""
        return {
            self.index[p.workload]: p.reason for p in pending_report(self.snap) if p.workload in self.index
        }


def _cpu_pod_sets(pod_sets: tuple[TracePodSet, ...]) -> list[PodSet]:
    """Kueue pod sets for a workload's CPU-only pod sets: their cpu and memory per pod (what
    the trace gives), no GPU toleration and no pool affinity, as a Ray head is written."""
    out = []
    for ps in pod_sets:
        if ps.count <= 0 or ps.gpus_per_pod > 0 or ps.mig_profile:
            continue
        requests: dict[str, str] = {}
        if ps.cpu_milli:
            requests["cpu"] = f"{ps.cpu_milli}m"
        if ps.memory_mib:
            requests["memory"] = f"{ps.memory_mib}Mi"
        out.append(PodSet(ps.name, ps.count, requests))
    return out


#: Pads a submission number to the 12 digits of a UID.
_ZEROS = "0" * 12


@register_admitter("kueue")
def kueue_admitter(setup: AdmissionSetup) -> KueueAdmitter:
    """The built-in admitter: gpuplane.kueue on the platform's Kueue objects."""
    return KueueAdmitter(
        setup.objects, setup.pools, setup.teams, fair_sharing=setup.fair_sharing, topology=setup.topology
    )
