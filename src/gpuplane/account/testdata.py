"""A generator of DCGM-exporter and kube-state-metrics series whose true GPU-hours are known exactly.

A `Scenario` lists nodes (with their lifetime) and GPU pods (node, request, running interval,
outcome, engine activity). `write_openmetrics` writes what Prometheus would have scraped every
`scrape_s` seconds, as OpenMetrics files that `promtool tsdb create-blocks-from openmetrics` turns
into TSDB blocks; `truth` integrates the same signals at the scrape resolution, which is exact
for signals that are constant between scrapes.

Series follow the real exporters: DCGM labels `gpu, UUID, device, modelName, Hostname,
DCGM_FI_DRIVER_VERSION` plus `container, namespace, pod` while a pod holds the GPU and
`GPU_I_PROFILE, GPU_I_ID` on MIG instances (nvidia.md 6.2); kube-state-metrics spells resources
with underscores (`nvidia_com_gpu`, `nvidia_com_mig_1g_10gb`) and node labels as `label_*`.
Time-sliced GPUs carry one series per pod sharing them, each with the whole GPU's activity.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from gpuplane.vocab import ksm_resource

BLOCK_S = 7200  # promtool cuts 2-hour blocks; one file per block keeps it to one pass per file
DCGM_GPU_METRICS = (
    ("DCGM_FI_DEV_GPU_UTIL", "gauge"),
    ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge"),
    ("DCGM_FI_DEV_FB_USED", "gauge"),
    ("DCGM_FI_DEV_FB_FREE", "gauge"),
    ("DCGM_FI_DEV_POWER_USAGE", "gauge"),
    ("DCGM_FI_DEV_GPU_TEMP", "gauge"),
    ("DCGM_FI_DEV_XID_ERRORS", "gauge"),
)


@dataclass(frozen=True)
class Node:
    """A GPU node alive over [start, end)."""

    name: str
    pool: str
    accelerator: str
    model_name: str
    gpus: int
    start: float
    end: float
    mode: str = "exclusive"  # exclusive | mig | time-slicing
    mig_layout: tuple[str, ...] = ()
    replicas: int = 1
    fb_total_mib: int = 81920
    idle_power_w: float = 60.0
    max_power_w: float = 300.0


@dataclass(frozen=True)
class Pod:
    """A GPU pod: created, then Running on `node` over [start, end), then `outcome`.

    `devices` names what it holds: GPU indexes, or (GPU index, MIG profile, GPU instance id).
    `activity` is the engine-active ratio; `diurnal` adds a day-long sine of that amplitude.
    """

    namespace: str
    name: str
    node: str
    resource: str
    units: int
    created: float
    start: float
    end: float
    outcome: str  # Succeeded | Failed | Running
    activity: float
    devices: tuple[tuple[int, str, str], ...]
    diurnal: float = 0.0
    team_label: str = ""
    queue: str = ""
    job: str = ""
    image: str = "registry.example/train:1.0"
    fraction: float = 1.0  # of one physical GPU per unit

    def activity_at(self, t: float) -> float:
        """Engine activity at time t (0..1)."""
        value = self.activity + self.diurnal * math.sin(2 * math.pi * (t - self.start) / 86400)
        return min(max(value, 0.0), 1.0)


@dataclass
class Scenario:
    """Everything the generator writes: a window, the scrape interval, nodes, pods, XID events."""

    start: float
    end: float
    scrape_s: float
    nodes: list[Node]
    pods: list[Pod]
    xids: list[tuple[str, int, float, float, int]] = field(default_factory=list)  # node, gpu, from, to, code
    linger_s: float = 1800.0  # completed pods stay (phase Succeeded/Failed) this long before deletion
    kueue_queues: tuple[str, ...] = ()
    dcgm_metrics: tuple[tuple[str, str], ...] = DCGM_GPU_METRICS

    def times(self, start: float, end: float) -> range:
        """Scrape timestamps (integers) in [start, end) within the scenario window."""
        lo = max(start, self.start)
        hi = min(end, self.end)
        step = int(self.scrape_s)
        first = int(math.ceil(lo / step) * step)
        return range(first, int(math.ceil(hi / step) * step), step)


# -- series definitions --------------------------------------------------------------------------

ValueFn = Callable[[float], float]


@dataclass(frozen=True)
class _Def:
    metric: str
    labels: str
    start: float
    end: float
    value: ValueFn


def _labels(pairs: dict[str, str]) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in pairs.items()) + "}"


def _const(value: float) -> ValueFn:
    return lambda _t: value


def _node_defs(sc: Scenario) -> Iterator[_Def]:
    for node in sc.nodes:
        labels = {
            "node": node.name,
            "label_gpuplane_io_pool": node.pool,
            "label_gpuplane_io_accelerator": node.accelerator.lower(),
            "label_kubernetes_azure_com_agentpool": node.pool.replace("-", ""),
        }
        yield _Def("kube_node_labels", _labels(labels), node.start, node.end, _const(1))
        for resource, count in _allocatable(node).items():
            alloc = _labels({"node": node.name, "resource": resource, "unit": "integer"})
            yield _Def("kube_node_status_allocatable", alloc, node.start, node.end, _const(count))


def _allocatable(node: Node) -> dict[str, int]:
    if node.mode == "mig":
        out: dict[str, int] = {}
        for profile in node.mig_layout:
            key = ksm_resource(f"nvidia.com/mig-{profile}")
            out[key] = out.get(key, 0) + node.gpus
        return out
    return {"nvidia_com_gpu": node.gpus * (node.replicas if node.mode == "time-slicing" else 1)}


def _pod_defs(sc: Scenario) -> Iterator[_Def]:
    for pod in sc.pods:
        gone = pod.end + sc.linger_s if pod.outcome != "Running" else sc.end
        ident = {"namespace": pod.namespace, "pod": pod.name, "uid": f"uid-{pod.name}"}
        for phase in ("Pending", "Running", "Succeeded", "Failed"):
            yield _Def(
                "kube_pod_status_phase",
                _labels({**ident, "phase": phase}),
                pod.created,
                gone,
                _phase_fn(pod, phase),
            )
        req = {"namespace": pod.namespace, "pod": pod.name, "uid": f"uid-{pod.name}", "container": "main"}
        yield _Def(
            "kube_pod_container_resource_requests",
            _labels({**req, "node": "", "resource": pod.resource, "unit": "integer"}),
            pod.created,
            pod.start,
            _const(pod.units),
        )
        yield _Def(
            "kube_pod_container_resource_requests",
            _labels({**req, "node": pod.node, "resource": pod.resource, "unit": "integer"}),
            pod.start,
            gone,
            _const(pod.units),
        )
        info = {**req, "image": pod.image}
        yield _Def("kube_pod_container_info", _labels(info), pod.created, gone, _const(1))
        pod_labels = {"namespace": pod.namespace, "pod": pod.name, "uid": f"uid-{pod.name}"}
        if pod.team_label:
            pod_labels["label_gpuplane_io_team"] = pod.team_label
        if pod.queue:
            pod_labels["label_kueue_x_k8s_io_queue_name"] = pod.queue
        if pod.job:
            pod_labels["label_job_name"] = pod.job
        yield _Def("kube_pod_labels", _labels(pod_labels), pod.created, gone, _const(1))
        yield _Def("kube_pod_created", _labels(ident), pod.created, gone, _const(pod.created))


def _phase_fn(pod: Pod, phase: str) -> ValueFn:
    if phase == "Pending":
        return lambda t: 1.0 if t < pod.start else 0.0
    if phase == "Running":
        return lambda t: 1.0 if pod.start <= t < pod.end else 0.0
    return lambda t: 1.0 if t >= pod.end and pod.outcome == phase else 0.0


def _holders(sc: Scenario) -> dict[tuple[str, int, str], list[Pod]]:
    """(node, gpu index, MIG instance id or '') -> pods that hold that device at some time."""
    out: dict[tuple[str, int, str], list[Pod]] = {}
    for pod in sc.pods:
        for gpu, _profile, gi in pod.devices:
            out.setdefault((pod.node, gpu, gi), []).append(pod)
    return out


def _segments(pods: list[Pod], start: float, end: float) -> list[tuple[float, float, Pod | None]]:
    """Split [start, end) into intervals held by one pod (exclusive devices) or by none."""
    out: list[tuple[float, float, Pod | None]] = []
    cursor = start
    for pod in sorted(pods, key=lambda p: p.start):
        if pod.start > cursor:
            out.append((cursor, pod.start, None))
        out.append((pod.start, pod.end, pod))
        cursor = max(cursor, pod.end)
    if cursor < end:
        out.append((cursor, end, None))
    return out


def _gpu_base(node: Node, gpu: int) -> dict[str, str]:
    return {
        "gpu": str(gpu),
        "UUID": f"GPU-{node.name}-{gpu:02d}",
        "device": f"nvidia{gpu}",
        "modelName": node.model_name,
        "Hostname": node.name,
        "DCGM_FI_DRIVER_VERSION": "550.90.07",
    }


def _pod_labels(pod: Pod | None) -> dict[str, str]:
    return {"container": "main", "namespace": pod.namespace, "pod": pod.name} if pod else {}


def _dcgm_defs(sc: Scenario) -> Iterator[_Def]:
    holders = _holders(sc)
    for node in sc.nodes:
        for gpu in range(node.gpus):
            base = _gpu_base(node, gpu)
            if node.mode == "time-slicing":
                yield from _shared_gpu_defs(sc, node, gpu, base, holders.get((node.name, gpu, ""), []))
                continue
            if node.mode == "mig":
                for gi, profile in enumerate(node.mig_layout, start=1):
                    pods = holders.get((node.name, gpu, str(gi)), [])
                    mig = {**base, "GPU_I_PROFILE": profile, "GPU_I_ID": str(gi)}
                    for lo, hi, pod in _segments(pods, node.start, node.end):
                        mig_text = _labels({**mig, **_pod_labels(pod)})
                        yield _Def("DCGM_FI_PROF_GR_ENGINE_ACTIVE", mig_text, lo, hi, _activity(pod))
                yield from _device_defs(
                    sc, node, gpu, base, node.start, node.end, _mig_gpu_activity(sc, node, gpu)
                )
                continue
            for lo, hi, pod in _segments(holders.get((node.name, gpu, ""), []), node.start, node.end):
                labels = {**base, **_pod_labels(pod)}
                yield _Def("DCGM_FI_PROF_GR_ENGINE_ACTIVE", _labels(labels), lo, hi, _activity(pod))
                yield _Def("DCGM_FI_DEV_GPU_UTIL", _labels(labels), lo, hi, _util(pod))
                yield from _device_defs(sc, node, gpu, labels, lo, hi, _activity(pod))


def _activity(pod: Pod | None) -> ValueFn:
    return pod.activity_at if pod else _const(0.0)


def _util(pod: Pod | None) -> ValueFn:
    return (lambda t: float(round(pod.activity_at(t) * 100))) if pod else _const(0.0)


def _mig_gpu_activity(sc: Scenario, node: Node, gpu: int) -> ValueFn:
    pods = [p for p in sc.pods if p.node == node.name and any(d[0] == gpu for d in p.devices)]
    return lambda t: min(1.0, sum(p.activity_at(t) * p.fraction for p in pods if p.start <= t < p.end))


def _shared_activity(pods: list[Pod]) -> ValueFn:
    return lambda t: min(1.0, sum(p.activity_at(t) for p in pods if p.start <= t < p.end))


def _shared_gpu_defs(
    sc: Scenario, node: Node, gpu: int, base: dict[str, str], pods: list[Pod]
) -> Iterator[_Def]:
    gpu_activity = _shared_activity(pods)
    for pod in pods:
        labels = _labels({**base, **_pod_labels(pod)})
        yield _Def("DCGM_FI_PROF_GR_ENGINE_ACTIVE", labels, pod.start, pod.end, gpu_activity)
        yield _Def(
            "DCGM_FI_DEV_GPU_UTIL", labels, pod.start, pod.end, lambda t: float(round(gpu_activity(t) * 100))
        )
    yield _Def(
        "DCGM_FI_DEV_GPU_UTIL",
        _labels(base),
        node.start,
        node.end,
        lambda t: float(round(gpu_activity(t) * 100)),
    )
    yield from _device_defs(sc, node, gpu, base, node.start, node.end, gpu_activity)


def _device_defs(
    sc: Scenario, node: Node, gpu: int, labels: dict[str, str], lo: float, hi: float, activity: ValueFn
) -> Iterator[_Def]:
    """Whole-GPU health series: memory, power (follows activity), temperature, XID."""
    text = _labels(labels)
    wanted = {m for m, _ in sc.dcgm_metrics}
    span = node.max_power_w - node.idle_power_w
    if "DCGM_FI_DEV_FB_USED" in wanted:
        yield _Def(
            "DCGM_FI_DEV_FB_USED", text, lo, hi, lambda t: float(round(activity(t) * 0.8 * node.fb_total_mib))
        )
        yield _Def(
            "DCGM_FI_DEV_FB_FREE",
            text,
            lo,
            hi,
            lambda t: float(node.fb_total_mib - round(activity(t) * 0.8 * node.fb_total_mib)),
        )
    if "DCGM_FI_DEV_POWER_USAGE" in wanted:
        yield _Def(
            "DCGM_FI_DEV_POWER_USAGE",
            text,
            lo,
            hi,
            lambda t: round(node.idle_power_w + span * activity(t), 3),
        )
        yield _Def("DCGM_FI_DEV_GPU_TEMP", text, lo, hi, lambda t: float(round(32 + 45 * activity(t))))
    if "DCGM_FI_DEV_XID_ERRORS" in wanted:
        events = [(a, b, code) for n, g, a, b, code in sc.xids if n == node.name and g == gpu]
        yield _Def("DCGM_FI_DEV_XID_ERRORS", text, lo, hi, _xid_fn(events))


def _xid_fn(events: list[tuple[float, float, int]]) -> ValueFn:
    return lambda t: float(next((code for a, b, code in events if a <= t < b), 0))


def _pending_fn(index: int) -> ValueFn:
    return lambda t: float((int(t // 3600) + index) % 4)


def _kueue_defs(sc: Scenario) -> Iterator[_Def]:
    """Pending workloads, one admission per hour waiting 60 s x (queue index + 1), GPU usage 2."""
    for index, queue in enumerate(sc.kueue_queues):
        labels = _labels({"cluster_queue": queue, "status": "active"})
        yield _Def("kueue_pending_workloads", labels, sc.start, sc.end, _pending_fn(index))
        plain = _labels({"cluster_queue": queue})
        admitted = _admitted_fn(sc.start)
        yield _Def("kueue_admission_wait_time_seconds_count", plain, sc.start, sc.end, admitted)
        yield _Def(
            "kueue_admission_wait_time_seconds_sum", plain, sc.start, sc.end, _wait_sum_fn(admitted, index)
        )
        usage = _labels(
            {"cluster_queue": queue, "cohort": "ml", "flavor": "train", "resource": "nvidia.com/gpu"}
        )
        yield _Def("kueue_cluster_queue_resource_usage", usage, sc.start, sc.end, _const(2.0))


def _wait_sum_fn(admitted: ValueFn, index: int) -> ValueFn:
    return lambda t: admitted(t) * 60.0 * (index + 1)


def _admitted_fn(start: float) -> ValueFn:
    return lambda t: float(int((t - start) // 3600))


def series_definitions(sc: Scenario) -> list[_Def]:
    """Every series of the scenario with its lifetime and value function."""
    defs = [*_node_defs(sc), *_pod_defs(sc), *_dcgm_defs(sc), *_kueue_defs(sc)]
    wanted = {m for m, _ in sc.dcgm_metrics}
    return [d for d in defs if not d.metric.startswith("DCGM_") or d.metric in wanted]


# -- writing -------------------------------------------------------------------------------------

_TYPES = {
    "kube_node_labels": "gauge",
    "kube_node_status_allocatable": "gauge",
    "kube_pod_status_phase": "gauge",
    "kube_pod_container_resource_requests": "gauge",
    "kube_pod_container_info": "gauge",
    "kube_pod_labels": "gauge",
    "kube_pod_created": "gauge",
    "kueue_pending_workloads": "gauge",
    "kueue_cluster_queue_resource_usage": "gauge",
    # the histogram's _sum and _count as plain series (OpenMetrics type unknown keeps their names)
    "kueue_admission_wait_time_seconds_count": "unknown",
    "kueue_admission_wait_time_seconds_sum": "unknown",
    **dict(DCGM_GPU_METRICS),
}


def _value(v: float) -> str:
    return str(int(v)) if v == int(v) else repr(v)


def write_openmetrics(sc: Scenario, folder: Path) -> list[Path]:
    """Write the scenario as OpenMetrics text, one file per 2-hour block; returns the files."""
    folder.mkdir(parents=True, exist_ok=True)
    by_metric: dict[str, list[_Def]] = {}
    for d in series_definitions(sc):
        by_metric.setdefault(d.metric, []).append(d)
    files: list[Path] = []
    block = int(sc.start // BLOCK_S) * BLOCK_S
    while block < sc.end:
        path = folder / f"block-{block}.om"
        with path.open("w", encoding="utf-8") as out:
            for metric in sorted(by_metric):
                out.write(f"# TYPE {metric} {_TYPES.get(metric, 'gauge')}\n")
                for d in by_metric[metric]:
                    prefix = metric + d.labels + " "
                    out.writelines(
                        f"{prefix}{_value(d.value(t))} {t}\n"
                        for t in sc.times(max(d.start, block), min(d.end, block + BLOCK_S))
                    )
            out.write("# EOF\n")
        files.append(path)
        block += BLOCK_S
    return files
