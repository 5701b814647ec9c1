"""The PromQL that `account` runs (text only: `fetch` and `chunked` run it).

Series names and labels are the exporters' own (docs/account.md cites each):
- kube-state-metrics v2.20 (internal/store/pod.go, node.go): requests carry
  `namespace, pod, uid, container, node, resource, unit` with `node=""` until the pod is
  scheduled; `kube_node_labels` exists only for labels in `--metric-labels-allowlist`, while
  `kube_node_info` exists for every node.
- dcgm-exporter 4.x (internal/pkg/rendermetrics/render_metrics.go, transformation/kubernetes.go):
  `gpu, UUID, device, modelName`, `Hostname` (`hostname` on main since #655), `GPU_I_ID` and
  `GPU_I_PROFILE` on MIG instances, and the holder's `pod, namespace, container` — renamed to
  `exported_*` when Prometheus scrapes with `honorLabels: false`.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuplane.vocab import (
    CLOUD_NODE_POOL_LABELS,
    GPU_RESOURCE,
    JOB_NAME_LABEL,
    LABEL_ACCELERATOR,
    LABEL_POOL,
    LABEL_TEAM,
    MIG_RESOURCE_PREFIX,
    QUEUE_NAME_LABEL,
    ksm_label,
    ksm_resource,
)

PROFILING = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
UTILIZATION = "DCGM_FI_DEV_GPU_UTIL"
ACTIVITY_METRICS = (PROFILING, UTILIZATION)
POWER_METRIC = "DCGM_FI_DEV_POWER_USAGE"
GPU_RESOURCES = f'resource=~"{ksm_resource(GPU_RESOURCE)}.*|{ksm_resource(MIG_RESOURCE_PREFIX)}.*"'
#: The DCGM labels naming a node: released tags write `Hostname`, main since #655 `hostname`.
HOST_LABELS = ("Hostname", "hostname")
HOST = ", ".join(HOST_LABELS)
#: One GPU or MIG instance: the parent GPU's UUID (`uuid` with --use-old-namespace) and the instance.
DEVICE_LABELS = (*HOST_LABELS, "UUID", "uuid", "GPU_I_ID", "GPU_I_PROFILE")
DEVICE = ", ".join(DEVICE_LABELS)
POOL_LABEL = ksm_label(LABEL_POOL)
ACCELERATOR_LABEL = ksm_label(LABEL_ACCELERATOR)
#: Node labels that name a node's pool, in the order they are trusted.
POOL_LABELS = (POOL_LABEL, *(ksm_label(label) for label in CLOUD_NODE_POOL_LABELS))
NODE_LABELS = ("node", POOL_LABEL, ACCELERATOR_LABEL, *POOL_LABELS[1:])
TEAM_LABEL = ksm_label(LABEL_TEAM)
QUEUE_LABEL = ksm_label(QUEUE_NAME_LABEL)
JOB_LABEL = ksm_label(JOB_NAME_LABEL)

RUNNING = '(max by (namespace, pod) (kube_pod_status_phase{phase="Running"}) == 1)'
REQUESTS = (
    f"sum by (namespace, pod, node, resource) "
    f'(kube_pod_container_resource_requests{{{GPU_RESOURCES}, node!=""}})'
)
ALLOCATED = f"{REQUESTS} * on (namespace, pod) group_left () {RUNNING}"


@dataclass(frozen=True)
class PodLabels:
    """How DCGM series name the pod that holds a GPU.

    `honorLabels: true` keeps the exporter's `pod`/`namespace`; `false` (the GPU Operator's
    default ServiceMonitor) renames them `exported_pod`/`exported_namespace`, and `pod` then
    names the exporter's own pod.
    """

    pod: str = "pod"
    namespace: str = "namespace"

    @property
    def exported(self) -> bool:
        """Whether the series carry the pod's labels under exported_ names (no honorLabels)."""
        return self.pod != "pod"

    def relabel(self, expr: str) -> str:
        """`expr` with the holder's labels copied to `pod`/`namespace` (a no-op with honorLabels)."""
        if not self.exported:
            return expr
        inner = f'label_replace({expr}, "pod", "$1", "{self.pod}", "(.*)")'
        return f'label_replace({inner}, "namespace", "$1", "{self.namespace}", "(.*)")'

    def held(self, metric: str, extra: str = "") -> str:
        """`metric` series that name a holder pod, with `pod`/`namespace` set to it."""
        return self.relabel(f'{metric}{{{self.pod}!=""{extra}}}')


HONORED = PodLabels()
EXPORTED = PodLabels("exported_pod", "exported_namespace")


def activity(metric: str, labels: PodLabels, *, measured: bool = True) -> str:
    """Engine activity (0..1) and measured devices per pod and MIG profile while the pod runs.

    Two series per (pod, profile) tell them apart by `kind`: `active` sums the activity of the
    pod's devices, `measured` counts them. Summing per pod before joining with the phase keeps
    the join to one series per pod (four times faster than joining every GPU's series).
    """
    scaled = labels.held(metric) + (" / 100" if metric == UTILIZATION else "")
    held = labels.held(metric)
    by = "namespace, pod, GPU_I_PROFILE"
    active = f'label_replace(sum by ({by}) ({scaled}), "kind", "active", "", "")'
    if not measured:
        return f"{active} * on (namespace, pod) group_left () {RUNNING}"
    counted = f'label_replace(count by ({by}) ({held}), "kind", "measured", "", "")'
    return f"({active} or {counted}) * on (namespace, pod) group_left () {RUNNING}"


def gpu_pods(r: str) -> str:
    """Pods that requested GPUs on some node in the range."""
    return (
        "max by (namespace, pod) (max_over_time("
        f'kube_pod_container_resource_requests{{{GPU_RESOURCES}, node!=""}}[{r}]))'
    )


def holders(metric: str, labels: PodLabels, r: str) -> str:
    """(device, pod) pairs: the GPU-requesting pods each GPU or MIG instance's series named."""
    inner = f'max by ({DEVICE}, {labels.pod}, {labels.namespace}) (max_over_time({metric}{{{labels.pod}!=""}}[{r}]))'
    return (
        f"max by ({DEVICE}, namespace, pod) ({labels.relabel(inner)}) and on (namespace, pod) {gpu_pods(r)}"
    )


def exported_probe(r: str) -> str:
    """Activity series with `exported_pod` (scraped with honorLabels false) in the range."""
    names = "|".join(ACTIVITY_METRICS)
    return f'count(max_over_time({{__name__=~"{names}", exported_pod!=""}}[{r}]))'


def device_pod_series(metric: str, labels: PodLabels, uuids: list[str]) -> str:
    """How many pod-labelled series each of these devices has at a step."""
    return f'count by ({DEVICE}) ({metric}{{{labels.pod}!="", UUID=~"{_alternatives(uuids)}"}})'


def device_value(metric: str, uuids: list[str]) -> str:
    """The value of each of these devices at a step, whichever pod its series names."""
    scaled = f'{metric}{{UUID=~"{_alternatives(uuids)}"}}' + (" / 100" if metric == UTILIZATION else "")
    return f"max by ({DEVICE}) ({scaled})"


def running_pods(pods: list[str]) -> str:
    """RUNNING for these pods only."""
    return (
        "(max by (namespace, pod) "
        f'(kube_pod_status_phase{{phase="Running", pod=~"{_alternatives(pods)}"}}) == 1)'
    )


def _alternatives(values: list[str]) -> str:
    """A regex matching exactly these values (Prometheus anchors label regexes)."""
    specials = set(r"\.^$|?*+()[]{}")
    return "|".join("".join("\\\\" + c if c in specials else c for c in v) for v in sorted(set(values)))


def node_steps(r: str, step: int) -> str:
    """Steps each node existed in a range, with the labels that tie it to a pool.

    `kube_node_labels` has the allowlisted labels; `kube_node_info` exists for every node, so a
    node whose labels kube-state-metrics does not export is still seen (without a pool).
    """
    by = ", ".join(NODE_LABELS)
    present = f"max by ({by}) (kube_node_labels) or on (node) max by (node) (kube_node_info)"
    return f"sum_over_time(({present})[{r}:{step}s])"


def node_labels_seen(r: str) -> str:
    """How many nodes had a `kube_node_labels` series at all in the range."""
    return f"count(max by (node) (max_over_time(kube_node_labels[{r}])))"


def gpus_per_host(r: str) -> str:
    """Physical GPUs DCGM reports per node in the range (MIG instances and shared series counted once)."""
    present = " or ".join(f"max_over_time({m}[{r}])" for m in (POWER_METRIC, *ACTIVITY_METRICS))
    return f"count by ({HOST}) (count by ({HOST}, UUID, uuid) ({present}))"


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
    return f"max by (namespace, pod) (max_over_time(kube_pod_created[{r}]))"


def pod_labels(r: str) -> str:
    by = f"namespace, pod, {TEAM_LABEL}, {QUEUE_LABEL}, {JOB_LABEL}"
    return f"max by ({by}) (max_over_time(kube_pod_labels[{r}])) and on (namespace, pod) {gpu_pods(r)}"


def pod_labels_seen(r: str) -> str:
    """How many pods had a `kube_pod_labels` series at all in the range."""
    return f"count(max by (namespace, pod) (max_over_time(kube_pod_labels[{r}])))"


def pod_images(r: str) -> str:
    return (
        f"max by (namespace, pod, image) (max_over_time(kube_pod_container_info[{r}])) "
        f"and on (namespace, pod) {gpu_pods(r)}"
    )


def xid_gpus(r: str) -> str:
    return f"max by ({HOST}, gpu) (max_over_time(DCGM_FI_DEV_XID_ERRORS[{r}])) > 0"


def max_temperature(r: str) -> str:
    return f"max by ({HOST}) (max_over_time(DCGM_FI_DEV_GPU_TEMP[{r}]))"


def max_fb_used(r: str) -> str:
    return f"max by ({HOST}) (max_over_time(DCGM_FI_DEV_FB_USED[{r}]))"


NODES_NOW = "max by (node) (kube_node_labels or kube_node_info)"
#: Power per node, each physical GPU once: MIG instance series and the series of the pods sharing a
#: GPU all repeat the whole GPU's reading, so they are deduplicated by UUID.
POWER = f"sum by ({HOST}) (max by ({HOST}, UUID, uuid) ({POWER_METRIC}))"
KUEUE_PENDING = "sum by (cluster_queue) (kueue_pending_workloads)"
KUEUE_ADMITTED = "sum by (cluster_queue) (kueue_admitted_active_workloads)"
KUEUE_USAGE = "sum by (cluster_queue, resource) (kueue_cluster_queue_resource_usage)"
KUEUE_WAIT_SUM = "kueue_admission_wait_time_seconds_sum"
KUEUE_WAIT_COUNT = "kueue_admission_wait_time_seconds_count"


def last_value(metric: str, r: str) -> str:
    """Each series' last sample in the range (the counter's value before a window opens)."""
    return f"last_over_time({metric}[{r}])"
