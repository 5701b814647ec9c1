"""The account views as `gpuplane_*` metric families (docs/account.md lists every metric).

Label values come from the spec (teams, their namespaces, pools, accelerators) plus
`unassigned`/`other`/`unknown`, so the number of series is bounded by the spec, not by the pods
that ran.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily

from gpuplane.account import views
from gpuplane.account.compute import AccountResult
from gpuplane.account.resolver import UNASSIGNED, UNKNOWN
from gpuplane.costs import GpuTime
from gpuplane.spec import PlatformSpec

OTHER = "other"
GROUP = ("team", "namespace", "pool", "accelerator")
POOL = ("pool", "accelerator")
Values = dict[tuple[str, ...], float]
_POD_KINDS = tuple(k for k in views.ACCOUNT_KINDS if k is not GpuTime.UNALLOCATED)
_DOCS = {
    GpuTime.USEFUL: "Allocated GPU-hours weighted by engine activity.",
    GpuTime.IDLE: "Allocated GPU-hours measured as not active.",
    GpuTime.UNMEASURED: "Allocated GPU-hours no DCGM activity metric measured.",
    GpuTime.FAILED: "Allocated GPU-hours of pods that failed.",
}


class Bounds:
    """Maps observed label values onto the spec's finite set."""

    def __init__(self, spec: PlatformSpec) -> None:
        self.teams = {t.name for t in spec.teams}
        self.namespaces = {ns for t in spec.teams for ns in t.namespaces}
        self.pools = {p.name for p in spec.node_pools}
        self.accelerators = {p.accelerator for p in spec.node_pools if p.accelerator}

    def group(self, team: str, namespace: str, pool: str, accelerator: str) -> tuple[str, ...]:
        """Label values of a (team, namespace, pool, accelerator) group, unknown ones folded into one
        value each."""
        return (
            team if team in self.teams else UNASSIGNED,
            namespace if namespace in self.namespaces else OTHER,
            pool if pool in self.pools else UNKNOWN,
            accelerator if accelerator in self.accelerators else UNKNOWN,
        )

    def pool(self, pool: str, accelerator: str) -> tuple[str, ...]:
        """Label values of a (pool, accelerator) group, folded as in `group`."""
        return self.group("", "", pool, accelerator)[2:]


def gauge(name: str, doc: str, labels: tuple[str, ...], values: Values) -> GaugeMetricFamily:
    """A gauge family with its samples in label order."""
    family = GaugeMetricFamily(name, doc, labels=list(labels))
    for key in sorted(values):
        family.add_metric(list(key), values[key])
    return family


def financial_families(result: AccountResult, spec: PlatformSpec) -> Iterator[GaugeMetricFamily]:
    """GPU-hours, cost and unit-cost gauges over the window."""
    bounds = Bounds(spec)
    cur = result.currency
    sums: dict[str, Values] = defaultdict(lambda: defaultdict(float))
    for pod in result.pods:
        key = bounds.group(pod.team, pod.namespace, pod.pool, pod.accelerator)
        sums["allocated"][key] += pod.allocated_h
        for kind in _POD_KINDS:
            sums[kind.value][key] += pod.hours[kind]
            sums["cost"][(*key, views.kind_name(kind), cur)] += pod.hours[kind] * pod.gpu_hourly
    provisioned: Values = defaultdict(float)
    unallocated: Values = defaultdict(float)
    for pool in result.pools:
        key = bounds.pool(pool.pool, pool.accelerator)
        provisioned[key] += pool.provisioned_h
        unallocated[key] += pool.unallocated_h
        sums["cost"][(UNASSIGNED, OTHER, *key, "unallocated", cur)] += pool.unallocated_h * pool.gpu_hourly
    yield gauge(
        "gpuplane_provisioned_gpu_hours", "GPU-hours of GPU nodes over the window.", POOL, provisioned
    )
    yield gauge(
        "gpuplane_unallocated_gpu_hours", "Provisioned GPU-hours no pod requested.", POOL, unallocated
    )
    yield gauge(
        "gpuplane_allocated_gpu_hours", "GPU-hours requested by running pods.", GROUP, sums["allocated"]
    )
    for kind in _POD_KINDS:
        yield gauge(f"gpuplane_{views.kind_name(kind)}_gpu_hours", _DOCS[kind], GROUP, sums[kind.value])
    yield gauge(
        "gpuplane_cost", "Cost over the window by component.", (*GROUP, "component", "currency"), sums["cost"]
    )
    yield from _unit_cost_families(result, bounds)


def _unit_cost_families(result: AccountResult, bounds: Bounds) -> Iterator[GaugeMetricFamily]:
    effective = views.team_effective(result)
    teams = {r.name: r for r in views.financial(result, "team")}
    per_useful: Values = {}
    per_unit: Values = {}
    for team, cost in effective.items():
        label = (team if team in bounds.teams else UNASSIGNED, result.currency)
        row = teams[team]
        if row.hours.useful > 0:
            per_useful[label] = cost.total / row.hours.useful
        unit = cost.per_accepted_unit(row.accepted)
        if unit is not None:
            per_unit[label] = unit
    yield gauge(
        "gpuplane_effective_cost_per_useful_gpu_hour",
        "Team cost with shared idle and overheads per useful GPU-hour.",
        ("team", "currency"),
        per_useful,
    )
    yield gauge(
        "gpuplane_cost_per_accepted_unit", "Effective cost per succeeded job.", ("team", "currency"), per_unit
    )


def workload_families(result: AccountResult, spec: PlatformSpec) -> Iterator[GaugeMetricFamily]:
    """Allocated GPUs now, activity, jobs by outcome and Kueue pending workloads."""
    bounds = Bounds(spec)
    now_gpus: Values = defaultdict(float)
    measured: Values = defaultdict(float)
    useful: Values = defaultdict(float)
    jobs: Values = defaultdict(float)
    for pod in result.pods:
        key = bounds.group(pod.team, pod.namespace, pod.pool, pod.accelerator)
        now_gpus[key] += pod.gpus_at_end
        if pod.outcome != "Failed":
            measured[key] += pod.useful_h + pod.idle_h
            useful[key] += pod.useful_h
        outcome = {"Succeeded": "succeeded", "Failed": "failed"}.get(pod.outcome, "running")
        jobs[(key[0], key[1], outcome)] += 1
    ratio = {k: useful[k] / v for k, v in measured.items() if v > 0}
    pending: Values = defaultdict(float)
    for queue, value in result.kueue.pending.items():
        pending[(queue if queue in bounds.teams else UNASSIGNED,)] += value
    yield gauge(
        "gpuplane_gpus_allocated", "GPUs requested by running pods at the last sample.", GROUP, now_gpus
    )
    yield gauge(
        "gpuplane_engine_active_ratio", "Mean engine activity of measured allocated GPUs.", GROUP, ratio
    )
    yield gauge(
        "gpuplane_jobs", "GPU pods seen in the window by outcome.", ("team", "namespace", "outcome"), jobs
    )
    yield gauge(
        "gpuplane_pending_workloads", "Kueue pending workloads at the last sample.", ("team",), pending
    )


def platform_families(result: AccountResult, spec: PlatformSpec) -> Iterator[GaugeMetricFamily]:
    """Nodes and GPUs now, XID, temperature and power per pool."""
    bounds = Bounds(spec)
    nodes: Values = defaultdict(float)
    gpus: Values = defaultdict(float)
    xid: Values = defaultdict(float)
    temp: Values = {}
    power: Values = defaultdict(float)
    for p in result.pools:
        key = bounds.pool(p.pool, p.accelerator)
        nodes[key] += p.nodes_at_end
        gpus[key] += p.gpus_at_end
        xid[key] += p.xid_gpus
        if p.max_temp_c is not None:
            temp[key] = max(temp.get(key, p.max_temp_c), p.max_temp_c)
        power[key] += p.energy_kwh * 1000 / result.hours if result.hours > 0 else 0.0
    yield gauge("gpuplane_nodes", "GPU nodes at the last sample.", POOL, nodes)
    yield gauge("gpuplane_gpus_provisioned", "Physical GPUs at the last sample.", POOL, gpus)
    yield gauge("gpuplane_xid_errors", "GPUs that reported an XID error in the window.", POOL, xid)
    yield gauge("gpuplane_gpu_temperature_celsius_max", "Hottest GPU temperature in the window.", POOL, temp)
    yield gauge("gpuplane_gpu_power_watts", "Mean total GPU power draw of the pool.", POOL, power)
