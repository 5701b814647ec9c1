"""explain's one-line answer for a multi-pod-set job names the blocker the cycle table shows: the
pod set that failed and its flavor attempts, with the same heap/inadmissible state (issue 21).

Hand figures on examples/aks-platform.yaml: team vision has nominal 6 + borrowingLimit 6 = 12
nvidia.com/gpu on a100-spot (cohort ml: 6 + 8 free), 0 on a100-mig, and its t4-dev flavor holds 16
cpu. A PyTorchJob with master x1 and worker x15, 1 GPU and 4 cpu each: the master takes a100-spot
(1 <= 12), then the worker needs 1 + 15 = 16 > 12 there, 15 > 0 on a100-mig and 15 x 4 = 60 > 16
cpu on t4-dev (the master's cpu is counted on a100-spot, the flavor it took). The old headline
quoted the settled state's rescan, starting with the master's "a100-mig: needs 1 ... capacity 0",
and said "inadmissible" while the table said "heap".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from gpuplane.cli import app

REPO = Path(__file__).resolve().parents[2]

PYTORCHJOB = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: big
  namespace: vision
  labels: {kueue.x-k8s.io/queue-name: vision}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - {name: pytorch, image: x, resources: {requests: {cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}}}
    Worker:
      replicas: 15
      template:
        spec:
          containers:
          - {name: pytorch, image: x, resources: {requests: {cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}}}
"""


def _explain(tmp_path: Path, *extra: str) -> tuple[dict[str, Any], str]:
    out = tmp_path / "out"
    runner = CliRunner()
    result = runner.invoke(app, ["render", str(REPO / "examples" / "aks-platform.yaml"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    job = tmp_path / "job.yaml"
    job.write_text(PYTORCHJOB)
    args = [
        "explain",
        "-f",
        str(out / "kueue"),
        "-f",
        str(out / "tenancy" / "namespaces.yaml"),
        "-f",
        str(job),
    ]
    as_json = runner.invoke(app, [*args, "-o", "json", *extra])
    assert as_json.exit_code == 0, as_json.output
    text = runner.invoke(app, [*args, *extra], terminal_width=400)
    assert text.exit_code == 0, text.output
    report: dict[str, Any] = json.loads(as_json.stdout)
    return report, text.stdout


def test_the_headline_names_the_failing_pod_set_and_its_first_flavor(tmp_path: Path) -> None:
    report, text = _explain(tmp_path)
    (answer,) = report["whatIf"]
    assert answer["status"] == "waits"
    head = (
        "waits (heap in ClusterQueue vision): does not fit: pod set worker: insufficient quota for "
        "nvidia.com/gpu in flavor a100-spot: needs 16, more than the maximum capacity 12"
    )
    assert answer["answer"].startswith(head), answer["answer"]
    assert "needs 1," not in answer["answer"]
    assert head in " ".join(text.split())


def test_the_headline_and_the_last_cycle_row_agree(tmp_path: Path) -> None:
    for cycles in ("1", "3"):
        report, _ = _explain(tmp_path / cycles, "--cycles", cycles)
        (answer,) = report["whatIf"]
        (row,) = [p for p in report["cycles"][-1]["pending"] if p["workload"] == answer["workload"]]
        assert (
            answer["answer"]
            == f"waits ({row['queue']} in ClusterQueue {row['clusterQueue']}): {row['reason']}"
        )


# The issue's own shape: team nlp's admitted Workload holds its 8 a100-spot GPUs (its nominal), so
# the cohort's 14 have 6 free. A PyTorchJob of vision, master x1 + worker x9 at 1 GPU: the master
# fits a100-spot (1 <= 6), the worker needs 1 + 9 = 10 there, 10 - 6 = 4 more; nlp is within its
# nominal (nothing to reclaim) and vision runs nothing to preempt, so no candidates; a100-mig holds
# 0 (9 > 0) and t4-dev 16 cpu (9 x 4 = 36 > 16). Old headline: "a100-mig: needs 1 ... capacity 0".
NLP_ADMITTED = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: nlp-train, namespace: nlp, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  queueName: nlp
  podSets:
  - name: main
    count: 8
    template:
      spec:
        containers:
        - {name: c, resources: {requests: {cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}}}
status:
  admission:
    clusterQueue: nlp
    podSetAssignments:
    - name: main
      count: 8
      flavors: {cpu: a100-spot, memory: a100-spot, nvidia.com/gpu: a100-spot}
      resourceUsage: {cpu: "32", memory: 128Gi, nvidia.com/gpu: "8"}
  conditions:
  - {type: QuotaReserved, status: "True", lastTransitionTime: "2026-01-01T00:00:01Z", reason: QuotaReserved, message: ok}
  - {type: Admitted, status: "True", lastTransitionTime: "2026-01-01T00:00:01Z", reason: Admitted, message: ok}
"""


def test_the_issues_case_names_a100_spot_four_more_needed_not_a100_mig(tmp_path: Path) -> None:
    out = tmp_path / "out"
    runner = CliRunner()
    result = runner.invoke(app, ["render", str(REPO / "examples" / "aks-platform.yaml"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    inputs = tmp_path / "in.yaml"
    inputs.write_text(NLP_ADMITTED + "---\n" + PYTORCHJOB.replace("replicas: 15", "replicas: 9"))
    args = [
        "explain",
        "-f",
        str(out / "kueue"),
        "-f",
        str(out / "tenancy" / "namespaces.yaml"),
        "-f",
        str(inputs),
    ]
    report = json.loads(runner.invoke(app, [*args, "-o", "json"]).stdout)
    (answer,) = report["whatIf"]
    assert answer["answer"].startswith(
        "waits (heap in ClusterQueue vision): needs preemption but no workload may be preempted "
        "(withinClusterQueue LowerPriority, reclaimWithinCohort Any, borrowWithinCohort LowerPriority): "
        "pod set worker: needs 10 nvidia.com/gpu in flavor a100-spot; vision has nominal 6, uses 0, "
        "may borrow 6; cohort ml has 6 free; 4 more needed; insufficient quota for nvidia.com/gpu in "
        "flavor a100-mig: needs 9, more than the maximum capacity 0"
    ), answer["answer"]
    assert "cpu in flavor t4-dev: needs 36, more than the maximum capacity 16" in answer["answer"]
    (row,) = report["cycles"][-1]["pending"]
    assert answer["answer"] == f"waits ({row['queue']} in ClusterQueue vision): {row['reason']}"
