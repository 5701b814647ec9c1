"""kube-state-metrics as it really is: allowlisted labels only, requests before and after a pod runs.

Two days, each its own table in one Prometheus:

Day A (kube-state-metrics without --metric-labels-allowlist: no kube_node_labels, no kube_pod_labels):
| node     | labels on the node               | GPUs (DCGM)  | pods                                                        |
|----------|----------------------------------|--------------|-------------------------------------------------------------|
| gpu-0    | gpuplane.io/pool=train           | 2            | x: created 0 h, Pending until 2 h, runs 2-10 h on GPU 0 at 0.5 |
| cpu-0    | gpuplane.io/pool=cpu             | none         |                                                             |

Day B, two days later (allowlist `nodes=[kubernetes.azure.com/agentpool]`: the pool comes from the cloud label):
| node         | agentpool | GPUs | pods                                                            |
|--------------|-----------|------|-----------------------------------------------------------------|
| aks-train-0  | train     | 2    | y: created 0 h, Pending (node="") until 1 h, runs 1-5 h on 2 GPUs at 0.5, Succeeded; its requests stay (with the node) until 5:30 |
| aks-big-0    | bigtrain  | 2    | (spec pool `big-train`: AKS pool names have no dashes)          |
| aks-cpu-0    | cpu       | none |                                                                 |
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuplane.account.compute import AccountResult
from gpuplane.account.engine import run
from gpuplane.account.window import Window
from gpuplane.render import monitoring
from tests.account.conftest import need_prometheus, parse
from tests.support.exporter_series import Gpu, Node, Pod, Table
from tests.support.promserver import PrometheusServer, serve_tables

DAY_A, DAY_B, H = 1767916800.0, 1768089600.0, 3600.0  # 2026-01-09, 2026-01-11 (the tables must not overlap)
REL, ABS = 1e-3, 1e-3
SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: ksm-shape, provider: aks, region: eastus}
nodePools:
  - {name: train, accelerator: A100-80GB, vmSize: Standard_NC48ads_A100_v4, minNodes: 1, maxNodes: 1}
  - {name: big-train, accelerator: A100-80GB, vmSize: Standard_NC48ads_A100_v4, minNodes: 1, maxNodes: 1}
  - {name: cpu, vmSize: Standard_D16s_v5, minNodes: 1, maxNodes: 1}
teams: [{name: ml, namespaces: [ml]}]
costs: {currency: USD, pools: {train: {onDemandHourly: 8.0}, big-train: {onDemandHourly: 8.0}, cpu: {onDemandHourly: 1.0}}}
"""
GPU = "nvidia.com/gpu"


def _gpu_node(name: str, labels: dict[str, str], day: float) -> Node:
    return Node(name, labels, day - H, day + 24 * H, (Gpu(f"GPU-{name}-0"), Gpu(f"GPU-{name}-1")), {GPU: 2})


NO_ALLOWLIST = Table(
    start=DAY_A - H,
    end=DAY_A + 24 * H,
    nodes=[
        _gpu_node("gpu-0", {"gpuplane.io/pool": "train"}, DAY_A),
        Node("cpu-0", {"gpuplane.io/pool": "cpu"}, DAY_A - H, DAY_A + 24 * H),
    ],
    pods=[
        Pod("ml", "x", "gpu-0", GPU, 1, DAY_A, DAY_A + 2 * H, DAY_A + 10 * H, "Succeeded", ((0, None),), 0.5)
    ],
    node_label_allowlist=None,
    pod_label_allowlist=None,
)
CLOUD_LABEL_ONLY = Table(
    start=DAY_B - H,
    end=DAY_B + 24 * H,
    nodes=[
        _gpu_node(
            "aks-train-0", {"gpuplane.io/pool": "train", "kubernetes.azure.com/agentpool": "train"}, DAY_B
        ),
        _gpu_node("aks-big-0", {"kubernetes.azure.com/agentpool": "bigtrain"}, DAY_B),
        Node("aks-cpu-0", {"kubernetes.azure.com/agentpool": "cpu"}, DAY_B - H, DAY_B + 24 * H),
    ],
    pods=[
        Pod(
            "ml",
            "y",
            "aks-train-0",
            GPU,
            2,
            DAY_B,
            DAY_B + H,
            DAY_B + 5 * H,
            "Succeeded",
            ((0, None), (1, None)),
            0.5,
        )
    ],
    node_label_allowlist=("kubernetes.azure.com/agentpool",),
    linger_s=1800,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrometheusServer]:
    need_prometheus()
    with serve_tables([NO_ALLOWLIST, CLOUD_LABEL_ONLY], Path(tmp_path_factory.mktemp("ksm"))) as running:
        yield running


@pytest.fixture(scope="module")
def no_allowlist(server: PrometheusServer) -> AccountResult:
    return run(server.url, parse(SPEC), Window.make(DAY_A, DAY_A + 86400, 30), charts=False)


@pytest.fixture(scope="module")
def cloud_label(server: PrometheusServer) -> AccountResult:
    return run(server.url, parse(SPEC), Window.make(DAY_B, DAY_B + 86400, 30), charts=False)


def test_without_node_labels_gpu_nodes_are_still_provisioned_and_the_note_names_the_allowlist_entry(
    no_allowlist: AccountResult,
) -> None:
    unknown = no_allowlist.pool("unknown")
    assert unknown is not None and unknown.nodes_seen == 1  # gpu-0; cpu-0 has no GPUs: not a GPU node
    assert unknown.provisioned_h == pytest.approx(2 * 24, rel=REL)  # its 2 GPUs, counted from DCGM
    note = next(n for n in no_allowlist.notes if n.startswith("kube_node_labels is missing"))
    assert monitoring.KSM_LABEL_ALLOWLIST[0] in note  # exactly the entry render writes
    assert "--metric-labels-allowlist" in note


def test_without_pod_labels_teams_come_from_namespaces_and_the_note_says_which_entry(
    no_allowlist: AccountResult,
) -> None:
    (pod,) = no_allowlist.pods
    assert pod.team == "ml" and pod.queue == "" and pod.job == ""
    note = next(n for n in no_allowlist.notes if n.startswith("kube_pod_labels is missing"))
    assert monitoring.KSM_LABEL_ALLOWLIST[1] in note


def test_pending_time_with_an_empty_node_label_is_not_allocated(no_allowlist: AccountResult) -> None:
    (pod,) = no_allowlist.pods
    assert pod.allocated_h == pytest.approx(8, rel=REL)  # 2-10 h, not from creation at 0 h
    assert pod.useful_h == pytest.approx(8 * 0.5, rel=REL)
    assert pod.queue_wait_s == pytest.approx(2 * H)


def test_pools_come_from_the_cloud_node_pool_label(cloud_label: AccountResult) -> None:
    assert {p.pool for p in cloud_label.pools} == {"train", "big-train"}  # no `unknown`, no CPU pool
    for name in ("train", "big-train"):
        pool = cloud_label.pool(name)
        assert pool is not None and pool.nodes_seen == 1
        assert pool.provisioned_h == pytest.approx(2 * 24, rel=REL), name
    assert not any("belong to no pool" in n or "carry no pool label" in n for n in cloud_label.notes)


def test_requests_before_scheduling_and_after_the_pod_finished_are_not_allocated(
    cloud_label: AccountResult,
) -> None:
    (pod,) = cloud_label.pods
    assert pod.allocated_h == pytest.approx(2 * 4, rel=REL)  # 2 GPUs x 1-5 h; not 0-1 h, not 5-5:30 h
    assert pod.outcome == "Succeeded" and pod.gpus == pytest.approx(2)
    assert pod.gpu_hourly == pytest.approx(4.0)  # priced as pool train
