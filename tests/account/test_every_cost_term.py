"""Every term of the cost formula, by hand, to the cent (issue 21, deliver 2): `simulate --json`,
its HTML report and `account` (through a real Prometheus) on one spec that declares storage,
network traffic, a control-plane tier, a CPU pool and support, and leaves operations out.

Hand figures over a 10-hour window (730 h to the month, the providers' convention):

| term            | input                                               | by hand                       |
|-----------------|-----------------------------------------------------|-------------------------------|
| GPU time        | one 8-GPU node up all window at 8.00/node-hour       | 8.00 x 10 = 80.00             |
| storage         | volumes 1000 + 460 GiB at 0.10/GiB-month             | 1460 x 0.10 x 10/730 = 2.00   |
| network         | 100 GiB/accepted unit + 2 GiB/GPU-hour at 0.05/GiB    | (100 x 1 + 2 x 16) x 0.05 = 6.60 |
| control plane   | AKS standard tier, 0.10/cluster-hour (catalog)       | 0.10 x 10 = 1.00              |
| CPU pools' nodes| 2 nodes of `cpu` at 0.50/node-hour                   | 2 x 0.50 x 10 = 10.00         |
| support         | 730/month                                           | 730 x 10/730 = 10.00          |
| operations      | not declared                                        | (none)                        |
| total           |                                                     | 109.60                        |

The one job: 1 pod x 8 GPUs, 2 hours from t=0, completes (1 accepted unit, 16 GPU-hours).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gpuplane.account import views
from gpuplane.account.engine import run
from gpuplane.account.output import print_tables
from gpuplane.account.report import build_page
from gpuplane.account.window import Window
from gpuplane.cli import app
from gpuplane.spec import load_spec
from tests.account.conftest import need_prometheus
from tests.support.event_table import Gpu, Node, Pod, Table
from tests.support.promserver import PrometheusServer, build_tsdb

SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: costed, provider: aks, region: eastus}
nodePools:
  - {name: gpu, accelerator: A100-80GB, vmSize: Standard_ND96amsr_A100_v4, minNodes: 1, maxNodes: 1}
  - {name: cpu, vmSize: Standard_D16s_v5, minNodes: 2, maxNodes: 2}
teams:
  - {name: t, namespaces: [t], quotas: [{pool: gpu, nominal: 8}]}
costs:
  pools:
    gpu: {onDemandHourly: 8.0}
    cpu: {onDemandHourly: 0.5}
  supportMonthly: 730
  storagePerGiBMonth: 0.10
  storage:
    - {name: shared-fs, gib: 1000, team: t}
    - {name: checkpoints, gib: 460, pool: gpu}
  networkPerGiB: 0.05
  network: {perAcceptedUnitGiB: 100, perGpuHourGiB: 2}
  controlPlaneTier: standard
"""
TRACE = "id,team,class,submit_s,pod_sets,work_gpu_s\nj1,t,training,0,main:1x8,57600\n"
HAND = {
    "storage": 2.00,
    "network": 6.60,
    "control_plane": 1.00,
    "cpu_nodes": 10.00,
    "support": 10.00,
    "operations": None,
}
GPU, TOTAL = 80.00, 109.60
DAY = 1767571200.0
H = 3600.0


def at(hours: float) -> float:
    return DAY + hours * H


@pytest.fixture(scope="module")
def spec_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("costed") / "platform.yaml"
    path.write_text(SPEC, encoding="utf-8")
    return path


def _simulate(spec_file: Path, out: Path) -> tuple[dict[str, object], str, str]:
    trace = out / "trace.csv"
    trace.write_text(TRACE, encoding="utf-8")
    args = [
        "simulate", str(spec_file), "-w", str(trace), "--horizon-hours", "10",
        "--spot-eviction-rate", "0", "--node-failure-rate", "0", "--provisioning-delay", "0",
        "--json", str(out / "m.json"), "--report", str(out / "r.html"),
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    metrics = json.loads((out / "m.json").read_text(encoding="utf-8"))
    return metrics, result.output, (out / "r.html").read_text(encoding="utf-8")


def test_simulate_json_terminal_and_report_show_every_term(spec_file: Path, tmp_path: Path) -> None:
    metrics, terminal, html = _simulate(spec_file, tmp_path)
    cost = metrics["cost"]
    assert isinstance(cost, dict)
    assert metrics["accepted_units"] == 1
    assert cost["gpu"] == pytest.approx(GPU, abs=0.005)
    for term, value in HAND.items():
        assert cost[term] == (None if value is None else pytest.approx(value, abs=0.005)), term
    assert cost["declared"] == ["network", "storage", "control_plane", "cpu_nodes", "support"]
    assert round(cost["total"], 2) == TOTAL
    assert round(metrics["cost_per_accepted_unit"], 2) == TOTAL  # type: ignore[call-overload]
    for label, text in (
        ("network", "6.60"),
        ("storage", "2.00"),
        ("control plane", "1.00"),
        ("CPU pool nodes", "10.00"),
        ("support", "10.00"),
        ("operations", "not declared"),
    ):
        assert any(label in line and text in line for line in terminal.splitlines()), (label, terminal)
        assert label in html and text in html
    assert "109.60" in terminal


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    need_prometheus()
    work = tmp_path_factory.mktemp("costed-prom")
    labels = {"gpuplane.io/pool": "gpu", "kubernetes.azure.com/agentpool": "gpu"}
    gpu_node = Node(
        "aks-gpu-0", labels, at(-1), at(11), gpus=tuple(Gpu(f"GPU-{i}") for i in range(8)),
        allocatable={"nvidia.com/gpu": 8},
    )  # fmt: skip
    cpu_nodes = [
        Node(
            f"aks-cpu-{i}",
            {"gpuplane.io/pool": "cpu", "kubernetes.azure.com/agentpool": "cpu"},
            at(-1),
            at(11),
        )
        for i in range(2)
    ]
    pod = Pod("t", "j1", "aks-gpu-0", "nvidia.com/gpu", 8, at(0), at(0), at(2), "Succeeded",
              tuple((g, None) for g in range(8)), 0.5, 100, {"kueue.x-k8s.io/queue-name": "t"})  # fmt: skip
    table = Table(
        start=at(-1), end=at(11), nodes=[gpu_node, *cpu_nodes], pods=[pod], scrape_s=60.0,
        node_label_allowlist=("gpuplane.io/pool", "kubernetes.azure.com/agentpool"),
        pod_label_allowlist=("kueue.x-k8s.io/queue-name",),
    )  # fmt: skip
    build_tsdb([table], work / "tsdb")
    server = PrometheusServer(work / "tsdb", work / "server", scrape_s=60)
    try:
        server.wait_ready()
        yield server.url
    finally:
        server.stop()


def test_account_shows_every_term_and_the_same_total(spec_file: Path, prometheus: str) -> None:
    spec = load_spec(spec_file, priced=True)
    result = run(prometheus, spec, Window.make(at(0), at(10), 60.0))
    s = views.summary(result)
    assert s.accepted == 1
    assert s.hours.allocated == pytest.approx(16.0, rel=1e-3)
    assert s.cost.gpu == pytest.approx(GPU, abs=0.01)
    for term, value in HAND.items():
        got = s.cost.term(term)
        assert got == (None if value is None else pytest.approx(value, abs=0.01)), term
    assert round(s.cost.total, 2) == TOTAL
    assert result.team_storage == pytest.approx({"t": 1000 * 0.10 * 10 / 730})
    assert round(views.team_effective(result)["t"].total, 2) == TOTAL  # the only team carries it all
    data = s.as_dict()["cost"]
    assert data["operations"] is None and "operations" not in data["declared"]
    console = Console(record=True, width=200)
    print_tables(result, console)
    text = console.export_text()
    assert "Overheads (USD): network 6.60  storage 2.00  control plane 1.00  CPU pool nodes 10.00" in text
    assert "support 10.00  operations not declared" in text
    html = build_page(result).render()
    assert "Control plane (USD)" in html and "not declared" in html
