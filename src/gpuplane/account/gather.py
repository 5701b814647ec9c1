"""Fetch everything `account` needs from Prometheus into one `RawData` record (the only I/O step).

Missing optional series (profiling metrics, XID, Kueue) leave their part empty and add a note;
nothing here decides what a number means, `compute` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gpuplane.account import collect as q
from gpuplane.account.prom import PromClient, Series

PodKey = tuple[str, str]
Points = list[tuple[float, float]]
CHART_POINTS = 240


@dataclass
class RawData:
    """Query answers, keyed by label values, for one window."""

    window: q.Window
    allocated: dict[tuple[str, ...], float] = field(
        default_factory=dict
    )  # (ns, pod, node, resource) -> unit-hours
    activity: dict[tuple[str, ...], float] = field(default_factory=dict)  # (ns, pod, profile) -> active-hours
    activity_source: str = ""
    fallback_pods: set[PodKey] = field(default_factory=set)
    nodes_at_end: set[str] = field(default_factory=set)
    nodes: list[tuple[dict[str, str], float]] = field(default_factory=list)  # node labels, hours present
    allocatable: dict[tuple[str, ...], float] = field(default_factory=dict)  # (node, resource) -> units
    outcomes: dict[PodKey, str] = field(default_factory=dict)
    running_at_end: set[PodKey] = field(default_factory=set)
    first_running: dict[PodKey, float] = field(default_factory=dict)
    last_running: dict[PodKey, float] = field(default_factory=dict)
    created: dict[PodKey, float] = field(default_factory=dict)
    pod_labels: dict[PodKey, dict[str, str]] = field(default_factory=dict)
    images: dict[PodKey, str] = field(default_factory=dict)
    xids: list[tuple[str, str, int]] = field(default_factory=list)  # host, gpu, last code
    max_temp: dict[str, float] = field(default_factory=dict)
    max_fb_used_mib: dict[str, float] = field(default_factory=dict)
    energy_kwh: dict[str, float] = field(default_factory=dict)
    kueue_pending: dict[str, float] = field(default_factory=dict)
    kueue_wait_s: dict[str, float] = field(default_factory=dict)
    kueue_usage: dict[tuple[str, str], float] = field(default_factory=dict)  # (cluster queue, resource)
    chart_step: float = 0.0
    alloc_series: dict[tuple[str, ...], Points] = field(default_factory=dict)  # (ns, pod, node, resource)
    activity_series: dict[tuple[str, ...], Points] = field(default_factory=dict)  # (ns, pod, profile)
    node_series: dict[str, Points] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    queries: int = 0


def _host(labels: dict[str, str]) -> str:
    return labels.get("Hostname") or labels.get("hostname") or ""


def _pods(client: PromClient, w: q.Window, raw: RawData) -> None:
    raw.allocated = q.integrate(client, w, q.ALLOCATED, ("namespace", "pod", "node", "resource"))
    by = ("namespace", "pod", "GPU_I_PROFILE")
    profiling = q.integrate(client, w, q.activity(q.PROFILING), by)
    utilization = q.integrate(client, w, q.activity(q.UTILIZATION), by)
    measured = {key[:2] for key in profiling}
    raw.activity = dict(profiling)
    raw.fallback_pods = {(key[0], key[1]) for key in utilization if key[:2] not in measured}
    raw.activity.update({k: v for k, v in utilization.items() if k[:2] in raw.fallback_pods})
    if profiling:
        raw.activity_source = q.PROFILING if not raw.fallback_pods else f"{q.PROFILING}+{q.UTILIZATION}"
    elif utilization:
        raw.activity_source = q.UTILIZATION
    _activity_notes(raw)
    step = int(w.step)
    raw.first_running = _pod_values(
        q.per_chunk(client, w, lambda r: q.first_running(r, step), ("namespace", "pod"), min)
    )
    last = q.per_chunk(client, w, lambda r: q.last_running(r, step), ("namespace", "pod"), max)
    raw.last_running = {k: v + w.step for k, v in _pod_values(last).items()}
    raw.created = _pod_values(q.per_chunk(client, w, q.created, ("namespace", "pod"), max))
    for labels in q.labels_per_chunk(client, w, q.outcomes):
        raw.outcomes[(labels.get("namespace", ""), labels.get("pod", ""))] = labels.get("phase", "")
    for series in client.instant(q.RUNNING, w.end - w.step):
        raw.running_at_end.add((series.labels.get("namespace", ""), series.labels.get("pod", "")))
    for labels in q.labels_per_chunk(client, w, q.pod_labels):
        raw.pod_labels[(labels.get("namespace", ""), labels.get("pod", ""))] = labels
    for labels in q.labels_per_chunk(client, w, q.pod_images):
        raw.images.setdefault((labels.get("namespace", ""), labels.get("pod", "")), labels.get("image", ""))


def _activity_notes(raw: RawData) -> None:
    if raw.allocated and raw.activity_source == q.UTILIZATION:
        raw.notes.append(
            f"{q.PROFILING} is missing: useful GPU time is weighted by {q.UTILIZATION} "
            "(percent of time a kernel ran), which overstates how busy the GPU was; "
            "MIG instances have no utilisation and count as idle."
        )
    elif raw.allocated and raw.fallback_pods:
        raw.notes.append(
            f"{len(raw.fallback_pods)} pod(s) have no {q.PROFILING} series: their useful time is "
            f"weighted by {q.UTILIZATION} instead."
        )
    elif raw.allocated and not raw.activity_source:
        raw.notes.append(
            f"No DCGM activity series ({q.PROFILING} or {q.UTILIZATION}) with pod labels: "
            "useful GPU time is 0; enable the DCGM exporter's Kubernetes pod mapping."
        )


def _pod_values(values: dict[tuple[str, ...], float]) -> dict[PodKey, float]:
    return {(k[0], k[1]): v for k, v in values.items()}


def _nodes(client: PromClient, w: q.Window, raw: RawData) -> None:
    step = int(w.step)
    for at, span in w.chunks():
        for series in client.instant(q.node_steps(span, step), at):
            raw.nodes.append((series.labels, series.samples[0][1] * w.step / 3600))
    raw.allocatable = q.per_chunk(client, w, q.allocatable, ("node", "resource"), max)
    raw.nodes_at_end = {s.labels.get("node", "") for s in client.instant(q.NODES_NOW, w.end - w.step)}
    if not raw.nodes:
        raw.notes.append(
            "No kube_node_labels series in the window: provisioned and unallocated GPU time "
            "are unknown (is kube-state-metrics scraped?)."
        )


def _platform(client: PromClient, w: q.Window, raw: RawData) -> None:
    for at, span in w.chunks():
        for series in client.instant(q.xid_gpus(span), at):
            entry = (_host(series.labels), series.labels.get("gpu", ""), int(series.samples[0][1]))
            raw.xids = [x for x in raw.xids if x[:2] != entry[:2]] + [entry]
        for series in client.instant(q.max_temperature(span), at):
            host = _host(series.labels)
            raw.max_temp[host] = max(raw.max_temp.get(host, -math.inf), series.samples[0][1])
        for series in client.instant(q.max_fb_used(span), at):
            host = _host(series.labels)
            raw.max_fb_used_mib[host] = max(raw.max_fb_used_mib.get(host, 0.0), series.samples[0][1])
    watts = q.integrate(client, w, q.POWER, ("Hostname", "hostname"))
    raw.energy_kwh = {(k[0] or k[1]): v / 1000 for k, v in watts.items()}
    raw.kueue_pending = {
        s.labels.get("cluster_queue", ""): s.samples[0][1]
        for s in client.instant(q.KUEUE_PENDING, w.end - w.step)
    }
    span = f"{round(w.end - w.start)}s"
    raw.kueue_wait_s = {
        s.labels.get("cluster_queue", ""): s.samples[0][1]
        for s in client.instant(q.kueue_wait(span), w.end - w.step)
    }
    raw.kueue_usage = {
        (s.labels.get("cluster_queue", ""), s.labels.get("resource", "")): s.samples[0][1]
        for s in client.instant(q.KUEUE_USAGE, w.end - w.step)
    }
    if not raw.kueue_pending and not raw.kueue_wait_s:
        raw.notes.append(
            "No Kueue metrics (kueue_pending_workloads, kueue_admission_wait_time_seconds, "
            "kueue_cluster_queue_resource_usage): "
            "queue views are left out."
        )


def _charts(client: PromClient, w: q.Window, raw: RawData) -> None:
    step = max(w.step, math.ceil((w.end - w.start) / CHART_POINTS / w.step) * w.step)
    raw.chart_step = step
    last = w.end - w.step

    def grab(query: str, by: tuple[str, ...]) -> dict[tuple[str, ...], Points]:
        series: list[Series] = client.range(query, w.start, last, step)
        return {tuple(s.labels.get(n, "") for n in by): s.samples for s in series}

    raw.alloc_series = grab(q.ALLOCATED, ("namespace", "pod", "node", "resource"))
    by = ("namespace", "pod", "GPU_I_PROFILE")
    if raw.activity_source.startswith(q.PROFILING):
        raw.activity_series = grab(q.activity(q.PROFILING), by)
    if raw.activity_source.endswith(q.UTILIZATION):
        util = grab(q.activity(q.UTILIZATION), by)
        raw.activity_series.update(
            {
                k: v
                for k, v in util.items()
                if k[:2] in raw.fallback_pods or raw.activity_source == q.UTILIZATION
            }
        )
    nodes = grab(q.NODES_NOW, ("node",))
    raw.node_series = {k[0]: v for k, v in nodes.items()}


def gather(client: PromClient, window: q.Window, *, charts: bool = True) -> RawData:
    """Run every query for `window`; optional series that are absent only add notes."""
    raw = RawData(window)
    client.build_info()
    _pods(client, window, raw)
    _nodes(client, window, raw)
    _platform(client, window, raw)
    if charts:
        _charts(client, window, raw)
    raw.queries = client.queries
    return raw
