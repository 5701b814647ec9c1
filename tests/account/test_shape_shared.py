"""Time-sliced GPUs as dcgm-exporter shows them, with and without KUBERNETES_VIRTUAL_GPUS.

The same events happen on two T4 nodes (each GPU time-sliced 4 ways, 10 W idle):
- t4-flip: dcgm-exporter without KUBERNETES_VIRTUAL_GPUS — one series per GPU naming one of the
  running pods, picked anew at every scrape;
- t4-virt: with it — one series per replica a pod holds (`vgpu`), each with the GPU's value.

| pod (on each node) | replicas | runs     | its engine activity |
|--------------------|----------|----------|---------------------|
| a                  | 1        | 0-24 h   | 0.2                 |
| b                  | 2        | 6-18 h   | 0.3                 |
| c                  | 1        | 20-22 h  | 0.1                 |

The GPU's activity is the sum of its running pods': 0.2 (0-6, 18-20, 22-24 h), 0.5 (6-18 h),
0.3 (20-22 h). A pod's useful time is its replicas' share (replicas/4) of that activity while it
runs; both nodes must give the same figures.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuplane.account.compute import AccountResult
from gpuplane.account.engine import run
from gpuplane.account.prom import PromClient
from gpuplane.account.window import Window
from tests.account.conftest import need_prometheus, parse
from tests.support.exporter_series import PROF, Dcgm, Gpu, Node, Pod, Table
from tests.support.promserver import PrometheusServer, serve_tables

DAY, H = 1767744000.0, 3600.0  # 2026-01-07
REL, ABS = 1e-3, 1e-3
SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: shared-shape, provider: aks, region: eastus}
nodePools:
  - {name: t4, accelerator: T4, vmSize: Standard_NC4as_T4_v3, minNodes: 2, maxNodes: 2,
     sharing: {mode: time-slicing, replicas: 4}}
teams: [{name: dev, namespaces: [flip, virt]}]
costs: {currency: USD, pools: {t4: {onDemandHourly: 0.6}}}
"""


def _t(hours: float) -> float:
    return DAY + hours * H


def _node(name: str, virtual: bool) -> Node:
    return Node(
        name,
        {"gpuplane.io/pool": "t4"},
        _t(-1),
        _t(24),
        (Gpu(f"GPU-{name}", idle_w=10),),
        {"nvidia.com/gpu": 4},
        model="Tesla T4",
        dcgm=Dcgm(virtual_gpus=virtual),
        replicas=4,
    )


def _pods(namespace: str, node: str) -> list[Pod]:
    gpu = "nvidia.com/gpu"
    return [
        Pod(namespace, "a", node, gpu, 1, _t(-1), _t(-1), _t(24), "Running", ((0, None),), 0.2, 5),
        Pod(namespace, "b", node, gpu, 2, _t(6), _t(6), _t(18), "Succeeded", ((0, None),), 0.3, 10),
        Pod(namespace, "c", node, gpu, 1, _t(20), _t(20), _t(22), "Succeeded", ((0, None),), 0.1, 2),
    ]


TABLE = Table(
    start=_t(-1),
    end=_t(24),
    nodes=[_node("t4-flip", False), _node("t4-virt", True)],
    pods=_pods("flip", "t4-flip") + _pods("virt", "t4-virt"),
    seed=7,
)
GPU_ACTIVITY = [(0, 6, 0.2), (6, 18, 0.5), (18, 20, 0.2), (20, 22, 0.3), (22, 24, 0.2)]  # from the table


def _useful(replicas: int, runs: tuple[float, float]) -> float:
    """replicas/4 of the GPU's activity over the hours the pod ran (by hand from GPU_ACTIVITY)."""
    lo, hi = runs
    return sum(replicas / 4 * a * max(0.0, min(b, hi) - max(s, lo)) for s, b, a in GPU_ACTIVITY)


HAND = {  # (allocated, useful) GPU-hours
    "a": (24 / 4, _useful(1, (0, 24))),  # 0.25 x (0.2x6 + 0.5x12 + 0.2x2 + 0.3x2 + 0.2x2) = 2.15
    "b": (12 * 2 / 4, _useful(2, (6, 18))),  # 0.5 x 0.5 x 12 = 3.0
    "c": (2 / 4, _useful(1, (20, 22))),  # 0.25 x 0.3 x 2 = 0.15
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrometheusServer]:
    need_prometheus()
    with serve_tables([TABLE], Path(tmp_path_factory.mktemp("shared"))) as running:
        yield running


@pytest.fixture(scope="module")
def result(server: PrometheusServer) -> AccountResult:
    return run(server.url, parse(SPEC), Window.make(DAY, DAY + 86400, 30))


def test_the_data_has_both_exporter_shapes(server: PrometheusServer) -> None:
    at = DAY + 12 * H  # a, b running on both nodes
    with PromClient(server.url) as client:
        flip = client.instant(f'count by (pod) ({PROF}{{Hostname="t4-flip"}})', at)
        virt = client.instant(f'count by (pod) ({PROF}{{Hostname="t4-virt"}})', at)
        names = client.instant(
            f'count(count by (pod) (max_over_time({PROF}{{Hostname="t4-flip"}}[10h])))', at
        )
    assert len(flip) == 1 and flip[0].value == 1  # one series, naming one of the two pods
    assert {s.labels["pod"]: s.value for s in virt} == {"a": 1, "b": 2}  # one per replica held
    assert names[0].value == 2  # over the hours both pods were named in turn


@pytest.mark.parametrize("namespace", ["flip", "virt"])
def test_each_sharing_pod_gets_its_replicas_share_of_the_gpu_activity(
    result: AccountResult, namespace: str
) -> None:
    pods = {p.pod: p for p in result.pods if p.namespace == namespace}
    for name, (allocated, useful) in HAND.items():
        pod = pods[name]
        assert pod.allocated_h == pytest.approx(allocated, rel=REL, abs=ABS), name
        assert pod.useful_h == pytest.approx(useful, rel=REL, abs=ABS), name
        assert pod.idle_h == pytest.approx(allocated - useful, rel=REL, abs=ABS), name
        assert pod.unmeasured_h == pytest.approx(0, abs=ABS), name


def test_only_the_flipping_gpu_is_split_and_the_note_says_how_to_fix_the_exporter(
    result: AccountResult,
) -> None:
    note = next(n for n in result.notes if "KUBERNETES_VIRTUAL_GPUS" in n)
    assert "GPU-t4-flip on t4-flip" in note and "t4-virt" not in note
    assert "dcgmExporter.env" in note


def test_power_is_counted_once_per_shared_gpu(result: AccountResult) -> None:
    pool = result.pool("t4")
    watt_hours = 2 * (10 * 24 + 5 * 24 + 10 * 12 + 2 * 2)  # both nodes: idle + each pod's watts while it runs
    assert pool is not None and pool.energy_kwh == pytest.approx(watt_hours / 1000, rel=REL)


def test_the_report_timeline_credits_the_split_activity(result: AccountResult) -> None:
    line = result.timeline
    assert line is not None
    noon = line.times.index(DAY + 12 * H)
    per_node = (1 / 4 + 2 / 4) * 0.5  # a's and b's replicas of the GPU's 0.5 activity
    assert line.useful[noon] == pytest.approx(2 * per_node)
    assert line.idle[noon] == pytest.approx(2 * (3 / 4 - per_node))
    assert line.unmeasured[noon] == pytest.approx(0)
