"""The three views of an account result (financial, workload, platform) as plain rows.

Financial rows group pods by pod, team, namespace, pool or accelerator. Unallocated GPU time
belongs to pools, so grouping by team or namespace adds one `(unallocated)` row; the effective
cost per accepted unit shares unallocated time and overheads by allocated cost (OpenCost's
`__weighted__` idle sharing), so the per-team figures add up to the cluster's.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from gpuplane.account.compute import AccountResult, PodUsage, pool_cost
from gpuplane.costs import CostBreakdown, GpuHours, GpuTime, price_gpu_hours, sum_breakdowns

DIMENSIONS = ("team", "namespace", "pool", "accelerator", "pod")
UNALLOCATED_ROW = "(unallocated)"
#: The kinds of GPU time Prometheus can tell apart (evicted-and-lost work is not visible in it).
ACCOUNT_KINDS: tuple[GpuTime, ...] = (
    GpuTime.USEFUL,
    GpuTime.IDLE,
    GpuTime.UNMEASURED,
    GpuTime.FAILED,
    GpuTime.UNALLOCATED,
)


def kind_name(kind: GpuTime) -> str:
    """The kind's name in JSON, CSV and metric names (idle time is allocated idle time)."""
    return "idle_allocated" if kind is GpuTime.IDLE else kind.value


def hours_fields(hours: GpuHours, provisioned: float | None = None) -> dict[str, float | None]:
    """`provisioned_gpu_hours`, `allocated_gpu_hours` and one `<kind>_gpu_hours` per account kind."""
    out: dict[str, float | None] = {
        "provisioned_gpu_hours": provisioned,
        "allocated_gpu_hours": hours.allocated,
    }
    out.update({f"{kind_name(k)}_gpu_hours": hours[k] for k in ACCOUNT_KINDS})
    return out


@dataclass
class Row:
    """GPU-hours and cost of one group."""

    dimension: str
    name: str
    hours: GpuHours
    cost: CostBreakdown
    provisioned_h: float | None = None
    pods: int = 0
    accepted: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of the row."""
        return {
            "dimension": self.dimension,
            "name": self.name,
            **hours_fields(self.hours, self.provisioned_h),
            "pods": self.pods,
            "accepted_units": self.accepted,
            "cost": self.cost.as_dict(),
            **self.extra,
        }


def _pod_key(pod: PodUsage, by: str) -> str:
    return {
        "team": pod.team,
        "namespace": pod.namespace,
        "pool": pod.pool,
        "accelerator": pod.accelerator,
        "pod": f"{pod.namespace}/{pod.pod}",
    }[by]


def pod_cost(pod: PodUsage, currency: str) -> CostBreakdown:
    """A pod's GPU time at its pool's GPU-hour price."""
    return price_gpu_hours(pod.hours, pod.gpu_hourly, currency)


def financial(result: AccountResult, by: str) -> list[Row]:
    """Rows grouped by one of DIMENSIONS."""
    if by not in DIMENSIONS:
        raise ValueError(
            f"unknown dimension {by!r}; expected one of {', '.join(DIMENSIONS)}"
        )  # a caller's bug
    cur = result.currency
    if by in ("pool", "accelerator"):
        return _by_pool(result, by)
    groups: dict[str, list[PodUsage]] = defaultdict(list)
    for pod in result.pods:
        groups[_pod_key(pod, by)].append(pod)
    rows = []
    for name in sorted(groups):
        pods = groups[name]
        hours = GpuHours()
        for pod in pods:
            hours = hours + pod.hours
        extra = _pod_extra(pods[0]) if by == "pod" else {}
        rows.append(
            Row(
                by,
                name,
                hours,
                sum_breakdowns((pod_cost(p, cur) for p in pods), cur),
                pods=len(pods),
                accepted=sum(p.outcome == "Succeeded" for p in pods),
                extra=extra,
            )
        )
    unallocated = GpuHours(unallocated=sum(p.unallocated_h for p in result.pools))
    if by != "pod" and unallocated.unallocated > 0:
        cost = sum_breakdowns(
            (price_gpu_hours(GpuHours(unallocated=p.unallocated_h), p.gpu_hourly, cur) for p in result.pools),
            cur,
        )
        rows.append(Row(by, UNALLOCATED_ROW, unallocated, cost))
    return rows


def _pod_extra(pod: PodUsage) -> dict[str, Any]:
    return {
        "team": pod.team,
        "namespace": pod.namespace,
        "pool": pod.pool,
        "accelerator": pod.accelerator,
        "node": pod.node,
        "outcome": pod.outcome,
        "gpus": pod.gpus,
        "activity": pod.activity,
        "activity_source": pod.activity_source,
        "queue": pod.queue,
        "job": pod.job,
        "image": pod.image,
        "queue_wait_s": pod.queue_wait_s,
        "start": pod.start,
        "end": pod.end,
    }


def _by_pool(result: AccountResult, by: str) -> list[Row]:
    groups: dict[str, list[Any]] = defaultdict(list)
    for pool in result.pools:
        groups[pool.pool if by == "pool" else pool.accelerator].append(pool)
    rows = []
    for name in sorted(groups):
        pools = groups[name]
        hours = GpuHours()
        for p in pools:
            hours = hours + p.hours
        pods = [pod for pod in result.pods if _pod_key(pod, by) == name]
        rows.append(
            Row(
                by,
                name,
                hours,
                sum_breakdowns((pool_cost(p, result.currency) for p in pools), result.currency),
                provisioned_h=sum(p.provisioned_h for p in pools),
                pods=len(pods),
                accepted=sum(p.outcome == "Succeeded" for p in pods),
            )
        )
    return rows


@dataclass
class Summary:
    """Cluster totals: GPU time, cost with overheads, accepted units and unit costs."""

    provisioned_h: float
    hours: GpuHours
    cost: CostBreakdown
    accepted: int
    per_accepted_unit: float | None
    per_useful_gpu_hour: float | None

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of the view."""
        return {
            **hours_fields(self.hours, self.provisioned_h),
            "accepted_units": self.accepted,
            "cost": self.cost.as_dict(),
            "cost_per_accepted_unit": self.per_accepted_unit,
            "cost_per_useful_gpu_hour": self.per_useful_gpu_hour,
        }


def summary(result: AccountResult) -> Summary:
    """Totals over all pools, with support and operations for the window."""
    hours = GpuHours()
    for pool in result.pools:
        hours = hours + pool.hours
    cost = (
        sum_breakdowns((pool_cost(p, result.currency) for p in result.pools), result.currency)
        + result.overheads
    )
    accepted = sum(p.outcome == "Succeeded" for p in result.pods)
    return Summary(
        sum(p.provisioned_h for p in result.pools),
        hours,
        cost,
        accepted,
        cost.per_accepted_unit(accepted),
        cost.total / hours.useful if hours.useful > 0 else None,
    )


def team_effective(result: AccountResult) -> dict[str, CostBreakdown]:
    """Each team's full cost: its pods, its own storage volumes (`costs.storage[].team`), plus
    unallocated time and the other overheads shared by allocated cost."""
    cur = result.currency
    own = {row.name: row.cost for row in financial(result, "team") if row.name != UNALLOCATED_ROW}
    owned = {team: amount for team, amount in result.team_storage.items() if team in own}
    overheads = replace(result.overheads, storage=result.overheads.storage - sum(owned.values()))
    shared = (
        sum_breakdowns(
            (price_gpu_hours(GpuHours(unallocated=p.unallocated_h), p.gpu_hourly, cur) for p in result.pools),
            cur,
        )
        + overheads
    )
    total_alloc = sum(c.gpu for c in own.values())
    out: dict[str, CostBreakdown] = {}
    for team, cost in own.items():
        weight = cost.gpu / total_alloc if total_alloc > 0 else 1 / max(len(own), 1)
        mine = CostBreakdown(currency=cur, storage=owned.get(team, 0.0), declared=result.overheads.declared)
        out[team] = cost + shared.scaled(weight) + mine
    return out


def workload(result: AccountResult) -> list[dict[str, Any]]:
    """The workload view: one record per pod (owner, team, queue, image, run time, wait, outcome)."""
    return [
        {
            "namespace": p.namespace,
            "pod": p.pod,
            "job": p.job,
            "team": p.team,
            "queue": p.queue,
            "image": p.image,
            "pool": p.pool,
            "gpus": p.gpus,
            "outcome": p.outcome,
            "run_hours": (p.end - p.start) / 3600 if p.start is not None and p.end is not None else None,
            "queue_wait_s": p.queue_wait_s,
            "activity": p.activity,
            "activity_source": p.activity_source,
            "retries": _retries(result, p),
        }
        for p in result.pods
    ]


def _retries(result: AccountResult, pod: PodUsage) -> int:
    """Earlier pods of the same job (same namespace and job label) that ran before this one."""
    if not pod.job:
        return 0
    return sum(
        1
        for p in result.pods
        if p.namespace == pod.namespace
        and p.job == pod.job
        and p.start is not None
        and pod.start is not None
        and p.start < pod.start
    )


def platform(result: AccountResult) -> list[dict[str, Any]]:
    """The platform view: per pool nodes, GPUs, health and energy."""
    return [
        {
            "pool": p.pool,
            "accelerator": p.accelerator,
            "spot": p.spot,
            "gpus_per_node": p.gpus_per_node,
            "gpu_hourly": p.gpu_hourly,
            "nodes_seen": p.nodes_seen,
            "nodes_at_end": p.nodes_at_end,
            "gpus_at_end": p.gpus_at_end,
            "provisioned_gpu_hours": p.provisioned_h,
            "xid_gpus": p.xid_gpus,
            "max_temp_c": p.max_temp_c,
            "max_fb_used_mib": p.max_fb_used_mib,
            "energy_kwh": p.energy_kwh,
        }
        for p in result.pools
    ]


def kueue(result: AccountResult) -> list[dict[str, Any]]:
    """The queue view: per ClusterQueue pending and admitted workloads at the end, admissions and mean wait."""
    k = result.kueue
    return [
        {
            "cluster_queue": queue,
            "pending_workloads": k.pending.get(queue),
            "admitted_workloads": k.admitted.get(queue),
            "admissions": k.admissions.get(queue, 0.0),
            "mean_admission_wait_seconds": k.mean_wait_s.get(queue),
            "resource_usage": {r: v for (cq, r), v in sorted(k.usage.items()) if cq == queue},
        }
        for queue in k.queues
    ]
