"""Time-sliced and MPS GPUs whose DCGM series names one sharing pod at a time.

Without `KUBERNETES_VIRTUAL_GPUS=true`, dcgm-exporter maps each device to one pod
(transformation/kubernetes.go `toDeviceToPod`: a map filled from the kubelet's pod-resources list,
so which sharing pod wins changes between collections). Summing activity per pod label then
gives each sharing pod only the samples that happened to name it.

Found here as: a GPU whose series named two or more pods that were Running at the same time,
with never more than one pod-labelled series at a step (with the variable set there is one
series per sharing pod). For such a GPU the pod labels are ignored: at every step each pod
holding a replica of it is credited with its replicas' share of the GPU's measured activity,
which is what the per-pod series would have said.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from itertools import pairwise

from gpuplane.account import queries as q
from gpuplane.account.chunked import key_of
from gpuplane.account.prom import PromClient
from gpuplane.account.raw import Activity, ActivityKey, PodKey, SharedGpu
from gpuplane.account.window import Window

Device = tuple[str, ...]  # values of queries.DEVICE_LABELS


@dataclass
class Split:
    """The activity of the pods on shared GPUs, credited per step (unit-hours, like `Activity`)."""

    gpus: list[SharedGpu] = field(default_factory=list)
    active: dict[ActivityKey, float] = field(default_factory=lambda: defaultdict(float))
    measured: dict[ActivityKey, float] = field(default_factory=lambda: defaultdict(float))
    per_step: dict[ActivityKey, dict[int, tuple[float, float]]] = field(
        default_factory=lambda: defaultdict(dict)
    )


def device_holders(holder_labels: list[dict[str, str]]) -> dict[Device, set[PodKey]]:
    """Device -> the GPU-requesting pods its series named (from `queries.holders`)."""
    out: dict[Device, set[PodKey]] = defaultdict(set)
    for labels in holder_labels:
        device = tuple(labels.get(name, "") for name in q.DEVICE_LABELS)
        out[device].add((labels.get("namespace", ""), labels.get("pod", "")))
    return out


def _overlapping(pods: set[PodKey], spans: dict[PodKey, tuple[float, float]], step: float) -> bool:
    ordered = sorted((spans[p] for p in pods if p in spans), key=lambda s: s[0])
    return any(b[0] < a[1] - step for a, b in pairwise(ordered))


def candidates(
    holders: dict[Device, set[PodKey]], spans: dict[PodKey, tuple[float, float]], step: float
) -> dict[Device, set[PodKey]]:
    """Devices named with two or more pods that ran at the same time (shared, or a flipping label)."""
    return {d: pods for d, pods in holders.items() if len(pods) > 1 and _overlapping(pods, spans, step)}


def _index(t: float, w: Window) -> int:
    return round((t - w.start) / w.step)


def _steps(series_samples: list[tuple[float, float]], w: Window) -> dict[int, float]:
    return {_index(t, w): v for t, v in series_samples}


def find_split(
    client: PromClient,
    w: Window,
    metric: str,
    labels: q.PodLabels,
    found: dict[Device, set[PodKey]],
    units: dict[PodKey, float],
) -> Split:
    """Check the candidate devices step by step and credit the flipping ones' activity to their pods."""
    split = Split()
    if not found:
        return split
    uuids = sorted({d[2] or d[3] for d in found})
    counts = {
        key_of(s, q.DEVICE_LABELS): s
        for s in client.range(q.device_pod_series(metric, labels, uuids), w.start, w.last, w.step)
    }
    values = {
        key_of(s, q.DEVICE_LABELS): _steps(s.samples, w)
        for s in client.range(q.device_value(metric, uuids), w.start, w.last, w.step)
    }
    names = sorted({pod for pods in found.values() for _, pod in pods})
    running: dict[PodKey, set[int]] = {}
    for s in client.range(q.running_pods(names), w.start, w.last, w.step):
        running[(s.labels.get("namespace", ""), s.labels.get("pod", ""))] = {
            _index(t, w) for t, _ in s.samples
        }
    for device, pods in sorted(found.items()):
        most = max((v for _, v in counts[device].samples), default=0.0) if device in counts else 0.0
        together = _steps_shared(pods, running)
        if most > 1 or not together:
            continue  # one series per sharing pod (KUBERNETES_VIRTUAL_GPUS), or never shared at once
        _credit(split, device, pods, values.get(device, {}), running, units, w)
        node = device[0] or device[1]
        split.gpus.append(SharedGpu(node, device[2] or device[3], device[4], metric, tuple(sorted(pods))))
    return split


def _steps_shared(pods: set[PodKey], running: dict[PodKey, set[int]]) -> bool:
    seen: set[int] = set()
    for pod in pods:
        steps = running.get(pod, set())
        if seen & steps:
            return True
        seen |= steps
    return False


def _credit(
    split: Split,
    device: Device,
    pods: set[PodKey],
    values: dict[int, float],
    running: dict[PodKey, set[int]],
    units: dict[PodKey, float],
    w: Window,
) -> None:
    hours = w.step / 3600
    profile = device[5]
    for pod in sorted(pods):
        key = (pod[0], pod[1], profile)
        share = units.get(pod, 1.0)
        for index in sorted(running.get(pod, set())):
            if index not in values:
                continue
            active, measured = values[index] * share, share
            split.active[key] += active * hours
            split.measured[key] += measured * hours
            split.per_step[key][index] = (active, measured)


def apply(activity: Activity, split: Split) -> None:
    """Replace the per-label figures of the pods on flipping GPUs with the split ones."""
    pods = {(k[0], k[1]) for k in split.active} | {(k[0], k[1]) for k in split.measured}
    for table in (activity.active, activity.measured):
        for key in [k for k in table if (k[0], k[1]) in pods]:
            del table[key]
    activity.active.update(split.active)
    activity.measured.update(split.measured)
