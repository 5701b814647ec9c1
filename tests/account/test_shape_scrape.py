"""dcgm-exporter scraped as the GPU Operator's default ServiceMonitor does (`honorLabels: false`).

The holder's labels arrive as `exported_pod`/`exported_namespace`/`exported_container`, while
`pod`/`namespace` name the exporter's own pod; the node label is `hostname` (dcgm-exporter main
since #655); this exporter has no profiling metrics, only DCGM_FI_DEV_GPU_UTIL.

| node    | GPU | pod | runs   | activity (GPU_UTIL %) | + watts (50 W idle) |
|---------|-----|-----|--------|-----------------------|---------------------|
| train-0 | 0   | p1  | 0-24 h | 0.60 (60)             | 100                 |
| train-0 | 1   | p2  | 6-12 h | 0.25 (25)             | 50                  |
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
from tests.support.exporter_series import FB, POWER, TEMP, UTIL, XID, Dcgm, Gpu, Node, Pod, Table
from tests.support.promserver import PrometheusServer, serve_tables

DAY, H = 1767830400.0, 3600.0  # 2026-01-08
REL, ABS = 1e-3, 1e-3
SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: scrape-shape, provider: aks, region: eastus}
nodePools:
  - {name: train, accelerator: A100-80GB, vmSize: Standard_NC48ads_A100_v4, minNodes: 1, maxNodes: 1}
teams: [{name: ml, namespaces: [ml]}]
costs: {currency: USD, pools: {train: {onDemandHourly: 8.0}}}
"""


def _t(hours: float) -> float:
    return DAY + hours * H


NODE = Node(
    "train-0",
    {"gpuplane.io/pool": "train"},
    _t(-1),
    _t(24),
    (Gpu("GPU-a"), Gpu("GPU-b")),
    {"nvidia.com/gpu": 2},
    dcgm=Dcgm(metrics=(UTIL, POWER, TEMP, FB, XID), honor_labels=False, hostname_label="hostname"),
)
TABLE = Table(
    start=_t(-1),
    end=_t(24),
    nodes=[NODE],
    pods=[
        Pod(
            "ml",
            "p1",
            "train-0",
            "nvidia.com/gpu",
            1,
            _t(-1),
            _t(-1),
            _t(24),
            "Running",
            ((0, None),),
            0.6,
            100,
        ),
        Pod(
            "ml",
            "p2",
            "train-0",
            "nvidia.com/gpu",
            1,
            _t(6),
            _t(6),
            _t(12),
            "Succeeded",
            ((1, None),),
            0.25,
            50,
        ),
    ],
)
HAND = {"p1": (24, 24 * 0.6, 24 * 0.4), "p2": (6, 6 * 0.25, 6 * 0.75)}  # allocated, useful, idle
ENERGY_KWH = (2 * 50 * 24 + 100 * 24 + 50 * 6) / 1000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrometheusServer]:
    need_prometheus()
    with serve_tables([TABLE], Path(tmp_path_factory.mktemp("scrape"))) as running:
        yield running


@pytest.fixture(scope="module")
def result(server: PrometheusServer) -> AccountResult:
    return run(server.url, parse(SPEC), Window.make(DAY, DAY + 86400, 30))


def test_the_data_has_the_honor_labels_false_shape(server: PrometheusServer) -> None:
    with PromClient(server.url) as client:
        series = client.instant(f"{UTIL}", DAY + 8 * H)
    assert {s.labels.get("exported_pod") for s in series} == {"p1", "p2"}
    assert {s.labels["pod"] for s in series} == {"nvidia-dcgm-exporter-x7k2p"}  # the exporter's own pod
    assert all("hostname" in s.labels and "Hostname" not in s.labels for s in series)


def test_exported_pod_labels_are_used_and_said(result: AccountResult) -> None:
    pods = {p.pod: p for p in result.pods}
    assert set(pods) == set(HAND)
    for name, expected in HAND.items():
        got = (pods[name].allocated_h, pods[name].useful_h, pods[name].idle_h)
        assert got == pytest.approx(expected, rel=REL, abs=ABS), name
        assert pods[name].activity_source == UTIL
    assert any("exported_pod" in n and "honorLabels: true" in n for n in result.notes)
    assert any(f"weighted by {UTIL}" in n for n in result.notes)


def test_lowercase_hostname_ties_power_and_health_to_the_node(result: AccountResult) -> None:
    pool = result.pool("train")
    assert pool is not None
    assert pool.energy_kwh == pytest.approx(ENERGY_KWH, rel=REL)
    assert pool.max_temp_c == pytest.approx(round(30 + (50 + 100) / 10))
