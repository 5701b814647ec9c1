"""Series shaped as dcgm-exporter, kube-state-metrics and Kueue expose them, from an event table.

A `Table` says what happened in a cluster (nodes with their GPUs, pods with their lifetimes and
engine activity, Kueue admissions); this module says only how each exporter shows it, and
`write_openmetrics` writes what Prometheus would have scraped every `scrape_s` seconds (for
`promtool tsdb create-blocks-from openmetrics`). It computes no truth: tests derive what
`account` should report from their own table, by hand.

How the exporters show things (read from their sources, 2026-12-01):
- kube-state-metrics v2.20 (internal/store/pod.go, node.go, utils.go): requests per container
  with `namespace, pod, uid, container, node, resource, unit`, `node=""` until scheduled and kept
  after the pod finishes (the pod spec keeps `nodeName`); five `kube_pod_status_phase` series;
  `kube_node_info` for every node, `kube_node_labels`/`kube_pod_labels` only with an allowlist
  and only the allowlisted keys, as `label_<sanitised key>`.
- dcgm-exporter 4.x (rendermetrics/render_metrics.go, transformation/kubernetes.go): labels
  `gpu, UUID, pci_bus_id, device, modelName, Hostname` (`hostname` on main since #655) and the
  label field `DCGM_FI_DRIVER_VERSION`; a MIG-enabled GPU has only GPU-instance series
  (`GPU_I_PROFILE`, `GPU_I_ID`, the parent's UUID) on which power and temperature repeat the whole
  GPU's reading and `DCGM_FI_DEV_GPU_UTIL` is absent; the holder's `pod, namespace, container`
  while the kubelet lists its devices; a shared GPU without `KUBERNETES_VIRTUAL_GPUS` names one
  of its pods, picked anew at each collection (a map), with it one series per sharing pod and
  replica (`vgpu`); XID series carry `err_code`/`err_msg`.
- The scrape (Prometheus Operator ServiceMonitor): target labels `namespace, pod, container,
  service, endpoint, job, instance` of the exporter's own pod; with `honorLabels: false` the
  exporter's `pod, namespace, container` become `exported_*`.
- Kueue (pkg/metrics/metrics.go): `kueue_admission_wait_time_seconds` histogram per
  `cluster_queue, priority_class, replica_role`, buckets 1 and 2.5·2^k, a child created at its
  first observation; `kueue_pending_workloads{cluster_queue, status, replica_role}`;
  `kueue_cluster_queue_resource_usage` only with `enableClusterQueueResources`.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from tests.support import exporter_shapes as shapes
from tests.support.event_table import (
    BLOCK_S,
    DEFAULT_DCGM_METRICS,
    FB,
    POWER,
    PROF,
    TEMP,
    UTIL,
    XID,
    Admission,
    Dcgm,
    Emitter,
    Gpu,
    Node,
    Pod,
    Queue,
    Table,
)

__all__ = [
    "DEFAULT_DCGM_METRICS",
    "FB",
    "POWER",
    "PROF",
    "TEMP",
    "UTIL",
    "XID",
    "Admission",
    "Dcgm",
    "Gpu",
    "Node",
    "Pod",
    "Queue",
    "Table",
    "series",
    "write_openmetrics",
]

# -- writing --------------------------------------------------------------------------------------


def series(t: Table) -> Emitter:
    """Every series of the table as constant-value segments."""
    out = Emitter()
    shapes.ksm_nodes(t, out)
    shapes.ksm_pods(t, out)
    shapes.dcgm(t, out)
    shapes.kueue(t, out)
    return out


def _value(v: float) -> str:
    return str(int(v)) if v == int(v) else repr(v)


def _family(metric: str, types: dict[str, str]) -> str:
    for suffix in ("_bucket", "_count", "_sum"):
        base = metric.removesuffix(suffix)
        if base != metric and types.get(base) == "histogram":
            return base
    return metric


def write_openmetrics(t: Table, folder: Path) -> list[Path]:
    """Write the table's series as OpenMetrics text, one file per 2-hour block; returns the files."""
    folder.mkdir(parents=True, exist_ok=True)
    emitted = series(t)
    families: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for metric, labels in sorted(emitted.segments):
        families[_family(metric, emitted.types)].append((metric, labels))
    files: list[Path] = []
    block = int(t.start // BLOCK_S) * BLOCK_S
    while block < t.end:
        path = folder / f"block-{block}.om"
        with path.open("w", encoding="utf-8") as handle:
            for family in sorted(families):
                handle.write(f"# TYPE {family} {emitted.types.get(family, 'gauge')}\n")
                for metric, labels in families[family]:
                    for lo, hi, value in emitted.segments[(metric, labels)]:
                        text = f"{metric}{labels} {_value(value)} "
                        handle.writelines(
                            f"{text}{at}\n" for at in t.times(max(lo, block), min(hi, block + BLOCK_S))
                        )
            handle.write("# EOF\n")
        files.append(path)
        block += BLOCK_S
    return files
