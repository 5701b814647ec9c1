"""The exporter settings `gpuplane account` depends on, as render writes them (docs/account.md).

- dcgm-exporter: `KUBERNETES_VIRTUAL_GPUS=true` whenever a pool time-slices or uses MPS
  (NVIDIA/dcgm-exporter pkg/cmd/app.go: flag kubernetes-virtual-gpus, EnvVars KUBERNETES_VIRTUAL_GPUS),
  set through the GPU Operator chart's `dcgmExporter.env`, a list of EnvVar that the chart copies
  into the ClusterPolicy (deployments/gpu-operator/templates/clusterpolicy.yaml @ v26.7.0);
  the ServiceMonitor keeps the pod labels (`honorLabels: true`; the chart's default is false).
- kube-state-metrics: the allowlist covers every Kubernetes label account reads, including the
  cloud node-pool labels it falls back on.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from gpuplane.account import queries
from gpuplane.render import monitoring, operator
from gpuplane.render.assemble import render_all
from gpuplane.spec import PlatformSpec
from gpuplane.vocab import CLOUD_NODE_POOL_LABELS, ksm_label
from tests.render.render_helpers import SMALL_SPEC, small_spec, spec_from

VIRTUAL = {"name": "KUBERNETES_VIRTUAL_GPUS", "value": "true"}


def _dcgm_values(spec: PlatformSpec) -> dict[str, Any]:
    """The GPU Operator chart's `dcgmExporter` values render writes for `spec`."""
    values = operator.operator_values(spec)
    assert values is not None
    dcgm: dict[str, Any] = values["dcgmExporter"]
    return dcgm


@pytest.mark.parametrize("provider", ["aks", "gke", "eks", "generic"])
def test_time_slicing_turns_on_one_dcgm_series_per_sharing_pod(provider: str) -> None:
    dcgm = _dcgm_values(small_spec(provider))  # the small spec has a time-sliced T4 pool
    assert VIRTUAL in dcgm["env"]
    assert dcgm["serviceMonitor"]["honorLabels"] is True


def test_mps_pools_get_it_too_and_pools_that_share_nothing_do_not() -> None:
    mps = spec_from(
        SMALL_SPEC.replace("sharing: {mode: time-slicing, replicas: 4}", "sharing: {mode: mps, replicas: 4}")
    )
    assert VIRTUAL in _dcgm_values(mps)["env"]
    unshared = spec_from(
        SMALL_SPEC.replace("sharing: {mode: time-slicing, replicas: 4}", "sharing: {mode: exclusive}")
    )
    assert "env" not in _dcgm_values(unshared)


def test_env_entries_are_kubernetes_env_vars() -> None:
    result = render_all(spec_from(SMALL_SPEC))
    values = yaml.safe_load(result.files["devices/gpu-operator-values.yaml"])
    for entry in values["dcgmExporter"]["env"]:
        assert set(entry) == {"name", "value"} and isinstance(entry["value"], str)
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", entry["name"])


def _allowlisted(resource: str) -> list[str]:
    result = render_all(spec_from(SMALL_SPEC))
    ksm = yaml.safe_load(result.files["monitoring/kube-state-metrics-values.yaml"])
    entry: str = next(e for e in ksm["metricLabelsAllowlist"] if e.startswith(f"{resource}=["))
    return entry.removeprefix(f"{resource}=[").removesuffix("]").split(",")


def test_kube_state_metrics_allowlist_covers_the_cloud_node_pool_labels() -> None:
    nodes = _allowlisted("nodes")
    assert set(CLOUD_NODE_POOL_LABELS) <= set(nodes)
    assert {
        "agentpool",
        "kubernetes.azure.com/agentpool",
        "cloud.google.com/gke-nodepool",
        "eks.amazonaws.com/nodegroup",
    } <= set(nodes)


def test_every_label_account_reads_is_one_the_allowlist_exports() -> None:
    exported = {ksm_label(label) for label in _allowlisted("nodes")}
    assert {*queries.POOL_LABELS, queries.ACCELERATOR_LABEL} <= exported
    pods = {ksm_label(label) for label in _allowlisted("pods")}
    assert {queries.TEAM_LABEL, queries.QUEUE_LABEL, queries.JOB_LABEL} <= pods
    assert monitoring.KSM_LABEL_ALLOWLIST[0] == f"nodes=[{','.join(_allowlisted('nodes'))}]"
