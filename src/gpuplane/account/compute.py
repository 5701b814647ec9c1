"""Turn raw Prometheus answers and the platform spec into per-pod and per-pool GPU time and cost.

Pure functions: `account(raw, spec)` gives an `AccountResult`. A GPU-hour is one physical GPU for
an hour: a MIG instance counts as its compute slices over the GPU's (3g.40gb = 3/7 of an A100),
a time-sliced replica as 1/replicas. Of a pod's allocated time, the part some DCGM activity
metric measured splits into useful (weighted by activity) and idle; the part nothing measured
is unmeasured (e.g. MIG instances without profiling metrics). A failed pod's whole allocation
is failed time (its work was not accepted).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from gpuplane.account import queries as q
from gpuplane.account.kueue_wait import mean_wait
from gpuplane.account.notes import account_notes
from gpuplane.account.pools import NodeInfo, node_info, pool_usage
from gpuplane.account.purchase import apply_purchase
from gpuplane.account.raw import ActivityKey, PodKey, RawData
from gpuplane.account.resolver import UNKNOWN, Resolver
from gpuplane.account.timeline import Timeline, timeline
from gpuplane.account.usage import PodUsage, PoolUsage
from gpuplane.costs import CostBreakdown, Overheads, price_gpu_hours
from gpuplane.spec import PlatformSpec

#: Relative difference below which measured time is all of the allocation (float sums of many steps).
_ROUNDING = 1e-9

__all__ = ["AccountResult", "KueueView", "PodUsage", "PoolUsage", "account", "pool_cost"]


@dataclass
class KueueView:
    """Kueue per ClusterQueue: pending and admitted workloads at the end, mean wait, resource usage."""

    pending: dict[str, float] = field(default_factory=dict)
    admitted: dict[str, float] = field(default_factory=dict)
    mean_wait_s: dict[str, float | None] = field(default_factory=dict)
    admissions: dict[str, float] = field(default_factory=dict)
    usage: dict[tuple[str, str], float] = field(default_factory=dict)

    @property
    def queues(self) -> list[str]:
        """Every queue with a pending, admitted or wait figure, sorted."""
        return sorted(set(self.pending) | set(self.admitted) | set(self.mean_wait_s))


@dataclass
class AccountResult:
    """Everything `account` reports: pods, pools, overheads, queues, notes and the charts' time series."""

    cluster: str
    currency: str
    start: float
    end: float
    step: float
    activity_source: str
    pods: list[PodUsage]
    pools: list[PoolUsage]
    overheads: CostBreakdown
    notes: list[str]
    kueue: KueueView
    timeline: Timeline | None = None
    queries: int = 0
    #: Storage cost of team-owned volumes (`costs.storage[].team`), part of `overheads.storage`.
    team_storage: dict[str, float] = field(default_factory=dict)

    @property
    def hours(self) -> float:
        """Length of the window in hours."""
        return (self.end - self.start) / 3600

    def pool(self, name: str) -> PoolUsage | None:
        """The usage of the pool called `name` (None when the window has none)."""
        return next((p for p in self.pools if p.pool == name), None)


def _source(raw: RawData, key: PodKey) -> str:
    """The activity metric for a pod: profiling where it has it, else utilisation, else none."""
    for metric in q.ACTIVITY_METRICS:
        activity = raw.activity.get(metric)
        if activity is not None and key in activity.pods():
            return metric
    return ""


def _measured_rows(raw: RawData, metric: str, key: PodKey) -> list[tuple[str, float, float]]:
    activity = raw.activity.get(metric)
    if activity is None:
        return []
    profiles: set[ActivityKey] = {k for k in activity.measured if (k[0], k[1]) == key}
    return sorted((k[2], activity.active.get(k, 0.0), activity.measured[k]) for k in profiles)


def _one_pod(
    raw: RawData, res: Resolver, info: NodeInfo, key: PodKey, rows: list[tuple[str, str, float]]
) -> PodUsage:
    node, resource = rows[0][0], rows[0][1]
    pool = info.pool_of.get(node, UNKNOWN)
    allocated = max(sum(unit_h * res.resource_fraction(pool, r) for _, r, unit_h in rows), 0.0)
    run_h = _running_hours(raw, key)
    source = _source(raw, key)
    base = res.resource_fraction(pool, resource)
    measured = active = 0.0
    for profile, active_h, measured_h in _measured_rows(raw, source, key):
        fraction = res.profile_fraction(pool, profile) if profile else base
        measured += measured_h * fraction
        active += active_h * fraction
    # measured within [0, allocated] and active within [0, measured], whatever the series said
    measured = allocated if measured > allocated - _ROUNDING * allocated else max(measured, 0.0)
    active = min(max(active, 0.0), measured)
    failed = (raw.outcomes.get(key, "") == "Failed") and key not in raw.running_at_end
    labels = raw.pod_labels.get(key, {})
    at_end = sum(
        units * res.resource_fraction(pool, r)
        for (ns, name, _n, r), units in raw.allocated_at_end.items()
        if (ns, name) == key
    )
    return PodUsage(
        namespace=key[0],
        pod=key[1],
        team=res.team_of(key[0], labels),
        pool=pool,
        accelerator=res.accelerator(pool),
        node=node,
        resource=resource,
        units=sum(unit_h for _, _, unit_h in rows) / run_h if run_h else 0.0,
        gpus=allocated / run_h if run_h else 0.0,
        allocated_h=allocated,
        useful_h=0.0 if failed else active,
        idle_h=0.0 if failed else measured - active,
        unmeasured_h=0.0 if failed else allocated - measured,
        failed_h=allocated if failed else 0.0,
        activity=active / measured if measured > 0 else None,
        activity_source=source,
        outcome=_outcome(raw, key),
        gpu_hourly=res.gpu_hourly(pool)[0],
        gpus_at_end=at_end,
        created=raw.created.get(key),
        start=raw.first_running.get(key),
        end=raw.last_running.get(key),
        running_at_start=raw.first_running.get(key) == raw.window.start,
        window_start=raw.window.start,
        queue=labels.get(q.QUEUE_LABEL, ""),
        job=labels.get(q.JOB_LABEL, ""),
        image=raw.images.get(key, ""),
    )


def _outcome(raw: RawData, key: PodKey) -> str:
    if key in raw.running_at_end:
        return "Running"
    return raw.outcomes.get(key, "Unknown")


def _running_hours(raw: RawData, key: PodKey) -> float:
    start, end = raw.first_running.get(key), raw.last_running.get(key)
    if start is None or end is None or end <= start:
        return 0.0
    return (end - start) / 3600


def _pods(raw: RawData, res: Resolver, info: NodeInfo) -> list[PodUsage]:
    rows: dict[PodKey, list[tuple[str, str, float]]] = defaultdict(list)
    for (ns, pod, node, resource), unit_h in raw.allocated.items():
        rows[(ns, pod)].append((node, resource, unit_h))
    return [_one_pod(raw, res, info, key, sorted(rows[key])) for key in sorted(rows)]


def _activity_source(pods: list[PodUsage]) -> str:
    used = [m for m in q.ACTIVITY_METRICS if any(p.activity_source == m for p in pods)]
    return "+".join(used)


def _kueue(raw: RawData) -> KueueView:
    k = raw.kueue
    queues = set(k.pending) | set(k.admitted) | set(k.admissions)
    return KueueView(
        pending=dict(k.pending),
        admitted=dict(k.admitted),
        mean_wait_s=mean_wait(k.admissions, k.wait_sum_s, queues) if k.histogram_seen else {},
        admissions=dict(k.admissions),
        usage=dict(k.usage),
    )


def _cpu_node_hours(raw: RawData, res: Resolver) -> dict[str, float]:
    """Node-hours each CPU pool of the spec had in the window (the nodes Prometheus saw)."""
    out: dict[str, float] = {name: 0.0 for name in res.all_pools if res.is_cpu_pool(name)}
    for labels, present_h in raw.nodes:
        pool = res.pool_of(labels)
        if pool in out:
            out[pool] += max(present_h, 0.0)
    return out


def account(raw: RawData, spec: PlatformSpec) -> AccountResult:
    """Per-pod and per-pool GPU time and cost for the window of `raw`."""
    res = Resolver(spec)
    info = node_info(raw, res)
    pods = _pods(raw, res, info)
    pools = pool_usage(raw, res, pods, info)
    unused, purchase_notes = apply_purchase(raw, spec, info, pools, pods)
    w = raw.window
    return AccountResult(
        cluster=spec.cluster.name,
        currency=spec.costs.currency,
        start=w.start,
        end=w.end,
        step=w.step,
        activity_source=_activity_source(pods),
        pods=pods,
        pools=pools,
        team_storage=Overheads.from_spec(spec).team_storage(w.hours),
        overheads=Overheads.from_spec(spec).for_window(
            w.hours,
            accepted_units=float(sum(p.outcome == "Succeeded" for p in pods)),
            gpu_hours=sum(p.hours.allocated for p in pools),
            cpu_node_hours=_cpu_node_hours(raw, res),
        )
        + (unused or CostBreakdown(currency=spec.costs.currency)),
        notes=account_notes(raw, res, pods, pools, info) + purchase_notes,
        kueue=_kueue(raw),
        timeline=timeline(raw, res, pods, info) if raw.chart_step else None,
        queries=raw.queries,
    )


def pool_cost(pool: PoolUsage, currency: str) -> CostBreakdown:
    """GPU cost of a pool: its pods' useful, idle, unmeasured and failed time and its unallocated time."""
    return price_gpu_hours(pool.hours, pool.gpu_hourly, currency)
