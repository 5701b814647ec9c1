"""What render writes for Kueue is what explain (and so the simulator) reads: the rendered kueue/
and tenancy/ folders plus real Workloads admit into the pool's flavor, and the fair-sharing
Configuration fragment (always written) switches explain's mode only when it turns fair sharing on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from gpuplane.cli import app

REPO = Path(__file__).resolve().parents[2]

WORKLOADS = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: train-1, namespace: vision, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  queueName: vision
  podSets:
    - name: main
      count: 4
      template:
        spec:
          containers:
            - name: c
              resources: {requests: {cpu: "8", memory: 64Gi, nvidia.com/gpu: "1"}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: serve-1, namespace: serving, creationTimestamp: "2026-01-01T00:00:01Z"}
spec:
  queueName: serving
  podSets:
    - name: main
      count: 2
      template:
        spec:
          containers:
            - name: c
              resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/mig-3g.40gb: "1"}}
"""


def _render(spec: str, out: Path) -> None:
    result = CliRunner().invoke(app, ["render", str(REPO / "examples" / spec), "-o", str(out)])
    assert result.exit_code == 0, result.output


def _explain(*paths: Path) -> dict[str, Any]:
    args = ["explain", "-o", "json"]
    for path in paths:
        args += ["-f", str(path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def test_rendered_queues_admit_workloads_into_their_pools_flavor(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _render("aks-platform.yaml", out)
    workloads = tmp_path / "workloads.yaml"
    workloads.write_text(WORKLOADS)
    report = _explain(out / "kueue", out / "tenancy" / "namespaces.yaml", workloads)
    cycle = report["cycles"][0]
    admitted = {a["workload"]: a for a in cycle["admitted"]}
    assert set(admitted) == {"vision/train-1", "serving/serve-1"}, cycle
    assert admitted["vision/train-1"]["clusterQueue"] == "vision"
    assert admitted["vision/train-1"]["podSets"][0]["flavors"]["nvidia.com/gpu"] == "a100-spot"
    assert admitted["serving/serve-1"]["podSets"][0]["flavors"]["nvidia.com/mig-3g.40gb"] == "a100-mig"
    assert report["fairSharing"] is False


def test_the_configuration_fragment_sets_explains_mode_with_and_without_fair_sharing(tmp_path: Path) -> None:
    # gke-h100 turns fair sharing on, aks-platform does not; both fragments carry the metrics
    # setting account needs, and explain follows the fragment's fairSharing section only.
    for example, fair in (("gke-h100.yaml", True), ("aks-platform.yaml", False)):
        out = tmp_path / example
        _render(example, out)
        fragment = yaml.safe_load((out / "kueue" / "kueue-configuration.yaml").read_text())
        assert fragment["metrics"] == {"enableClusterQueueResources": True}
        assert ("fairSharing" in fragment) is fair
        assert _explain(out / "kueue")["fairSharing"] is fair, example
