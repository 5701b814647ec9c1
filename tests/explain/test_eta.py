"""`explain --eta` against hand-made event tables (times in minutes after the snapshot).

ClusterQueue `cq`: 4 GPUs, no cohort, BestEffortFIFO. Running at 10:00: r1 (2 GPUs, at most
1h: maximumExecutionTimeSeconds 3600) and r2 (2 GPUs, no runtime: the assumed one). Pending:
p1 (2 GPUs, 10:30), p2 (4 GPUs, 10:31), p3 (8 GPUs, more than the queue could ever get). The
snapshot is taken 1 s after the newest timestamp (10:31:01 here); end times go up to whole minutes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from gpuplane.cli import app

GPU = "nvidia.com/gpu"


def _pod(gpus: int) -> dict[str, Any]:
    return {"containers": [{"name": "c", "resources": {"limits": {GPU: gpus}}}]}


def _wl(
    name: str, gpus: int, created: str, admitted: bool = False, limit: int | None = None
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "queueName": "q",
        "podSets": [{"name": "main", "count": 1, "template": {"spec": _pod(gpus)}}],
    }
    if limit:
        spec["maximumExecutionTimeSeconds"] = limit
    out: dict[str, Any] = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "ml", "creationTimestamp": created},
        "spec": spec,
    }
    if admitted:
        out["status"] = {
            "admission": {
                "clusterQueue": "cq",
                "podSetAssignments": [
                    {"name": "main", "count": 1, "flavors": {GPU: "gpu"}, "resourceUsage": {GPU: str(gpus)}}
                ],
            },
            "conditions": [{"type": "QuotaReserved", "status": "True", "lastTransitionTime": created}],
        }
    return out


SETUP: list[dict[str, Any]] = [
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "gpu"}},
    {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "cq"},
        "spec": {
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": [GPU],
                    "flavors": [{"name": "gpu", "resources": [{"name": GPU, "nominalQuota": 4}]}],
                }
            ],
        },
    },
    {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": "q", "namespace": "ml"},
        "spec": {"clusterQueue": "cq"},
    },
    _wl("r1", 2, "2026-08-01T10:00:00Z", admitted=True, limit=3600),
    _wl("r2", 2, "2026-08-01T10:00:00Z", admitted=True),
]
PENDING = [
    _wl("p1", 2, "2026-08-01T10:30:00Z"),
    _wl("p2", 4, "2026-08-01T10:31:00Z"),
    _wl("p3", 8, "2026-08-01T10:31:00Z"),
]


def _eta(tmp_path: Path, *docs: dict[str, Any], args: tuple[str, ...] = ()) -> dict[str, Any]:
    f = tmp_path / "in.yaml"
    f.write_text(yaml.safe_dump_all(docs))
    result = CliRunner().invoke(app, ["explain", "-f", str(f), "--eta", "-o", "json", *args])
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def _minutes(out: dict[str, Any]) -> dict[str, Any]:
    return {
        e["workload"]: (e["seconds"] / 60 if e["seconds"] is not None else e["status"]) for e in out["eta"]
    }


def test_eta_follows_the_event_table(tmp_path: Path) -> None:
    # +28m59s -> 29: r1 ends (10:00 + 1h); p1 (2) admitted, ends at 29 + 120 = 149.
    # +88m59s -> 89: r2 ends (assumed 2h); 2 free, p2 needs 4.  149: p1 ends -> p2 admitted.
    out = _eta(tmp_path, *SETUP, *PENDING)
    assert _minutes(out) == {"ml/p1": 29.0, "ml/p2": 149.0, "ml/p3": "never"}
    never = next(e for e in out["eta"] if e["workload"] == "ml/p3")
    assert "needs 8 nvidia.com/gpu" in never["reason"] and "at most 4" in never["reason"]
    assert any("maximumExecutionTimeSeconds 3600" in a for a in out["etaAssumptions"])


def test_assumed_runtime_changes_the_table(tmp_path: Path) -> None:
    # --assume-runtime 1h: r2 also ends at 29; p1 admitted at 29 and ends at 89; p2 admitted at 89.
    out = _eta(tmp_path, *SETUP, *PENDING, args=("--assume-runtime", "1h"))
    assert _minutes(out) == {"ml/p1": 29.0, "ml/p2": 89.0, "ml/p3": "never"}


def test_a_submitted_jobs_active_deadline_is_its_runtime(tmp_path: Path) -> None:
    # p1 as a Job with activeDeadlineSeconds 1800: admitted at 29, ends at 59; r2 ends at 89 -> p2 at 89.
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "p1",
            "namespace": "ml",
            "labels": {"kueue.x-k8s.io/queue-name": "q"},
            "creationTimestamp": "2026-08-01T10:30:00Z",
        },
        "spec": {"activeDeadlineSeconds": 1800, "template": {"spec": {**_pod(2), "restartPolicy": "Never"}}},
    }
    out = _eta(tmp_path, *SETUP, job, PENDING[1])
    assert _minutes(out) == {"ml/job-p1-<uid>": 29.0, "ml/p2": 89.0}


def test_expected_runtime_annotation_wins(tmp_path: Path) -> None:
    r2 = json.loads(json.dumps(SETUP[4]))
    r2["metadata"]["annotations"] = {"gpuplane.io/expected-runtime": "45m"}
    # The snapshot is at 10:30:01; r2 ends at 10:45 -> +14m59s -> 15: p1 admitted at 15.
    out = _eta(tmp_path, *SETUP[:4], r2, PENDING[0])
    assert _minutes(out) == {"ml/p1": 15.0}


def test_bad_assumed_runtime_is_a_usage_error(tmp_path: Path) -> None:
    f = tmp_path / "in.yaml"
    f.write_text(yaml.safe_dump_all(SETUP))
    result = CliRunner().invoke(app, ["explain", "-f", str(f), "--eta", "--assume-runtime", "soon"])
    assert result.exit_code == 2
    assert "--assume-runtime" in result.output


@pytest.mark.parametrize("strategy", ["StrictFIFO", "BestEffortFIFO"])
def test_strict_fifo_holds_the_small_one_behind_the_big_one(tmp_path: Path, strategy: str) -> None:
    # p2 (4 GPUs, older here) heads the queue; under StrictFIFO p1 (2 GPUs) may not pass it.
    # Snapshot at 10:30:01: r1 ends at 30, r2 at 90.
    setup = json.loads(json.dumps(SETUP))
    setup[1]["spec"]["queueingStrategy"] = strategy
    big = _wl("p2", 4, "2026-08-01T10:29:00Z")
    out = _eta(tmp_path, *setup, big, PENDING[0])
    if strategy == "StrictFIFO":
        # 30: r1 ends, 2 free, p2 blocks; 90: r2 ends -> p2 (4); p2 ends at 210 -> p1.
        # BestEffortFIFO: p1 passes at 30 (ends 150); r2 ends at 90 (2 free); p2 at 150.
        assert _minutes(out) == {"ml/p2": 90.0, "ml/p1": 210.0}
    else:
        assert _minutes(out) == {"ml/p1": 30.0, "ml/p2": 150.0}
