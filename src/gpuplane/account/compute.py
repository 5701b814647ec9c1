"""Turn raw Prometheus answers and the platform spec into per-pod and per-pool GPU time and cost.

Pure functions: `account(raw, spec)` gives an `AccountResult`. A GPU-hour is one physical GPU for
an hour: a MIG instance counts as its compute slices over the GPU's (3g.40gb = 3/7 of an A100),
a time-sliced replica as 1/replicas. Useful time is allocated time weighted by engine activity;
a failed pod's whole allocation is failed time (its work was not accepted).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from gpuplane.account.gather import PodKey, RawData
from gpuplane.catalog import load_catalog
from gpuplane.catalog.models import Accelerator, mig_resource_name
from gpuplane.costs import CostBreakdown, GpuHours, Overheads, pool_price, price_gpu_hours
from gpuplane.spec import NodePool, PlatformSpec
from gpuplane.vocab import ksm_resource

UNASSIGNED = "unassigned"
UNKNOWN = "unknown"
#: Node labels that name a node's pool, in the order they are trusted.
POOL_LABELS = (
    "label_gpuplane_io_pool",
    "label_kubernetes_azure_com_agentpool",
    "label_agentpool",
    "label_cloud_google_com_gke_nodepool",
    "label_eks_amazonaws_com_nodegroup",
)


@dataclass
class PodUsage:
    """GPU time and cost of one pod over the window."""

    namespace: str
    pod: str
    team: str
    pool: str
    accelerator: str
    node: str
    resource: str
    units: float  # requested units of `resource` (GPUs, MIG devices or shared replicas)
    gpus: float  # physical-GPU equivalents requested
    allocated_h: float
    useful_h: float
    idle_h: float
    failed_h: float
    activity: float  # mean engine activity while running (0..1)
    outcome: str
    gpu_hourly: float
    created: float | None = None
    start: float | None = None
    end: float | None = None
    queue: str = ""
    job: str = ""
    image: str = ""

    @property
    def hours(self) -> GpuHours:
        return GpuHours(useful=self.useful_h, idle=self.idle_h, failed=self.failed_h)

    @property
    def queue_wait_s(self) -> float | None:
        if self.created is None or self.start is None:
            return None
        return max(self.start - self.created, 0.0)


@dataclass
class PoolUsage:
    """Capacity, use and health of one node pool over the window."""

    pool: str
    accelerator: str
    gpus_per_node: int
    gpu_hourly: float
    spot: bool
    nodes_seen: int = 0
    nodes_at_end: int = 0
    provisioned_h: float = 0.0
    hours: GpuHours = field(default_factory=GpuHours)
    xid_gpus: int = 0
    max_temp_c: float | None = None
    max_fb_used_mib: float | None = None
    energy_kwh: float = 0.0

    @property
    def allocated_h(self) -> float:
        return self.hours.allocated

    @property
    def unallocated_h(self) -> float:
        return self.hours.unallocated


@dataclass
class AccountResult:
    """Everything `account` reports: pods, pools, overheads, notes and the raw data behind them."""

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
    kueue_pending: dict[str, float]
    kueue_wait_s: dict[str, float]
    node_pool: dict[str, str]
    raw: RawData

    @property
    def hours(self) -> float:
        return (self.end - self.start) / 3600

    def pool(self, name: str) -> PoolUsage | None:
        return next((p for p in self.pools if p.pool == name), None)


class Resolver:
    """Answers derived from the spec: which pool a node is in, what a resource is worth in GPUs."""

    def __init__(self, spec: PlatformSpec) -> None:
        self.spec = spec
        self.pools = {p.name: p for p in spec.node_pools if p.is_gpu}
        self.squashed = {name.replace("-", ""): name for name in self.pools}
        self.team_of_ns = {ns: t.name for t in spec.teams for ns in t.namespaces}
        self.teams = {t.name for t in spec.teams}
        self.catalog = load_catalog()

    def pool_of(self, labels: dict[str, str]) -> str:
        for key in POOL_LABELS:
            value = labels.get(key, "")
            if value in self.pools:
                return value
            if value and value.replace("-", "") in self.squashed:
                return self.squashed[value.replace("-", "")]
        return UNKNOWN

    def accelerator(self, pool: str, labels: dict[str, str] | None = None) -> str:
        if pool in self.pools:
            return self.pools[pool].accelerator or UNKNOWN
        return (labels or {}).get("label_gpuplane_io_accelerator") or UNKNOWN

    def _acc(self, pool: str) -> Accelerator | None:
        spec_pool = self.pools.get(pool)
        return (
            self.catalog.accelerator(spec_pool.accelerator) if spec_pool and spec_pool.accelerator else None
        )

    def profile_fraction(self, pool: str, profile: str) -> float:
        """Share of a physical GPU that one MIG instance of `profile` is (compute slices)."""
        acc = self._acc(pool)
        found = acc.mig_profile(profile) if acc else None
        if acc and found and acc.compute_slices:
            return found.compute_slices / acc.compute_slices
        match = re.match(r"(\d+)g", profile)
        return int(match.group(1)) / 7 if match else 1.0

    def resource_fraction(self, pool: str, resource: str) -> float:
        """Physical GPUs that one unit of a kube-state-metrics resource name stands for."""
        spec_pool: NodePool | None = self.pools.get(pool)
        if resource.startswith("nvidia_com_mig_"):
            acc = self._acc(pool)
            for name in acc.mig_profiles if acc else ():
                if ksm_resource(mig_resource_name(name)) == resource:
                    return self.profile_fraction(pool, name)
            return self.profile_fraction(pool, resource.removeprefix("nvidia_com_mig_").split("_")[0])
        if spec_pool is None:
            return 1.0
        sharing = spec_pool.sharing
        if sharing.mode in ("time-slicing", "mps"):
            return 1.0 / max(sharing.replicas, 1)
        if sharing.mode == "mig" and sharing.layout:
            return self.profile_fraction(pool, sharing.layout[0])
        return 1.0

    def team_of(self, namespace: str, labels: dict[str, str]) -> str:
        team = labels.get("label_gpuplane_io_team", "")
        if team in self.teams:
            return team
        return self.team_of_ns.get(namespace, UNASSIGNED)

    def gpu_hourly(self, pool: str) -> tuple[float, bool]:
        spec_pool = self.pools.get(pool)
        if spec_pool is None:
            return 0.0, False
        price = pool_price(self.spec, spec_pool)
        return price.gpu_hourly, price.spot


def _node_pools(
    raw: RawData, res: Resolver
) -> tuple[dict[str, str], dict[str, float], dict[str, dict[str, str]]]:
    """node -> pool, node -> hours present, node -> its labels."""
    pool_of: dict[str, str] = {}
    hours: dict[str, float] = defaultdict(float)
    labels_of: dict[str, dict[str, str]] = {}
    for labels, present_h in raw.nodes:
        node = labels.get("node", "")
        pool_of[node] = res.pool_of(labels)
        labels_of[node] = labels
        hours[node] += present_h
    return pool_of, hours, labels_of


def _pod_usage(raw: RawData, res: Resolver, pool_of: dict[str, str]) -> list[PodUsage]:
    rows: dict[PodKey, list[tuple[str, str, float]]] = defaultdict(list)
    for (ns, pod, node, resource), unit_h in raw.allocated.items():
        rows[(ns, pod)].append((node, resource, unit_h))
    activity: dict[PodKey, list[tuple[str, float]]] = defaultdict(list)
    for (ns, pod, profile), active_h in raw.activity.items():
        activity[(ns, pod)].append((profile, active_h))
    out: list[PodUsage] = []
    for key in sorted(rows):
        out.append(_one_pod(raw, res, pool_of, key, sorted(rows[key]), sorted(activity.get(key, []))))
    return out


def _one_pod(
    raw: RawData,
    res: Resolver,
    pool_of: dict[str, str],
    key: PodKey,
    rows: list[tuple[str, str, float]],
    activity: list[tuple[str, float]],
) -> PodUsage:
    ns, pod = key
    node, resource = rows[0][0], rows[0][1]
    pool = pool_of.get(node, UNKNOWN)
    allocated = sum(unit_h * res.resource_fraction(pool, r) for _, r, unit_h in rows)
    run_h = _running_hours(raw, key, 1.0)
    base_fraction = res.resource_fraction(pool, resource)
    active = sum(h * (res.profile_fraction(pool, p) if p else base_fraction) for p, h in activity)
    active = min(active, allocated)
    outcome = "Running" if key in raw.running_at_end else raw.outcomes.get(key, "Unknown")
    failed = outcome == "Failed"
    labels = raw.pod_labels.get(key, {})
    gpu_hourly, _spot = res.gpu_hourly(pool)
    return PodUsage(
        namespace=ns,
        pod=pod,
        team=res.team_of(ns, labels),
        pool=pool,
        accelerator=res.accelerator(pool),
        node=node,
        resource=resource,
        units=sum(unit_h for _, _, unit_h in rows) / run_h,
        gpus=allocated / run_h,
        allocated_h=allocated,
        useful_h=0.0 if failed else active,
        idle_h=0.0 if failed else allocated - active,
        failed_h=allocated if failed else 0.0,
        activity=active / allocated if allocated else 0.0,
        outcome=outcome,
        gpu_hourly=gpu_hourly,
        created=raw.created.get(key),
        start=raw.first_running.get(key),
        end=raw.last_running.get(key),
        queue=labels.get("label_kueue_x_k8s_io_queue_name", ""),
        job=labels.get("label_job_name", ""),
        image=raw.images.get(key, ""),
    )


def _running_hours(raw: RawData, key: PodKey, fallback: float) -> float:
    start, end = raw.first_running.get(key), raw.last_running.get(key)
    if start is None or end is None or end <= start:
        return fallback
    return (end - start) / 3600


def _pools(
    raw: RawData,
    res: Resolver,
    pods: list[PodUsage],
    node_info: tuple[dict[str, str], dict[str, float], dict[str, dict[str, str]]],
) -> list[PoolUsage]:
    pool_of, node_hours, labels_of = node_info
    names = sorted(set(res.pools) | set(pool_of.values()) | {p.pool for p in pods})
    at_end = raw.nodes_at_end
    out: list[PoolUsage] = []
    for name in names:
        spec_pool = res.pools.get(name)
        hourly, spot = res.gpu_hourly(name)
        usage = PoolUsage(name, res.accelerator(name), spec_pool.gpus if spec_pool else 0, hourly, spot)
        nodes = [n for n, p in pool_of.items() if p == name]
        usage.nodes_seen = len(nodes)
        usage.nodes_at_end = len([n for n in nodes if n in at_end])
        for node in nodes:
            gpus = spec_pool.gpus if spec_pool else int(raw.allocatable.get((node, "nvidia_com_gpu"), 0))
            usage.provisioned_h += node_hours[node] * gpus
            _health(raw, usage, node)
        if name == UNKNOWN and nodes:
            usage.accelerator = res.accelerator(name, labels_of[nodes[0]])
        mine = [p for p in pods if p.pool == name]
        hours = GpuHours()
        for pod in mine:
            hours = hours + pod.hours
        usage.hours = GpuHours(
            useful=hours.useful,
            idle=hours.idle,
            failed=hours.failed,
            unallocated=max(usage.provisioned_h - hours.allocated, 0.0),
        )
        out.append(usage)
    return out


def _health(raw: RawData, usage: PoolUsage, node: str) -> None:
    usage.xid_gpus += len([x for x in raw.xids if x[0] == node])
    if node in raw.max_temp:
        usage.max_temp_c = max(usage.max_temp_c or raw.max_temp[node], raw.max_temp[node])
    if node in raw.max_fb_used_mib:
        usage.max_fb_used_mib = max(usage.max_fb_used_mib or 0.0, raw.max_fb_used_mib[node])
    usage.energy_kwh += raw.energy_kwh.get(node, 0.0)


def _pool_notes(res: Resolver, pools: list[PoolUsage], raw: RawData) -> list[str]:
    notes: list[str] = []
    matched = [p for p in pools if p.pool in res.pools and p.nodes_seen]
    if raw.nodes and not matched:
        notes.append(
            "No node in Prometheus matches a pool of the spec (node label gpuplane.io/pool or the "
            "cloud's node-pool label; kube-state-metrics must export it with "
            "--metric-labels-allowlist=nodes=[gpuplane.io/pool,...]): prices are unknown (0)."
        )
    for p in pools:
        if p.pool in res.pools and not p.nodes_seen and raw.nodes and matched:
            notes.append(f"Pool {p.pool} had no node in the window (scaled to zero or not labelled).")
        if p.pool == UNKNOWN and p.nodes_seen:
            notes.append(f"{p.nodes_seen} GPU node(s) belong to no pool of the spec; they are priced at 0.")
    return notes


def account(raw: RawData, spec: PlatformSpec) -> AccountResult:
    """Per-pod and per-pool GPU time and cost for the window of `raw`."""
    res = Resolver(spec)
    node_info = _node_pools(raw, res)
    pods = _pod_usage(raw, res, node_info[0])
    pools = _pools(raw, res, pods, node_info)
    w = raw.window
    overheads = Overheads.from_spec(spec).for_window(w.hours)
    notes = list(raw.notes) + _pool_notes(res, pools, raw)
    if raw.window and not raw.allocated:
        notes.append(
            "No GPU pod was running in the window (no kube_pod_container_resource_requests for "
            "nvidia.com resources with phase Running)."
        )
    if spec.costs.storage_per_gib_month or spec.costs.network_per_gib:
        notes.append(
            "Storage and network volumes are not in Prometheus' GPU series: those costs are left at 0."
        )
    return AccountResult(
        cluster=spec.cluster.name,
        currency=spec.costs.currency,
        start=w.start,
        end=w.end,
        step=w.step,
        activity_source=raw.activity_source,
        pods=pods,
        pools=pools,
        overheads=overheads,
        notes=notes,
        kueue_pending=raw.kueue_pending,
        kueue_wait_s=raw.kueue_wait_s,
        node_pool=node_info[0],
        raw=raw,
    )


def pool_cost(pool: PoolUsage, currency: str) -> CostBreakdown:
    """GPU cost of a pool: its pods' useful, idle and failed time and its unallocated time."""
    return price_gpu_hours(pool.hours, pool.gpu_hourly, currency)
