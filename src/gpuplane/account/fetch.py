"""Fetch everything `account` needs from Prometheus into one `RawData` record (the only I/O step).

Absent optional series (profiling metrics, XID, Kueue, pod labels) leave their part empty;
`notes` later says what that means. Empty answers are ordinary: a window with no GPU pod,
a pool scaled to zero, a queue that admitted nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from gpuplane.account import kueue_wait, shared_gpus
from gpuplane.account import queries as q
from gpuplane.account.chunked import any_chunk, integrate, labels_per_chunk, per_chunk
from gpuplane.account.prom import PromClient
from gpuplane.account.raw import Activity, PodKey, RawData
from gpuplane.account.window import Window

CHART_POINTS = 240
ALLOC_BY = ("namespace", "pod", "node", "resource")
ACTIVITY_BY = ("namespace", "pod", "GPU_I_PROFILE", "kind")


def _pod(labels: dict[str, str]) -> PodKey:
    return labels.get("namespace", ""), labels.get("pod", "")


def _host(labels: dict[str, str]) -> str:
    return labels.get("Hostname") or labels.get("hostname") or ""


def _pods(client: PromClient, w: Window, raw: RawData) -> None:
    raw.allocated = integrate(client, w, q.ALLOCATED, ALLOC_BY)
    raw.allocated_at_end = {
        tuple(s.labels.get(n, "") for n in ALLOC_BY): s.value for s in client.instant(q.ALLOCATED, w.last)
    }
    step = int(w.step)
    first = per_chunk(client, w, lambda r: q.first_running(r, step), ("namespace", "pod"), min)
    raw.first_running = {(k[0], k[1]): v for k, v in first.items()}
    last = per_chunk(client, w, lambda r: q.last_running(r, step), ("namespace", "pod"), max)
    raw.last_running = {(k[0], k[1]): v + w.step for k, v in last.items()}
    created = per_chunk(client, w, q.created, ("namespace", "pod"), max)
    raw.created = {(k[0], k[1]): v for k, v in created.items()}
    for labels in labels_per_chunk(client, w, q.outcomes):
        raw.outcomes[_pod(labels)] = labels.get("phase", "")
    raw.running_at_end = {_pod(s.labels) for s in client.instant(q.RUNNING, w.last)}
    raw.pod_labels_seen = any_chunk(client, w, q.pod_labels_seen) > 0
    for labels in labels_per_chunk(client, w, q.pod_labels):
        raw.pod_labels[_pod(labels)] = labels
    for labels in labels_per_chunk(client, w, q.pod_images):
        raw.images.setdefault(_pod(labels), labels.get("image", ""))


def _units(raw: RawData) -> dict[PodKey, float]:
    """Units each pod requested (unit-hours over its running hours)."""
    hours: dict[PodKey, float] = {}
    for (ns, pod, _node, _resource), unit_h in raw.allocated.items():
        hours[(ns, pod)] = hours.get((ns, pod), 0.0) + unit_h
    out: dict[PodKey, float] = {}
    for key, unit_h in hours.items():
        start, end = raw.first_running.get(key), raw.last_running.get(key)
        out[key] = unit_h / ((end - start) / 3600) if start is not None and end and end > start else 1.0
    return out


def _activity(client: PromClient, w: Window, raw: RawData, labels: q.PodLabels) -> None:
    spans = {
        k: (raw.first_running[k], raw.last_running[k]) for k in raw.first_running if k in raw.last_running
    }
    units = _units(raw)
    for metric in q.ACTIVITY_METRICS:
        figures = integrate(client, w, q.activity(metric, labels), ACTIVITY_BY)
        activity = Activity(
            active={(k[0], k[1], k[2]): v for k, v in figures.items() if k[3] == "active"},
            measured={(k[0], k[1], k[2]): v for k, v in figures.items() if k[3] == "measured"},
        )
        holders = shared_gpus.device_holders(labels_per_chunk(client, w, _holders_query(metric, labels)))
        found = shared_gpus.candidates(holders, spans, w.step)
        split = shared_gpus.find_split(client, w, metric, labels, found, units)
        shared_gpus.apply(activity, split)
        raw.shared_gpus.extend(split.gpus)
        raw.activity[metric] = activity
        raw.split_steps[metric] = dict(split.per_step)


def _holders_query(metric: str, labels: q.PodLabels) -> Callable[[str], str]:
    return lambda r: q.holders(metric, labels, r)


def _labels_mode(client: PromClient, w: Window, raw: RawData) -> q.PodLabels:
    labels = q.EXPORTED if any_chunk(client, w, q.exported_probe) > 0 else q.HONORED
    raw.pod_label_names = (labels.pod, labels.namespace)
    return labels


def _nodes(client: PromClient, w: Window, raw: RawData) -> None:
    step = int(w.step)
    for at, span in w.chunks():
        for series in client.instant(q.node_steps(span, step), at):
            raw.nodes.append((series.labels, series.value * w.step / 3600))
    raw.node_labels_seen = any_chunk(client, w, q.node_labels_seen) > 0
    raw.allocatable = per_chunk(client, w, q.allocatable, ("node", "resource"), max)
    for key, gpus in per_chunk(client, w, q.gpus_per_host, q.HOST_LABELS, max).items():
        raw.gpus_per_host[key[0] or key[1]] = max(raw.gpus_per_host.get(key[0] or key[1], 0.0), gpus)
    raw.nodes_at_end = {s.labels.get("node", "") for s in client.instant(q.NODES_NOW, w.last)}


def _platform(client: PromClient, w: Window, raw: RawData) -> None:
    for at, span in w.chunks():
        for series in client.instant(q.xid_gpus(span), at):
            entry = (_host(series.labels), series.labels.get("gpu", ""), int(series.value))
            raw.xids = [x for x in raw.xids if x[:2] != entry[:2]] + [entry]
        for series in client.instant(q.max_temperature(span), at):
            host = _host(series.labels)
            raw.max_temp[host] = max(raw.max_temp.get(host, -math.inf), series.value)
        for series in client.instant(q.max_fb_used(span), at):
            host = _host(series.labels)
            raw.max_fb_used_mib[host] = max(raw.max_fb_used_mib.get(host, 0.0), series.value)
    watts = integrate(client, w, q.POWER, q.HOST_LABELS)
    for key, watt_h in watts.items():
        host = key[0] or key[1]
        raw.energy_kwh[host] = raw.energy_kwh.get(host, 0.0) + watt_h / 1000


def _kueue(client: PromClient, w: Window, raw: RawData) -> None:
    k = raw.kueue
    k.pending = {s.labels.get("cluster_queue", ""): s.value for s in client.instant(q.KUEUE_PENDING, w.last)}
    k.admitted = {
        s.labels.get("cluster_queue", ""): s.value for s in client.instant(q.KUEUE_ADMITTED, w.last)
    }
    k.admissions, k.wait_sum_s = kueue_wait.admissions(client, w)
    k.histogram_seen = (
        bool(k.admissions)
        or any_chunk(client, w, lambda r: f"count(max_over_time({q.KUEUE_WAIT_COUNT}[{r}]))") > 0
    )
    k.usage = {
        (s.labels.get("cluster_queue", ""), s.labels.get("resource", "")): s.value
        for s in client.instant(q.KUEUE_USAGE, w.last)
    }


def _charts(client: PromClient, w: Window, raw: RawData, labels: q.PodLabels) -> None:
    step = max(w.step, math.ceil((w.end - w.start) / CHART_POINTS / w.step) * w.step)
    raw.chart_step = step

    def grab(query: str, by: tuple[str, ...]) -> dict[tuple[str, ...], list[tuple[float, float]]]:
        return {
            tuple(s.labels.get(n, "") for n in by): s.samples
            for s in client.range(query, w.start, w.last, step)
        }

    raw.alloc_series = grab(q.ALLOCATED, ALLOC_BY)
    partly = _partly_measured(raw)
    for metric, activity in raw.activity.items():
        if not activity.measured:
            continue
        series = grab(q.activity(metric, labels, measured=partly), ACTIVITY_BY)
        activity.active_series = {(k[0], k[1], k[2]): v for k, v in series.items() if k[3] == "active"}
        activity.measured_series = {(k[0], k[1], k[2]): v for k, v in series.items() if k[3] == "measured"}
        _chart_split(raw, metric, activity, w, step)
    raw.node_series = {k[0]: v for k, v in grab(q.NODES_NOW, ("node",)).items()}


def _partly_measured(raw: RawData) -> bool:
    """Whether some pod's devices were measured for less than its allocation (in unit-hours).

    Only then do the charts need the measured-device series; otherwise measured is allocated.
    """
    allocated: dict[PodKey, float] = {}
    for (ns, pod, _node, _resource), unit_h in raw.allocated.items():
        allocated[(ns, pod)] = allocated.get((ns, pod), 0.0) + unit_h
    measured: dict[PodKey, float] = {}
    for activity in raw.activity.values():
        per_pod: dict[PodKey, float] = {}
        for (ns, pod, _profile), unit_h in activity.measured.items():
            per_pod[(ns, pod)] = per_pod.get((ns, pod), 0.0) + unit_h
        for key, unit_h in per_pod.items():
            measured[key] = max(measured.get(key, 0.0), unit_h)
    return any(measured.get(key, 0.0) < unit_h * (1 - 1e-9) for key, unit_h in allocated.items())


def _chart_split(raw: RawData, metric: str, activity: Activity, w: Window, step: float) -> None:
    """Chart points of pods on flipping shared GPUs come from the split, not from their labels."""
    per_step = raw.split_steps.get(metric, {})
    pods = {(k[0], k[1]) for k in per_step}
    for table in (activity.active_series, activity.measured_series):
        for key in [k for k in table if (k[0], k[1]) in pods]:
            del table[key]
    stride = round(step / w.step)
    for key, steps in per_step.items():
        times = [(i, w.start + i * w.step) for i in sorted(steps) if i % stride == 0]
        activity.active_series[key] = [(t, steps[i][0]) for i, t in times]
        activity.measured_series[key] = [(t, steps[i][1]) for i, t in times]


def gather(client: PromClient, window: Window, *, charts: bool = True) -> RawData:
    """Run every query for `window`; optional series that are absent leave their part empty."""
    raw = RawData(window)
    client.build_info()
    labels = _labels_mode(client, window, raw)
    _pods(client, window, raw)
    _activity(client, window, raw, labels)
    _nodes(client, window, raw)
    _platform(client, window, raw)
    _kueue(client, window, raw)
    if charts:
        _charts(client, window, raw, labels)
    raw.queries = client.queries
    return raw
