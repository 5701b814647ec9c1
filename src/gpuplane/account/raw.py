"""`RawData`: what `fetch` read from Prometheus for one window, keyed by label values.

Nothing here decides what a number means; `compute` does. Hours are "unit-hours": a resource
unit (a GPU, a MIG instance, a time-sliced replica) times hours, before any fraction of a
physical GPU is applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuplane.account.window import Window

PodKey = tuple[str, str]
#: (namespace, pod, MIG profile or "")
ActivityKey = tuple[str, str, str]
Points = list[tuple[float, float]]


@dataclass
class Activity:
    """Engine activity of pods from one DCGM metric: active and measured unit-hours per (pod, profile)."""

    active: dict[ActivityKey, float] = field(default_factory=dict)
    measured: dict[ActivityKey, float] = field(default_factory=dict)
    #: the same per chart step (for the report), when charts were asked for
    active_series: dict[ActivityKey, Points] = field(default_factory=dict)
    measured_series: dict[ActivityKey, Points] = field(default_factory=dict)

    def pods(self) -> set[PodKey]:
        """Pods with at least one measured device."""
        return {(k[0], k[1]) for k, v in self.measured.items() if v > 0}


@dataclass(frozen=True)
class SharedGpu:
    """A GPU (or MIG instance) whose one DCGM series names the pods sharing it in turn."""

    node: str
    uuid: str
    instance: str
    metric: str
    pods: tuple[PodKey, ...]


@dataclass
class KueueRaw:
    """Kueue's metrics over the window, per ClusterQueue."""

    pending: dict[str, float] = field(default_factory=dict)
    admitted: dict[str, float] = field(default_factory=dict)
    wait_sum_s: dict[str, float] = field(default_factory=dict)
    admissions: dict[str, float] = field(default_factory=dict)
    usage: dict[tuple[str, str], float] = field(default_factory=dict)
    histogram_seen: bool = False


@dataclass
class RawData:
    """Query answers for one window."""

    window: Window
    allocated: dict[tuple[str, ...], float] = field(default_factory=dict)  # (ns, pod, node, resource)
    allocated_at_end: dict[tuple[str, ...], float] = field(default_factory=dict)  # units at the last step
    activity: dict[str, Activity] = field(default_factory=dict)  # DCGM metric -> its activity
    shared_gpus: list[SharedGpu] = field(default_factory=list)
    #: per metric: (pod, profile) -> step index -> (active, measured) units, for pods on flipping GPUs
    split_steps: dict[str, dict[ActivityKey, dict[int, tuple[float, float]]]] = field(default_factory=dict)
    pod_label_names: tuple[str, str] = ("pod", "namespace")
    nodes: list[tuple[dict[str, str], float]] = field(default_factory=list)  # node labels, hours present
    node_labels_seen: bool = False
    pod_labels_seen: bool = False
    nodes_at_end: set[str] = field(default_factory=set)
    allocatable: dict[tuple[str, ...], float] = field(default_factory=dict)  # (node, resource) -> units
    gpus_per_host: dict[str, float] = field(default_factory=dict)  # physical GPUs DCGM reports per node
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
    kueue: KueueRaw = field(default_factory=KueueRaw)
    chart_step: float = 0.0
    alloc_series: dict[tuple[str, ...], Points] = field(default_factory=dict)  # (ns, pod, node, resource)
    node_series: dict[str, Points] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    queries: int = 0
