"""How each exporter shows an event table: kube-state-metrics, dcgm-exporter (as scraped) and Kueue.

The exporters' behaviour that these functions follow is listed, with sources, in the docstring
of `tests.support.exporter_series`.
"""

from __future__ import annotations

import math
import random
import zlib
from collections import defaultdict
from collections.abc import Iterator
from itertools import pairwise

from gpuplane.vocab import ksm_label, ksm_resource
from tests.support.event_table import (
    FB,
    KUEUE_BUCKETS,
    PHASES,
    POWER,
    PROF,
    TEMP,
    UTIL,
    XID,
    Admission,
    Emitter,
    Gpu,
    Node,
    Pod,
    Table,
    pod_gone,
    run_end,
)

# -- kube-state-metrics ---------------------------------------------------------------------------


def _allowed(labels: dict[str, str], allowlist: tuple[str, ...] | None) -> dict[str, str] | None:
    if allowlist is None:
        return None
    keys = sorted(labels) if not allowlist else [k for k in allowlist if k in labels]
    return {ksm_label(k): labels[k] for k in keys}


def ksm_nodes(t: Table, out: Emitter) -> None:
    for node in t.nodes:
        info = {
            "node": node.name,
            "kernel_version": "6.8.0",
            "kubelet_version": "v1.30.4",
            "provider_id": f"azure:///{node.name}",
        }
        out.add("kube_node_info", info, node.start, node.end, 1)
        labels = _allowed(node.labels, t.node_label_allowlist)
        if labels is not None:
            out.add("kube_node_labels", {"node": node.name, **labels}, node.start, node.end, 1)
        resources = {"cpu": ("core", 16), "memory": ("byte", 128 * 2**30)}
        resources.update({ksm_resource(r): ("integer", n) for r, n in node.allocatable.items()})
        for resource, (unit, value) in resources.items():
            for metric in ("kube_node_status_allocatable", "kube_node_status_capacity"):
                out.add(
                    metric,
                    {"node": node.name, "resource": resource, "unit": unit},
                    node.start,
                    node.end,
                    value,
                )


def _phase_segments(t: Table, pod: Pod, gone: float) -> dict[str, tuple[float, float]]:
    """Phase -> the span it is 1 (every phase series lives over [created, gone))."""
    spans = {"Pending": (pod.created, pod.start), "Running": (pod.start, run_end(t, pod))}
    if pod.outcome != "Running":
        spans[pod.outcome] = (pod.end, gone)
    return spans


def ksm_pods(t: Table, out: Emitter) -> None:
    for pod in t.pods:
        gone = pod_gone(t, pod)
        ident = {"namespace": pod.namespace, "pod": pod.name, "uid": f"uid-{pod.name}"}
        spans = _phase_segments(t, pod, gone)
        for phase in PHASES:
            lo, hi = spans.get(phase, (gone, gone))
            labels = {**ident, "phase": phase}
            for a, b, value in ((pod.created, lo, 0.0), (lo, hi, 1.0), (max(hi, pod.created), gone, 0.0)):
                out.add("kube_pod_status_phase", labels, a, b, value)
        requests = {
            ksm_resource(pod.resource): ("integer", pod.units),
            "cpu": ("core", 4),
            "memory": ("byte", 16 * 2**30),
        }
        for resource, (unit, value) in requests.items():
            for node, lo, hi in (("", pod.created, pod.start), (pod.node, pod.start, gone)):
                labels = {**ident, "container": "main", "node": node, "resource": resource, "unit": unit}
                out.add("kube_pod_container_resource_requests", labels, lo, hi, value)
        info = {
            **ident,
            "container": "main",
            "image_spec": pod.image,
            "image": pod.image,
            "image_id": f"{pod.image}@sha256:0",
        }
        out.add("kube_pod_container_info", info, pod.created, gone, 1)
        pod_labels = _allowed(pod.labels, t.pod_label_allowlist)
        if pod_labels is not None:
            out.add("kube_pod_labels", {**ident, **pod_labels}, pod.created, gone, 1)
        out.add("kube_pod_created", ident, pod.created, gone, pod.created)


# -- dcgm-exporter ----------------------------------------------------------------------------------

EXPORTER_POD = {
    "namespace": "gpu-operator",
    "pod": "nvidia-dcgm-exporter-x7k2p",
    "container": "nvidia-dcgm-exporter",
}


def _target(node: Node) -> dict[str, str]:
    """The scrape target labels the ServiceMonitor adds (the exporter's own pod)."""
    return {
        "instance": f"10.0.0.{zlib.crc32(node.name.encode()) % 250 + 1}:9400",
        "job": "nvidia-dcgm-exporter",
        "service": "nvidia-dcgm-exporter",
        "endpoint": "gpu-metrics",
        **EXPORTER_POD,
    }


def _holder_labels(node: Node, pod: Pod | None, vgpu: int | None = None) -> dict[str, str]:
    """Scraped labels for a series whose device `pod` holds (None: no holder)."""
    target = _target(node)
    if pod is None:
        return target
    mine = {"pod": pod.name, "namespace": pod.namespace, "container": "main"}
    if vgpu is not None:
        mine["vgpu"] = str(vgpu)
    if node.dcgm.honor_labels:
        return {**target, **mine}
    return {
        **target,
        **{f"exported_{k}" if k in ("pod", "namespace", "container") else k: v for k, v in mine.items()},
    }


def _device_base(node: Node, index: int, gpu: Gpu, mig: tuple[int, str] | None) -> dict[str, str]:
    base = {
        "gpu": str(index),
        "UUID": gpu.uuid,
        "pci_bus_id": f"00000000:{index + 1:02X}:00.0",
        "device": f"nvidia{index}",
        "modelName": node.model,
    }
    if mig is not None:
        base.update({"GPU_I_PROFILE": mig[1], "GPU_I_ID": str(mig[0])})
    base[node.dcgm.hostname_label] = node.name
    base["DCGM_FI_DRIVER_VERSION"] = "550.90.07"
    return base


def _holders(t: Table, node: Node, index: int, instance: int | None) -> list[Pod]:
    return [p for p in t.pods if p.node == node.name and (index, instance) in p.devices]


def _gpu_pods(t: Table, node: Node, index: int) -> list[Pod]:
    return [p for p in t.pods if p.node == node.name and any(d[0] == index for d in p.devices)]


def _cuts(t: Table, node: Node, pods: list[Pod]) -> list[float]:
    points = {max(node.start, t.start), min(node.end, t.end)}
    points |= {x for p in pods for x in (p.start, run_end(t, p)) if node.start < x < node.end}
    points |= {x for n, _g, a, b, _c in t.xids if n == node.name for x in (a, b) if node.start < x < node.end}
    return sorted(points)


def _running(t: Table, pods: list[Pod], at: float) -> list[Pod]:
    return [p for p in pods if p.start <= at < run_end(t, p)]


def _xid(t: Table, node: Node, index: int, at: float) -> int:
    return next((c for n, g, a, b, c in t.xids if n == node.name and g == index and a <= at < b), 0)


def _values(t: Table, node: Node, index: int, gpu: Gpu, holders: list[Pod], at: float) -> dict[str, float]:
    """Every metric's value on one device series at time `at` (constant until the next cut)."""
    running = _running(t, holders, at)
    activity = min(1.0, sum(p.activity for p in running))
    power = gpu.idle_w + sum(p.power_w for p in _running(t, _gpu_pods(t, node, index), at))
    return {
        PROF: round(activity, 6),
        UTIL: float(round(activity * 100)),
        POWER: power,
        TEMP: round(30 + power / 10),
        FB: float(1024 * len(running)),
        XID: float(_xid(t, node, index, at)),
    }


def _emit_device(
    t: Table, node: Node, index: int, gpu: Gpu, mig: tuple[int, str] | None, out: Emitter, rng: random.Random
) -> None:
    holders = _holders(t, node, index, mig[0] if mig else None)
    base = _device_base(node, index, gpu, mig)
    metrics = [m for m in node.dcgm.metrics if not (mig and m == UTIL)]  # no GPU_UTIL for MIG instances
    cuts = _cuts(t, node, holders + _gpu_pods(t, node, index))
    for lo, hi in pairwise(cuts):
        values = _values(t, node, index, gpu, holders, lo)
        for labels, a, b in _label_spans(t, node, _running(t, holders, lo), lo, hi, rng):
            for metric in metrics:
                xid = {
                    "err_code": str(int(values[XID])),
                    "err_msg": "No Error" if not values[XID] else "Unknown",
                }
                extra = xid if metric == XID else {}
                out.add(metric, {**base, **extra, **labels}, a, b, values[metric])


def _label_spans(
    t: Table, node: Node, running: list[Pod], lo: float, hi: float, rng: random.Random
) -> Iterator[tuple[dict[str, str], float, float]]:
    """The pod labels of a device's series over [lo, hi).

    Exclusive devices name their one holder. Shared devices with KUBERNETES_VIRTUAL_GPUS have one
    series per replica held (`vgpu` = the replica); without it one series naming one of the
    running sharers, picked anew at every scrape.
    """
    if node.replicas > 1 and node.dcgm.virtual_gpus and running:
        replica = 0
        for pod in running:
            for _ in range(pod.units):
                replica += 1
                yield _holder_labels(node, pod, vgpu=replica), lo, hi
    elif len(running) > 1:
        for at in t.times(lo, hi):
            yield _holder_labels(node, rng.choice(running)), at, at + t.scrape_s
    else:
        yield _holder_labels(node, running[0] if running else None), lo, hi


def dcgm(t: Table, out: Emitter) -> None:
    rng = random.Random(t.seed)
    for node in t.nodes:
        for index, gpu in enumerate(node.gpus):
            for mig in gpu.mig or (None,):
                _emit_device(t, node, index, gpu, mig, out, rng)


# -- Kueue ----------------------------------------------------------------------------------------


def kueue(t: Table, out: Emitter) -> None:
    role = {"replica_role": "standalone"}
    for queue in t.queues:
        steps = [*queue.pending, (t.end, 0, 0)]
        for (at, active, inadmissible), (until, _a, _i) in pairwise(steps):
            for status, value in (("active", active), ("inadmissible", inadmissible)):
                labels = {"cluster_queue": queue.name, "status": status, **role}
                out.add("kueue_pending_workloads", labels, max(at, t.start), until, value)
        out.add(
            "kueue_admitted_active_workloads",
            {"cluster_queue": queue.name, **role},
            t.start,
            t.end,
            queue.admitted,
        )
        if t.kueue_resource_usage:
            usage = {
                "cohort": queue.cohort,
                "cluster_queue": queue.name,
                "flavor": "default",
                "resource": "nvidia.com/gpu",
                **role,
            }
            out.add("kueue_cluster_queue_resource_usage", usage, t.start, t.end, queue.usage_gpus)
    bounds = [t.start - 10 * 86400, *sorted(t.kueue_restarts), t.end]
    for lo, hi in pairwise(bounds):
        children: dict[tuple[str, str], list[Admission]] = defaultdict(list)
        for admission in sorted(t.admissions, key=lambda a: a.at):
            if lo <= admission.at < hi:
                children[(admission.queue, admission.priority_class)].append(admission)
        for (queue_name, priority), events in children.items():
            labels = {"cluster_queue": queue_name, "priority_class": priority, **role}
            _histogram(t, out, labels, events, hi)


def _histogram(t: Table, out: Emitter, labels: dict[str, str], events: list[Admission], until: float) -> None:
    """A child born at its first observation (in this Kueue process), gone at `until`; its counters
    step at each admission."""
    name = "kueue_admission_wait_time_seconds"
    times = [e.at for e in events] + [until]
    for i, (lo, hi) in enumerate(pairwise(times)):
        seen = events[: i + 1]
        for le in (*KUEUE_BUCKETS, math.inf):
            count = sum(1 for e in seen if e.wait_s <= le)
            bound = "+Inf" if le == math.inf else repr(le)
            out.add(f"{name}_bucket", {**labels, "le": bound}, lo, hi, count, "histogram")
        out.add(f"{name}_count", labels, lo, hi, len(seen), "histogram")
        out.add(f"{name}_sum", labels, lo, hi, sum(e.wait_s for e in seen), "histogram")
