"""`account` over a window with reserved nodes (issue 24, done means 3): the amortised price per
node-hour and the unused-reservation idle term match a hand computation to the cent, through a
real Prometheus.

Pool `gpu`: 2 nodes reserved (1y) at 3.00 per node-hour, on-demand burst at 8.00; 8 GPUs a node.
Window [0 h, 10 h). Nodes: A up all window, B up [2 h, 6 h), C up [3 h, 5 h). So n(t) = 1 on
[0,2), 2 on [2,3), 3 on [3,5), 2 on [5,6), 1 on [6,10):

| quantity                     | by hand                                  | value  |
|------------------------------|------------------------------------------|--------|
| node-hours                   | 2x1 + 1x2 + 2x3 + 1x2 + 4x1              | 16     |
| covered by the reservation   | integral of min(n, 2) = 2 + 2 + 4 + 2 + 4 | 14     |
| burst (on-demand)            | 16 - 14                                  | 2      |
| unused reservation           | 2 x 10 - 14                              | 6      |
| nodes that ran cost          | 14 x 3.00 + 2 x 8.00                     | 58.00  |
| amortised node-hour price    | 58.00 / 16                               | 3.625  |
| unused reservation (idle)    | 6 x 3.00                                 | 18.00  |
| total paid                   | 2 x 10 x 3.00 + 2 x 8.00 = 58.00 + 18.00 | 76.00  |
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuplane.account import views
from gpuplane.account.engine import run
from gpuplane.account.window import Window
from gpuplane.spec import load_spec
from tests.account.conftest import need_prometheus
from tests.support.event_table import Gpu, Node, Table
from tests.support.promserver import PrometheusServer, build_tsdb

SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: reserved, provider: aks, region: eastus}
nodePools:
  - name: gpu
    accelerator: A100-80GB
    vmSize: Standard_ND96amsr_A100_v4
    maxNodes: 3
    purchase:
      - {option: reserved, count: 2, term: 1y, payment: no-upfront, hourly: 3.0}
      - {option: on-demand}
teams:
  - {name: t, namespaces: [t], quotas: [{pool: gpu, nominal: 8}]}
costs:
  pools:
    gpu: {onDemandHourly: 8.0}
"""
DAY = 1767571200.0
H = 3600.0


def at(hours: float) -> float:
    return DAY + hours * H


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    need_prometheus()
    work = tmp_path_factory.mktemp("reserved-prom")
    labels = {"gpuplane.io/pool": "gpu", "kubernetes.azure.com/agentpool": "gpu"}

    def node(name: str, start: float, end: float) -> Node:
        gpus = tuple(Gpu(f"{name}-GPU-{i}") for i in range(8))
        return Node(name, labels, start, end, gpus=gpus, allocatable={"nvidia.com/gpu": 8})

    table = Table(
        start=at(-1), end=at(11),
        nodes=[node("aks-gpu-a", at(-1), at(11)), node("aks-gpu-b", at(2), at(6)), node("aks-gpu-c", at(3), at(5))],
        pods=[], scrape_s=60.0,
        node_label_allowlist=("gpuplane.io/pool", "kubernetes.azure.com/agentpool"),
    )  # fmt: skip
    build_tsdb([table], work / "tsdb")
    server = PrometheusServer(work / "tsdb", work / "server", scrape_s=60)
    try:
        server.wait_ready()
        yield server.url
    finally:
        server.stop()


def test_amortised_price_and_unused_reservation_match_the_hand_table(prometheus: str, tmp_path: Path) -> None:
    spec_file = tmp_path / "platform.yaml"
    spec_file.write_text(SPEC, encoding="utf-8")
    spec = load_spec(spec_file, priced=True)
    result = run(prometheus, spec, Window.make(at(0), at(10), 60.0))
    [pool] = [p for p in result.pools if p.pool == "gpu"]
    assert pool.hours.provisioned == pytest.approx(16 * 8, abs=0.01)
    assert pool.gpu_hourly * 8 == pytest.approx(3.625, abs=1e-9)
    s = views.summary(result)
    assert round(s.cost.gpu, 2) == 58.00
    assert round(s.cost.unused_reservation, 2) == 18.00
    assert s.cost.term("unused_reservation") == pytest.approx(18.0, abs=0.005)
    assert round(s.cost.total, 2) == 76.00
    assert s.as_dict()["cost"]["unused_reservation"] == pytest.approx(18.0, abs=0.005)
