"""What the result cannot say, and why: one sentence per gap in the exporters' data, with the fix.

Each note names the series or setting involved and what to change (docs/account.md has the
same list: per exporter setting, what render sets, what happens without it, this note).
"""

from __future__ import annotations

from gpuplane.account import queries as q
from gpuplane.account.pools import NodeInfo
from gpuplane.account.raw import RawData
from gpuplane.account.resolver import UNKNOWN, Resolver
from gpuplane.account.usage import PodUsage, PoolUsage
from gpuplane.render.monitoring import KSM_NODE_LABELS, KSM_POD_LABELS
from gpuplane.vocab import LABEL_POOL, MIG_RESOURCE_PREFIX, ksm_resource

_MIG = ksm_resource(MIG_RESOURCE_PREFIX)
_RENDER_KSM = "gpuplane render writes monitoring/kube-state-metrics-values.yaml with it"


def _hours(pods: list[PodUsage]) -> str:
    return f"{sum(p.unmeasured_h for p in pods):,.1f} GPU-hours"


def _activity_notes(raw: RawData, pods: list[PodUsage]) -> list[str]:
    notes: list[str] = []
    live = [p for p in pods if p.outcome != "Failed"]
    unmeasured_mig = [p for p in live if p.unmeasured_h > 0 and p.resource.startswith(_MIG)]
    unmeasured = [p for p in live if p.unmeasured_h > 0 and not p.resource.startswith(_MIG)]
    if unmeasured_mig:
        notes.append(
            f"{len(unmeasured_mig)} pod(s) on MIG instances ({_hours(unmeasured_mig)}) have no {q.PROFILING} "
            f"series, and dcgm-exporter reports no {q.UTILIZATION} for MIG instances: that time is "
            "unmeasured, not idle. Enable the profiling metrics (on by default in dcgm-exporter >= 4.0 and in "
            "the GPU Operator's dcp-metrics-included.csv)."
        )
    if unmeasured:
        notes.append(
            f"{len(unmeasured)} pod(s) ({_hours(unmeasured)}) had GPUs that no DCGM activity series "
            f"({q.PROFILING} or {q.UTILIZATION}) named while they ran: that time is unmeasured. "
            "dcgm-exporter needs its Kubernetes pod mapping (the GPU Operator's default) and must run on those nodes."
        )
    by_util = [p for p in live if p.activity_source == q.UTILIZATION]
    if by_util:
        notes.append(
            f"{len(by_util)} pod(s) have no {q.PROFILING} series: their useful time is weighted by "
            f"{q.UTILIZATION} (the share of time any kernel ran), which overstates how busy a GPU was."
        )
    if raw.pod_label_names[0] != "pod":
        notes.append(
            "dcgm-exporter's series name the GPU's pod as exported_pod/exported_namespace: Prometheus scrapes "
            "it with honorLabels: false (the GPU Operator's default ServiceMonitor). Those labels are used; "
            "set dcgmExporter.serviceMonitor.honorLabels: true (gpuplane render does) to keep pod/namespace."
        )
    if raw.shared_gpus:
        gpus = sorted({f"{g.uuid} on {g.node}" for g in raw.shared_gpus})
        notes.append(
            f"{len(gpus)} shared GPU(s) ({', '.join(gpus[:5])}{', ...' if len(gpus) > 5 else ''}) have one "
            "DCGM series whose pod label moves between the pods sharing them: KUBERNETES_VIRTUAL_GPUS is not "
            "set for dcgm-exporter. Their activity is split over the pods holding their replicas. Set "
            "KUBERNETES_VIRTUAL_GPUS=true in the GPU Operator's dcgmExporter.env (gpuplane render does for "
            "time-sliced and MPS pools) to get one series per pod."
        )
    return notes


def _node_notes(raw: RawData, res: Resolver, pools: list[PoolUsage], info: NodeInfo) -> list[str]:
    allowlist = f"nodes=[{','.join(KSM_NODE_LABELS)}]"
    if not raw.nodes:
        return [
            "No kube_node_info or kube_node_labels series in the window: provisioned and unallocated GPU "
            "time are unknown (is kube-state-metrics scraped?)."
        ]
    notes: list[str] = []
    unknown = info.nodes_in(UNKNOWN)
    if not raw.node_labels_seen:
        notes.append(
            "kube_node_labels is missing: kube-state-metrics (>= 2.10) exports node labels only for those in "
            f"--metric-labels-allowlist. Add {allowlist} ({_RENDER_KSM}). Until then no node can be "
            "matched to a pool: GPU nodes are counted under `unknown` and priced at 0."
        )
    elif unknown:
        shown = ", ".join(unknown[:5]) + (", ..." if len(unknown) > 5 else "")
        notes.append(
            f"{len(unknown)} GPU node(s) ({shown}) carry no pool label matching the spec in kube_node_labels "
            f"({', '.join(q.POOL_LABELS)}): label the nodes {LABEL_POOL} and keep {allowlist} in "
            "kube-state-metrics' --metric-labels-allowlist. They are priced at 0, and a time-sliced "
            "replica on them counts as a whole GPU (their pool's sharing is unknown)."
        )
    matched = [p for p in pools if p.pool in res.pools and p.nodes_seen]
    for p in pools:
        if p.pool in res.pools and not p.nodes_seen and matched:
            notes.append(f"Pool {p.pool} had no node in the window (scaled to zero or not labelled).")
    if raw.node_labels_seen and not matched and info.pool_of:
        notes.append("No GPU node in Prometheus matches a pool of the spec: prices are unknown (0).")
    return notes


def _pod_notes(raw: RawData, pods: list[PodUsage]) -> list[str]:
    notes: list[str] = []
    if not raw.allocated:
        notes.append(
            "No GPU pod was running in the window (no kube_pod_container_resource_requests for "
            "GPU resources with phase Running)."
        )
    elif not raw.pod_labels_seen:
        notes.append(
            "kube_pod_labels is missing: teams come from namespaces only and queues and jobs are unknown. Add "
            f"pods=[{','.join(KSM_POD_LABELS)}] to kube-state-metrics' --metric-labels-allowlist ({_RENDER_KSM})."
        )
    return notes


def _kueue_notes(raw: RawData) -> list[str]:
    k = raw.kueue
    if not (k.pending or k.admitted or k.histogram_seen):
        return [
            "No Kueue metrics (kueue_pending_workloads, kueue_admission_wait_time_seconds): queue views are left out."
        ]
    notes: list[str] = []
    quiet = sorted(queue for queue in set(k.pending) | set(k.admitted) if k.admissions.get(queue, 0) <= 0)
    if quiet and k.histogram_seen:
        notes.append(
            f"ClusterQueue(s) {', '.join(quiet)} admitted no workload in the window: no mean admission wait."
        )
    if not k.usage:
        notes.append(
            "kueue_cluster_queue_resource_usage is missing: Kueue exports it only with "
            "metrics.enableClusterQueueResources: true in its Configuration (usage is left out; "
            "`gpuplane render` writes it in kueue/kueue-configuration.yaml, to merge into kueue-manager-config)."
        )
    return notes


def account_notes(
    raw: RawData, res: Resolver, pods: list[PodUsage], pools: list[PoolUsage], info: NodeInfo
) -> list[str]:
    """Every note of a result, in a stable order."""
    notes = [*raw.notes, *_pod_notes(raw, pods), *_activity_notes(raw, pods)]
    notes += _node_notes(raw, res, pools, info)
    notes += _kueue_notes(raw)
    costs = res.spec.costs
    if costs.storage_per_gib_month or costs.network_per_gib:
        notes.append(
            "Storage and network volumes are not in Prometheus' GPU series: those costs are left at 0."
        )
    return notes
