"""`simulate` with a reserved pool: the unused reservation is its own term in the JSON, the
terminal and the report, and GPU time is priced at the amortised rate (hand figures).

One node (minNodes 1) up the whole 10-hour window; 2 nodes reserved at 5.00/node-hour, on-demand
8.00. Covered: 1 node x 10 h = 10 node-hours at 5.00 = 50.00 (amortised 5.00 a node-hour); unused:
(2 - 1) x 10 h x 5.00 = 50.00; total 100.00. The one job (8 GPUs, 2 h) holds 16 GPU-hours at
5.00 / 8 = 0.625: its team's cost is 10.00.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplane.cli import app

SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: reserved, provider: aks, region: eastus}
nodePools:
  - name: gpu
    accelerator: A100-80GB
    vmSize: Standard_ND96amsr_A100_v4
    minNodes: 1
    maxNodes: 2
    purchase:
      - {option: reserved, count: 2, term: 1y, hourly: 5.0}
      - {option: on-demand}
teams:
  - {name: t, namespaces: [t], quotas: [{pool: gpu, nominal: 8}]}
costs:
  pools:
    gpu: {onDemandHourly: 8.0}
"""
TRACE = "id,team,class,submit_s,pod_sets,work_gpu_s\nj1,t,training,0,main:1x8,57600\n"


def test_simulate_shows_unused_reservation_and_amortised_gpu_cost(tmp_path: Path) -> None:
    (tmp_path / "platform.yaml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "trace.csv").write_text(TRACE, encoding="utf-8")
    args = [
        "simulate", str(tmp_path / "platform.yaml"), "-w", str(tmp_path / "trace.csv"),
        "--horizon-hours", "10", "--spot-eviction-rate", "0", "--node-failure-rate", "0",
        "--json", str(tmp_path / "m.json"), "--report", str(tmp_path / "r.html"),
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    metrics = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    cost = metrics["cost"]
    assert cost["gpu"] == pytest.approx(50.0, abs=0.005)
    assert cost["unused_reservation"] == pytest.approx(50.0, abs=0.005)
    assert "unused_reservation" in cost["declared"]
    assert cost["total"] == pytest.approx(100.0, abs=0.005)
    assert any("unused reservation (idle)" in line and "50.00" in line for line in result.output.splitlines())
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "unused reservation (idle)" in html
    assert metrics["teams"]["t"]["cost"]["gpu"] == pytest.approx(10.0, abs=0.005)
