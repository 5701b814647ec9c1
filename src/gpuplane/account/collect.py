"""The PromQL that `account` runs, and the paging that keeps each query small.

GPU-hours are integrals: `sum_over_time((expr)[R:step])` summed over consecutive chunks of the
window, times step / 3600. Each chunk's subquery is evaluated at its last step, so the chunks
cover the window's steps exactly once. Prometheus does the joins (requests x Running phase,
DCGM activity x Running phase), so only one number per pod and chunk comes back, whatever the
scrape resolution.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from gpuplane.account.prom import PromClient, Series

GPU_RESOURCES = 'resource=~"nvidia_com_gpu.*|nvidia_com_mig_.*"'
RUNNING = '(max by (namespace, pod) (kube_pod_status_phase{phase="Running"}) == 1)'
REQUESTS = (
    f"sum by (namespace, pod, node, resource) "
    f'(kube_pod_container_resource_requests{{{GPU_RESOURCES}, node!=""}})'
)
ALLOCATED = f"{REQUESTS} * on (namespace, pod) group_left () {RUNNING}"
PROFILING = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
UTILIZATION = "DCGM_FI_DEV_GPU_UTIL"
NODE_LABELS = (
    "node",
    "label_gpuplane_io_pool",
    "label_gpuplane_io_accelerator",
    "label_agentpool",
    "label_kubernetes_azure_com_agentpool",
    "label_cloud_google_com_gke_nodepool",
    "label_eks_amazonaws_com_nodegroup",
)
HOST = "Hostname, hostname"


def activity(metric: str) -> str:
    """Engine activity (0..1) summed per pod and MIG profile, only while the pod runs.

    Summing per pod before joining with the phase keeps the join to one series per pod (four
    times faster than joining every GPU's series on a 1,000-GPU cluster).
    """
    scaled = f'{metric}{{pod!=""}}' + (" / 100" if metric == UTILIZATION else "")
    return f"sum by (namespace, pod, GPU_I_PROFILE) ({scaled}) * on (namespace, pod) group_left () {RUNNING}"


@dataclass(frozen=True)
class Window:
    """The accounted interval [start, end), its resolution and the chunk size of one query."""

    start: float
    end: float
    step: float
    chunk: float

    @classmethod
    def make(cls, start: float, end: float, step: float, chunk_steps: int = 2880) -> Window:
        """Align start and end to the step (Prometheus aligns subquery steps to multiples of it)."""
        s = math.floor(start / step) * step
        e = max(math.floor(end / step) * step, s + step)
        return cls(s, e, step, step * chunk_steps)

    @property
    def hours(self) -> float:
        return (self.end - self.start) / 3600

    def chunks(self) -> Iterator[tuple[float, str]]:
        """(evaluation time, range) per chunk; together they cover every step exactly once.

        A chunk [lo, hi) is evaluated at hi - step with a range reaching back to lo - step/2, so
        no step sits on the range's edge and it does not matter whether the server treats
        ranges as closed (Prometheus 2) or left-open (Prometheus 3).
        """
        lo = self.start
        while lo < self.end:
            hi = min(lo + self.chunk, self.end)
            yield hi - self.step, f"{round((hi - lo - self.step / 2) * 1000)}ms"
            lo = hi


Key = tuple[str, ...]


def _key(series: Series, by: tuple[str, ...]) -> Key:
    return tuple(series.labels.get(name, "") for name in by)


def integrate(client: PromClient, w: Window, inner: str, by: tuple[str, ...]) -> dict[Key, float]:
    """Hours of `inner` (value x time) per group `by` over the window."""
    out: dict[Key, float] = {}
    group = ", ".join(by)
    for at, span in w.chunks():
        query = f"sum by ({group}) (sum_over_time(({inner})[{span}:{int(w.step)}s]))"
        for series in client.instant(query, at):
            key = _key(series, by)
            out[key] = out.get(key, 0.0) + series.samples[0][1] * w.step / 3600
    return out


def per_chunk(
    client: PromClient,
    w: Window,
    make: Callable[[str], str],
    by: tuple[str, ...],
    combine: Callable[[float, float], float],
) -> dict[Key, float]:
    """Run `make(range)` once per chunk and fold the values per group with `combine`."""
    out: dict[Key, float] = {}
    for at, span in w.chunks():
        for series in client.instant(make(span), at):
            key = _key(series, by)
            value = series.samples[0][1]
            out[key] = combine(out[key], value) if key in out else value
    return out


def labels_per_chunk(client: PromClient, w: Window, make: Callable[[str], str]) -> list[dict[str, str]]:
    """Label sets of `make(range)` over all chunks (deduplicated, sorted)."""
    seen: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
    for at, span in w.chunks():
        for series in client.instant(make(span), at):
            seen.setdefault(series.key, series.labels)
    return [seen[k] for k in sorted(seen)]


def node_steps(r: str, step: int) -> str:
    """Steps each node existed in a range, with the labels that tie it to a pool."""
    return f"sum_over_time((max by ({', '.join(NODE_LABELS)}) (kube_node_labels))[{r}:{step}s])"


def allocatable(r: str) -> str:
    return f"max by (node, resource) (max_over_time(kube_node_status_allocatable{{{GPU_RESOURCES}}}[{r}]))"


def outcomes(r: str) -> str:
    return (
        'max by (namespace, pod, phase) (max_over_time(kube_pod_status_phase{phase=~"Succeeded|Failed"}'
        f"[{r}])) == 1"
    )


def first_running(r: str, step: int) -> str:
    return f"min by (namespace, pod) (min_over_time((timestamp({RUNNING}))[{r}:{step}s]))"


def last_running(r: str, step: int) -> str:
    return f"max by (namespace, pod) (max_over_time((timestamp({RUNNING}))[{r}:{step}s]))"


def created(r: str) -> str:
    return "max by (namespace, pod) (max_over_time(kube_pod_created[{r}]))".replace("{r}", str(r))


def _gpu_pods(r: str) -> str:
    return f"max by (namespace, pod) (max_over_time(kube_pod_container_resource_requests{{{GPU_RESOURCES}}}[{r}]))"


def pod_labels(r: str) -> str:
    by = "namespace, pod, label_gpuplane_io_team, label_kueue_x_k8s_io_queue_name, label_job_name"
    return f"max by ({by}) (max_over_time(kube_pod_labels[{r}])) and on (namespace, pod) {_gpu_pods(r)}"


def pod_images(r: str) -> str:
    return (
        f"max by (namespace, pod, image) (max_over_time(kube_pod_container_info[{r}])) "
        f"and on (namespace, pod) {_gpu_pods(r)}"
    )


def xid_gpus(r: str) -> str:
    return f"max by ({HOST}, gpu) (max_over_time(DCGM_FI_DEV_XID_ERRORS[{r}])) > 0"


def max_temperature(r: str) -> str:
    return f"max by ({HOST}) (max_over_time(DCGM_FI_DEV_GPU_TEMP[{r}]))"


def max_fb_used(r: str) -> str:
    return f"max by ({HOST}) (max_over_time(DCGM_FI_DEV_FB_USED[{r}]))"


NODES_NOW = "max by (node) (kube_node_labels)"
POWER = f'sum by ({HOST}) (max by ({HOST}, gpu, UUID, uuid) (DCGM_FI_DEV_POWER_USAGE{{GPU_I_ID=""}}))'
KUEUE_PENDING = "sum by (cluster_queue) (kueue_pending_workloads)"
KUEUE_USAGE = "sum by (cluster_queue, resource) (kueue_cluster_queue_resource_usage)"


def kueue_wait(r: str) -> str:
    return (
        f"sum by (cluster_queue) (increase(kueue_admission_wait_time_seconds_sum[{r}])) / "
        f"sum by (cluster_queue) (increase(kueue_admission_wait_time_seconds_count[{r}]))"
    )
