"""Kueue's admission-wait histogram as Kueue exposes it, over a window (one day from DAY).

| ClusterQueue | admissions (time: wait)                                          | what it exercises                 |
|--------------|------------------------------------------------------------------|-----------------------------------|
| research     | -3 h: 10 s, -2 h: 20 s (before); 2 h: 40 s; 3 h: 200 s, the first of priority class `high`; Kueue restarts at 5 h; 8 h: 100 s; 9 h: 60 s | a child born in the window; counters reset by a restart |
| quiet        | -2 h: 30 s (before), nothing inside                               | a queue with no admission: NaN in PromQL |
| fresh        | 1 h: 30 s (its first ever)                                       | a queue whose series is born in the window |

Mean wait inside the window, by hand: research (40 + 200 + 100 + 60) / 4 = 100 s; quiet: none;
fresh: 30 s.
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
from tests.support.exporter_series import Admission, Gpu, Node, Queue, Table
from tests.support.promserver import PrometheusServer, serve_tables

DAY, H = 1768176000.0, 3600.0  # 2026-01-12
SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: kueue-shape, provider: aks, region: eastus}
nodePools:
  - {name: train, accelerator: A100-80GB, vmSize: Standard_NC48ads_A100_v4, minNodes: 1, maxNodes: 1}
teams: [{name: research, namespaces: [research]}]
costs: {currency: USD, pools: {train: {onDemandHourly: 8.0}}}
"""


def _t(hours: float) -> float:
    return DAY + hours * H


TABLE = Table(
    start=_t(-4),
    end=_t(24),
    nodes=[
        Node("gpu-0", {"gpuplane.io/pool": "train"}, _t(-4), _t(24), (Gpu("GPU-0"),), {"nvidia.com/gpu": 1})
    ],
    queues=[
        Queue("research", ((_t(-4), 3, 0), (_t(10), 0, 0)), admitted=1, usage_gpus=1),
        Queue("quiet", ((_t(-4), 0, 2),)),
        Queue("fresh", ((_t(-4), 0, 0),)),
    ],
    admissions=[
        Admission("research", _t(-3), 10),
        Admission("research", _t(-2), 20),
        Admission("research", _t(2), 40),
        Admission("research", _t(3), 200, priority_class="high"),
        Admission("research", _t(8), 100),
        Admission("research", _t(9), 60),
        Admission("quiet", _t(-2), 30),
        Admission("fresh", _t(1), 30),
    ],
    kueue_restarts=(_t(5),),
    kueue_resource_usage=True,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrometheusServer]:
    need_prometheus()
    with serve_tables([TABLE], Path(tmp_path_factory.mktemp("kueue"))) as running:
        yield running


@pytest.fixture(scope="module")
def result(server: PrometheusServer) -> AccountResult:
    return run(server.url, parse(SPEC), Window.make(DAY, DAY + 86400, 30), charts=False)


def test_promql_alone_gets_these_queues_wrong(server: PrometheusServer) -> None:
    """The naive ratio is NaN for the quiet queue and misses the observations that created series."""
    query = (
        "sum by (cluster_queue) (increase(kueue_admission_wait_time_seconds_sum[1d])) / "
        "sum by (cluster_queue) (increase(kueue_admission_wait_time_seconds_count[1d]))"
    )
    with PromClient(server.url) as client:
        naive = {s.labels["cluster_queue"]: s.value for s in client.instant(query, DAY + 86400 - 30)}
    assert "quiet" not in naive  # NaN, dropped by the client
    assert naive.get("research") != pytest.approx(100.0)


def test_mean_wait_counts_every_admission_inside_the_window(result: AccountResult) -> None:
    k = result.kueue
    assert k.admissions == pytest.approx({"research": 4, "quiet": 0, "fresh": 1})
    assert k.mean_wait_s["research"] == pytest.approx((40 + 200 + 100 + 60) / 4)
    assert k.mean_wait_s["fresh"] == pytest.approx(30)
    assert k.mean_wait_s["quiet"] is None


def test_pending_and_usage_at_the_end(result: AccountResult) -> None:
    k = result.kueue
    assert k.pending == pytest.approx({"research": 0, "quiet": 2, "fresh": 0})
    assert k.usage == pytest.approx(
        {("research", "nvidia.com/gpu"): 1, ("quiet", "nvidia.com/gpu"): 0, ("fresh", "nvidia.com/gpu"): 0}
    )
    assert any("quiet" in n and "admitted no workload" in n for n in result.notes)
    assert not any("enableClusterQueueResources" in n for n in result.notes)
