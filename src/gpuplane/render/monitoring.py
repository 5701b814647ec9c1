"""PrometheusRules for the platform: GPUs allocated but idle, XID errors, GPU workloads pending too
long, pools at their maximum size. Thresholds come from the spec's `monitoring.alerts`; metric
names from DCGM exporter, kube-state-metrics and the gpuplane exporter (the test suite checks each
against what those exporters serve: tests/render/test_render_metric_names.py).
"""

from __future__ import annotations

from typing import Any

from gpuplane.render.common import gpu_pools, k8s_object, metadata
from gpuplane.spec.models import PlatformSpec
from gpuplane.vocab import (
    CLOUD_NODE_POOL_LABELS,
    JOB_NAME_LABEL,
    LABEL_ACCELERATOR,
    LABEL_CAPACITY,
    LABEL_CLASS,
    LABEL_POOL,
    LABEL_TEAM,
    NVIDIA_PREFIX,
    QUEUE_NAME_LABEL,
    ksm_resource,
)

PROMETHEUS_RULE_API = "monitoring.coreos.com/v1"
RULES_NAME = "gpuplane-gpu-alerts"
# kube-prometheus-stack's default ruleSelector matches its Helm release label; most installs use
# `release: kube-prometheus-stack` or select all rules. Say so in the docs instead of guessing here.


def _rule(
    alert: str,
    expr: str,
    for_: str,
    severity: str,
    summary: str,
    description: str,
    labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    return {
        "alert": alert,
        "expr": expr,
        "for": for_,
        "labels": {"severity": severity, **(labels or {})},
        "annotations": {"summary": summary, "description": description},
    }


def gpu_rules(spec: PlatformSpec) -> list[dict[str, Any]]:
    """Alerts about GPUs and the workloads on them."""
    alerts = spec.monitoring.alerts
    idle = _rule(
        "GPUAllocatedButIdle",
        f'avg by (namespace, pod, Hostname, gpu) (avg_over_time(DCGM_FI_DEV_GPU_UTIL{{pod!=""}}[5m])) '
        f"< {alerts.idle_util_percent:g}",
        f"{alerts.idle_minutes}m",
        "warning",
        "GPU allocated to {{ $labels.namespace }}/{{ $labels.pod }} is idle",
        f"GPU {{{{ $labels.gpu }}}} on {{{{ $labels.Hostname }}}} has been below {alerts.idle_util_percent:g}% "
        f"utilisation for {alerts.idle_minutes} minutes while allocated: it costs money and does no work.",
    )
    xid = _rule(
        "GPUXidError",
        "max by (Hostname, gpu, modelName) (max_over_time(DCGM_FI_DEV_XID_ERRORS[5m])) > 0",
        "0m",
        "critical",
        "GPU reported an XID error on {{ $labels.Hostname }}",
        "GPU {{ $labels.gpu }} ({{ $labels.modelName }}) reported XID {{ $value }}; check the driver "
        "log and consider draining the node.",
    )
    pending_pods = _rule(
        "GPUPodsPendingTooLong",
        f'(sum by (namespace, pod) (kube_pod_container_resource_requests{{resource=~"{ksm_resource(NVIDIA_PREFIX)}.*"}}) > 0) '
        'and on (namespace, pod) (kube_pod_status_phase{phase="Pending"} == 1)',
        f"{alerts.pending_minutes}m",
        "warning",
        "GPU pod {{ $labels.namespace }}/{{ $labels.pod }} pending too long",
        f"A pod requesting GPUs has been Pending for more than {alerts.pending_minutes} minutes.",
    )
    pending_workloads = _rule(
        "GPUWorkloadsPendingTooLong",
        "sum by (team) (gpuplane_pending_workloads) > 0",
        f"{alerts.pending_minutes}m",
        "warning",
        "Team {{ $labels.team }} has Kueue workloads pending",
        f"Team {{{{ $labels.team }}}} has had workloads waiting in Kueue for more than "
        f"{alerts.pending_minutes} minutes: its quota or the cohort is full.",
    )
    return [idle, xid, pending_pods, pending_workloads]


def pool_rules(spec: PlatformSpec) -> list[dict[str, Any]]:
    """One alert per autoscaled GPU pool: the pool has been at maxNodes for a while.

    Each rule keeps the `pool` label in its expression and names its pool in its static labels:
    rules with one alert name and one label set are duplicates to Prometheus (`promtool check
    rules --lint-fatal` rejects them) and two full pools would reach Alertmanager as one alert.
    """
    minutes = spec.monitoring.alerts.pool_at_max_minutes
    rules = []
    for pool in gpu_pools(spec):
        if pool.max_nodes <= 0:
            continue
        rules.append(
            _rule(
                "GPUPoolAtMaxNodes",
                f'max by (pool) (gpuplane_nodes{{pool="{pool.name}"}}) >= {pool.max_nodes}',
                f"{minutes}m",
                "warning",
                f"GPU pool {pool.name} is at its maximum of {pool.max_nodes} nodes",
                f"Pool {pool.name} has run at maxNodes ({pool.max_nodes}) for {minutes} minutes; new work "
                "waits. Raise maxNodes or the provider quota, or move work to another pool.",
                labels={"pool": pool.name},
            )
        )
    return rules


def prometheus_rule(spec: PlatformSpec) -> dict[str, Any]:
    """The PrometheusRule object (Prometheus Operator CRD)."""
    groups = [
        {"name": "gpuplane.gpu", "rules": gpu_rules(spec)},
    ]
    pools = pool_rules(spec)
    if pools:
        groups.append({"name": "gpuplane.pools", "rules": pools})
    meta = metadata(RULES_NAME, namespace=spec.monitoring.namespace)
    return k8s_object(PROMETHEUS_RULE_API, "PrometheusRule", meta, spec={"groups": groups})


# kube-state-metrics (>= 2.10) exports no Kubernetes labels unless allowed
# (internal/store/node.go createNodeLabelsGenerator @ v2.20); these are the ones gpuplane account
# joins on (docs/account.md): the pool/accelerator of nodes, with the cloud node-pool labels it
# falls back on, and the team/queue/job of pods.
KSM_NODE_LABELS = (LABEL_POOL, LABEL_ACCELERATOR, LABEL_CAPACITY, *CLOUD_NODE_POOL_LABELS)
KSM_POD_LABELS = (LABEL_TEAM, LABEL_CLASS, QUEUE_NAME_LABEL, JOB_NAME_LABEL)
KSM_LABEL_ALLOWLIST = (
    f"nodes=[{','.join(KSM_NODE_LABELS)}]",
    f"pods=[{','.join(KSM_POD_LABELS)}]",
)


def kube_state_metrics_values_text() -> str:
    """Helm values for kube-state-metrics (the standalone chart, or the `kube-state-metrics:` key of
    kube-prometheus-stack) that export the labels gpuplane reads."""
    lines = [
        "# kube-state-metrics Helm values generated by gpuplane render.",
        "# Standalone chart: helm upgrade --install kube-state-metrics prometheus-community/kube-state-metrics -f this",
        "# kube-prometheus-stack: put these under its `kube-state-metrics:` key.",
        "metricLabelsAllowlist:",
        *(f"  - {entry}" for entry in KSM_LABEL_ALLOWLIST),
    ]
    return "\n".join(lines) + "\n"
