"""Test builders shaped like Kueue's test wrappers (MakeClusterQueue, MakeWorkload...)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gpuplane.kueue import (
    Admission,
    ClusterQueue,
    Cohort,
    FairSharingConfig,
    FlavorFungibility,
    FlavorQuotas,
    LocalQueue,
    PodSet,
    PodSetAssignment,
    PreemptionPolicy,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Snapshot,
    Workload,
    parse_quantity,
)

Quota = str | int | tuple[Any, ...]


def _res(key: str) -> str:
    """Keyword to resource name: nvidia_com__gpu -> nvidia.com/gpu."""
    return key.replace("__", "/").replace("_", ".")


def _rq(name: str, q: Quota) -> ResourceQuota:
    if isinstance(q, tuple):
        nominal, bl, ll = (*q, None, None)[:3]
        return ResourceQuota(
            name,
            parse_quantity(nominal),
            None if bl is None else parse_quantity(bl),
            None if ll is None else parse_quantity(ll),
        )
    return ResourceQuota(name, parse_quantity(q))


def group(*flavors: tuple[str, Mapping[str, Quota]]) -> ResourceGroup:
    """group(("on-demand", {"cpu": 10, "memory": ("10Gi", None, "5Gi")}), ...)."""
    covered: list[str] = []
    fqs = []
    for fname, res in flavors:
        for r in res:
            if r not in covered:
                covered.append(r)
        fqs.append(FlavorQuotas(fname, tuple(_rq(r, q) for r, q in res.items())))
    return ResourceGroup(tuple(covered), tuple(fqs))


def cq(
    name: str,
    *groups: ResourceGroup,
    cohort: str | None = None,
    within: str = "Never",
    reclaim: str = "Never",
    bwc: str = "Never",
    threshold: int | None = None,
    strategy: str = "BestEffortFIFO",
    when_can_borrow: str = "MayStopSearch",
    when_can_preempt: str = "TryNextFlavor",
    preference: str | None = None,
    weight: float = 1.0,
) -> ClusterQueue:
    return ClusterQueue(
        name=name,
        cohort=cohort,
        resource_groups=tuple(groups),
        queueing_strategy=strategy,
        preemption=PreemptionPolicy(within, reclaim, bwc, threshold),
        flavor_fungibility=FlavorFungibility(when_can_borrow, when_can_preempt, preference),
        fair_weight=weight,
    )


def cohort(name: str, *groups: ResourceGroup, parent: str | None = None, weight: float = 1.0) -> Cohort:
    return Cohort(name, parent, tuple(groups), weight)


def wl(
    name: str,
    queue: str,
    *pod_sets: PodSet,
    ns: str = "ns",
    priority: int = 0,
    t: float = 0.0,
    **requests: Any,
) -> Workload:
    """A pending workload in LocalQueue `queue` (LocalQueues are named after their ClusterQueue)."""
    if not pod_sets:
        reqs = {_res(k): v for k, v in requests.items()}
        pod_sets = (PodSet("main", 1, reqs),)
    return Workload(ns, name, queue, priority=priority, creation_time=t, pod_sets=list(pod_sets))


def ps(name: str, count: int, min_count: int | None = None, **requests: Any) -> PodSet:
    return PodSet(name, count, {_res(k): v for k, v in requests.items()}, min_count=min_count)


def admit(
    w: Workload,
    cq_name: str,
    flavor: str | Mapping[str, str],
    reserved_at: float | None = None,
    evicted: bool = False,
) -> Workload:
    """Mark `w` admitted to `cq_name`, every resource in `flavor` (or per-resource flavors)."""
    psas = []
    for p in w.pod_sets:
        flavors = {r: (flavor if isinstance(flavor, str) else flavor[r]) for r in p.per_pod}
        psas.append(
            PodSetAssignment(p.name, flavors, {r: q * p.count for r, q in p.per_pod.items()}, p.count)
        )
    w.admission = Admission(cq_name, psas)
    w.quota_reserved_time = reserved_at
    w.evicted = evicted
    return w


def flavors(*names: str) -> list[ResourceFlavor]:
    return [ResourceFlavor(n) for n in names]


def world(objs: Iterable[object], fair: bool = False, strategies: tuple[str, ...] | None = None) -> Snapshot:
    """Snapshot with a LocalQueue per (namespace, queue) pointing at the ClusterQueue of that name."""
    objs = list(objs)
    lqs = {(o.namespace, o.queue_name) for o in objs if isinstance(o, Workload) and o.queue_name}
    objs += [LocalQueue(ns, q, q) for ns, q in sorted(lqs)]
    if fair and strategies is not None:
        objs.append(FairSharingConfig(True, strategies))
    snap = Snapshot.from_objects(objs, fair_sharing=fair)
    snap.now = 1000.0
    return snap


def admitted_keys(result: Any) -> list[str]:
    return sorted(a.workload for a in result.admitted)


def preempted(result: Any) -> dict[str, str]:
    return {p.workload: p.reason for p in result.preempted}


def queues(snap: Snapshot) -> dict[str, str]:
    """Where each pending workload waits: heap / inadmissible."""
    return {w.key: snap.where(w.key) for w in snap.pending()}
