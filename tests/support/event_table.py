"""An event table: what happened in a cluster, with no opinion on how exporters show it.

Nodes with their GPUs, pods with their lifetimes and engine activity, Kueue queues and
admissions. `exporter_shapes` turns a table into series as each exporter emits them;
`exporter_series` writes them for promtool.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

BLOCK_S = 7200  # promtool cuts 2-hour blocks; one file per block keeps it to one pass per file
PROF, UTIL, POWER, TEMP, FB, XID = (
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
    "DCGM_FI_DEV_GPU_UTIL",
    "DCGM_FI_DEV_POWER_USAGE",
    "DCGM_FI_DEV_GPU_TEMP",
    "DCGM_FI_DEV_FB_USED",
    "DCGM_FI_DEV_XID_ERRORS",
)
DEFAULT_DCGM_METRICS = (PROF, UTIL, POWER, TEMP, FB, XID)
KUEUE_BUCKETS = (1.0, *(2.5 * 2**k for k in range(15)))  # generateExponentialBuckets(16)
PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")


@dataclass(frozen=True)
class Dcgm:
    """How one node's dcgm-exporter is configured and scraped."""

    metrics: tuple[str, ...] = DEFAULT_DCGM_METRICS
    virtual_gpus: bool = False  # KUBERNETES_VIRTUAL_GPUS
    honor_labels: bool = True  # the ServiceMonitor's honorLabels
    hostname_label: str = "Hostname"


@dataclass(frozen=True)
class Gpu:
    """A physical GPU: MIG instances (GPU_I_ID, profile) when MIG is on; power = idle + its pods' power."""

    uuid: str
    mig: tuple[tuple[int, str], ...] = ()
    idle_w: float = 50.0


@dataclass(frozen=True)
class Node:
    """A node alive over [start, end) with Kubernetes labels, allocatable resources and GPUs."""

    name: str
    labels: dict[str, str]
    start: float
    end: float
    gpus: tuple[Gpu, ...] = ()
    allocatable: dict[str, int] = field(default_factory=dict)
    model: str = "NVIDIA A100 80GB PCIe"
    dcgm: Dcgm = Dcgm()
    replicas: int = 1  # time-slicing/MPS replicas per GPU (device IDs `GPU-uuid::N` when > 1)


@dataclass(frozen=True)
class Pod:
    """A pod created at `created`, Running on `node` over [start, end), then `outcome` until `deleted`.

    `devices` are (GPU index, GPU_I_ID or None) it holds while Running; `activity` is the engine
    activity it gives each of them and `power_w` the power it adds to each GPU it uses.
    `outcome` "Running" means still running at `deleted` (or at the table's end).
    """

    namespace: str
    name: str
    node: str
    resource: str
    units: int
    created: float
    start: float
    end: float
    outcome: str
    devices: tuple[tuple[int, int | None], ...] = ()
    activity: float = 0.0
    power_w: float = 0.0
    labels: dict[str, str] = field(default_factory=dict)
    image: str = "registry.example/train:1.0"
    deleted: float | None = None


@dataclass(frozen=True)
class Admission:
    """One Kueue admission: the workload waited `wait_s` and was admitted at `at`."""

    queue: str
    at: float
    wait_s: float
    priority_class: str = ""


@dataclass(frozen=True)
class Queue:
    """A ClusterQueue: its pending (active, inadmissible) workloads from each time on."""

    name: str
    pending: tuple[tuple[float, int, int], ...] = ((0.0, 0, 0),)
    admitted: int = 0
    cohort: str = ""
    usage_gpus: float = 0.0


@dataclass
class Table:
    """The events of one cluster over [start, end), scraped every `scrape_s` seconds."""

    start: float
    end: float
    nodes: list[Node]
    pods: list[Pod] = field(default_factory=list)
    scrape_s: float = 60.0
    queues: list[Queue] = field(default_factory=list)
    admissions: list[Admission] = field(default_factory=list)
    xids: list[tuple[str, int, float, float, int]] = field(default_factory=list)  # node, gpu, from, to, code
    node_label_allowlist: tuple[str, ...] | None = ()  # () = every label of the node; None = no allowlist
    pod_label_allowlist: tuple[str, ...] | None = ()
    kueue_resource_usage: bool = False
    kueue_restarts: tuple[float, ...] = ()  # Kueue restarts: its counters start again from nothing
    linger_s: float = 1800.0  # a finished pod stays (phase Succeeded/Failed) this long
    seed: int = 1

    def times(self, lo: float, hi: float) -> range:
        """Scrape times (integers) in [lo, hi) within the table's window."""
        step = int(self.scrape_s)
        first = int(math.ceil(max(lo, self.start) / step) * step)
        return range(first, int(math.ceil(min(hi, self.end) / step) * step), step)


# -- series as segments of constant value ----------------------------------------------------------

Segments = dict[tuple[str, str], list[tuple[float, float, float]]]  # (metric, labels) -> [lo, hi) value


def _text(labels: dict[str, str]) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}"


class Emitter:
    """Collects series as (metric, labels) -> constant-value segments."""

    def __init__(self) -> None:
        self.segments: Segments = defaultdict(list)
        self.types: dict[str, str] = {}

    def add(
        self, metric: str, labels: dict[str, str], lo: float, hi: float, value: float, kind: str = "gauge"
    ) -> None:
        if hi > lo:
            family = metric.rsplit("_", 1)[0] if kind == "histogram" else metric
            self.types[family] = kind
            self.segments[(metric, _text(labels))].append((lo, hi, value))


def pod_gone(t: Table, pod: Pod) -> float:
    """When kube-state-metrics stops reporting the pod (it is deleted)."""
    if pod.deleted is not None:
        return pod.deleted
    return t.end if pod.outcome == "Running" else pod.end + t.linger_s


def run_end(t: Table, pod: Pod) -> float:
    """When the pod stops Running."""
    return pod_gone(t, pod) if pod.outcome == "Running" else pod.end
