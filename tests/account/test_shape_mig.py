"""MIG GPUs as dcgm-exporter shows them: only GPU-instance series, power repeated on each, no GPU_UTIL.

Event table (one day from DAY; A100-80GB, 7 compute slices; MIG 3g.40gb GI 1, 2g.20gb GI 2,
1g.10gb GI 3 and GI 4 on each GPU; 60 W idle per GPU):

| node  | dcgm-exporter            | pod     | instance | runs        | activity | + watts |
|-------|--------------------------|---------|----------|-------------|----------|---------|
| mig-0 | profiling on (default)   | serve   | 3g (GI 1)| 0-24 h      | 0.6      | 90      |
| mig-0 |                          | batch   | 2g (GI 2)| 4-16 h      | 0.3      | 40      |
| mig-0 |                          | idle-1g | 1g (GI 3)| 0-12 h      | 0.0      | 0       |
| mig-1 | no profiling (older CSV) | legacy  | 3g (GI 1)| 0-24 h      | 0.5      | 50      |
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
from tests.support.exporter_series import FB, POWER, TEMP, UTIL, Dcgm, Gpu, Node, Pod, Table
from tests.support.promserver import PrometheusServer, serve_tables

DAY, H = 1767657600.0, 3600.0  # 2026-01-06
REL, ABS = 1e-3, 1e-3
SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: mig-shape, provider: aks, region: eastus}
nodePools:
  - name: mig
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    minNodes: 2
    maxNodes: 2
    sharing: {mode: mig, strategy: mixed, layout: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]}
teams: [{name: serving, namespaces: [serving]}]
costs: {currency: USD, pools: {mig: {onDemandHourly: 3.5}}}
"""
LAYOUT = ((1, "3g.40gb"), (2, "2g.20gb"), (3, "1g.10gb"), (4, "1g.10gb"))
M3, M2, M1 = "nvidia.com/mig-3g.40gb", "nvidia.com/mig-2g.20gb", "nvidia.com/mig-1g.10gb"
ALLOCATABLE = {M3: 1, M2: 1, M1: 2}


def _t(hours: float) -> float:
    return DAY + hours * H


def _node(name: str, dcgm: Dcgm) -> Node:
    labels = {"gpuplane.io/pool": "mig"}
    return Node(
        name, labels, _t(-1), _t(24), (Gpu(f"GPU-{name}", LAYOUT, idle_w=60),), ALLOCATABLE, dcgm=dcgm
    )


TABLE = Table(
    start=_t(-1),
    end=_t(24),
    nodes=[_node("mig-0", Dcgm()), _node("mig-1", Dcgm(metrics=(UTIL, POWER, TEMP, FB)))],
    pods=[
        Pod("serving", "serve", "mig-0", M3, 1, _t(-1), _t(-1), _t(24), "Running", ((0, 1),), 0.6, 90),
        Pod("serving", "batch", "mig-0", M2, 1, _t(4), _t(4), _t(16), "Succeeded", ((0, 2),), 0.3, 40),
        Pod("serving", "idle-1g", "mig-0", M1, 1, _t(0), _t(0), _t(12), "Succeeded", ((0, 3),), 0.0, 0),
        Pod("serving", "legacy", "mig-1", M3, 1, _t(-1), _t(-1), _t(24), "Running", ((0, 1),), 0.5, 50),
    ],
)
# by hand: (allocated, useful, idle, unmeasured) GPU-hours; an instance is its slices over 7
HAND = {
    "serve": (24 * 3 / 7, 24 * 3 / 7 * 0.6, 24 * 3 / 7 * 0.4, 0.0),
    "batch": (12 * 2 / 7, 12 * 2 / 7 * 0.3, 12 * 2 / 7 * 0.7, 0.0),
    "idle-1g": (12 / 7, 0.0, 12 / 7, 0.0),  # measured at 0: idle
    "legacy": (24 * 3 / 7, 0.0, 0.0, 24 * 3 / 7),  # nothing measured it: unmeasured, not idle
}
ENERGY_KWH = (60 * 24 + 90 * 24 + 40 * 12) / 1000 + (60 * 24 + 50 * 24) / 1000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrometheusServer]:
    need_prometheus()
    with serve_tables([TABLE], Path(tmp_path_factory.mktemp("mig"))) as running:
        yield running


@pytest.fixture(scope="module")
def result(server: PrometheusServer) -> AccountResult:
    return run(server.url, parse(SPEC), Window.make(DAY, DAY + 86400, 30))


def test_the_data_has_the_exporters_mig_shape(server: PrometheusServer) -> None:
    with PromClient(server.url) as client:
        instance_util = client.instant(f'count(max_over_time({UTIL}{{GPU_I_ID!=""}}[1d]))', DAY + 86000)
        whole_gpu = client.instant(f'count(max_over_time({POWER}{{GPU_I_ID=""}}[1d]))', DAY + 86000)
        per_instance = client.instant(
            f"count(count by (UUID, GPU_I_ID) (max_over_time({POWER}[1d])))", DAY + 86000
        )
    assert not instance_util and not whole_gpu  # MIG GPUs have instance series only, and no GPU_UTIL on them
    assert per_instance[0].value == 8  # power repeated on each of the 2 x 4 instance series


def test_each_instance_counts_its_slices_and_its_own_activity(result: AccountResult) -> None:
    pods = {p.pod: p for p in result.pods}
    for name, expected in HAND.items():
        pod = pods[name]
        got = (pod.allocated_h, pod.useful_h, pod.idle_h, pod.unmeasured_h)
        assert got == pytest.approx(expected, rel=REL, abs=ABS), name
    assert pods["legacy"].activity is None and pods["legacy"].activity_source == ""
    assert pods["idle-1g"].activity == 0.0


def test_power_is_counted_once_per_physical_gpu(result: AccountResult) -> None:
    pool = result.pool("mig")
    assert pool is not None and pool.energy_kwh == pytest.approx(ENERGY_KWH, rel=REL)


def test_pool_provisioned_counts_physical_gpus(result: AccountResult) -> None:
    pool = result.pool("mig")
    assert pool is not None
    assert pool.provisioned_h == pytest.approx(2 * 24, rel=REL)
    allocated = sum(h[0] for h in HAND.values())
    assert pool.unallocated_h == pytest.approx(2 * 24 - allocated, rel=REL)
    assert pool.hours.unmeasured == pytest.approx(HAND["legacy"][3], rel=REL)
    assert any("MIG instances" in n and "unmeasured" in n for n in result.notes)
