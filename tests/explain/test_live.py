"""Live mode against a local HTTP server replaying recorded Kubernetes API list responses."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from typer.testing import CliRunner

from gpuplane.cli import app
from gpuplane.explain.live import read_cluster

FIXTURES = Path(__file__).parent / "fixtures" / "live"


class _Replay(BaseHTTPRequestHandler):
    methods: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).methods.append(f"GET {self.path}")
        name = self.path.split("?")[0].strip("/").replace("/", "_")
        file = FIXTURES / f"{name}.json"
        if file.is_file():
            body, code = file.read_bytes(), 200
        else:
            status = {
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": "the server could not find the requested resource",
                "reason": "NotFound",
                "code": 404,
            }
            body, code = json.dumps(status).encode(), 404
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _refuse(self) -> None:
        type(self).methods.append(f"{self.command} {self.path}")
        self.send_response(405)
        self.end_headers()

    do_POST = do_PUT = do_PATCH = do_DELETE = _refuse

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def kubeconfig(tmp_path: Path) -> Iterator[Path]:
    _Replay.methods = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Replay)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    cfg = tmp_path / "kubeconfig"
    cfg.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters:\n- name: replay\n  cluster:\n    server: http://127.0.0.1:{port}\n"
        "users:\n- name: reader\n  user:\n    token: not-a-secret\n"
        "contexts:\n- name: replay\n  context: {cluster: replay, user: reader}\n"
        "- name: other\n  context: {cluster: replay, user: reader}\n"
        "current-context: replay\n"
    )
    yield cfg
    server.shutdown()
    server.server_close()


def test_reads_kueue_objects_read_only(kubeconfig: Path) -> None:
    parsed = read_cluster(str(kubeconfig))
    kinds = sorted({type(o).__name__ for o in parsed.objects})
    assert kinds == ["ClusterQueue", "LocalQueue", "Namespace", "PriorityClass", "ResourceFlavor", "Workload"]
    assert all(m.startswith("GET ") for m in _Replay.methods)
    assert any("/apis/kueue.x-k8s.io/v1beta2/workloads" in m for m in _Replay.methods)


def test_live_explain_reclaims_borrowed_gpus(kubeconfig: Path) -> None:
    result = CliRunner().invoke(
        app, ["explain", "--kubeconfig", str(kubeconfig), "--context", "other", "-o", "json"]
    )
    assert result.exit_code == 0, result.output
    cycle = json.loads(result.stdout)["cycles"][0]
    assert [(p["workload"], p["preemptor"], p["reason"]) for p in cycle["preempted"]] == [
        ("team-b/job-train-7-3f2a1", "team-a/job-llm-ft-81c0d", "InCohortReclamation")
    ]


# An unreachable cluster, a hung or garbled answer: tests/kube/test_client.py (exit 3 for explain and audit).


NEW_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: eval-8gpu
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: main
    kueue.x-k8s.io/priority-class: batch
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: eval
        image: nvcr.io/nvidia/pytorch:24.05-py3
        resources:
          requests: {cpu: "8", nvidia.com/gpu: "8"}
          limits: {nvidia.com/gpu: "8"}
"""


def test_live_what_if_answers_for_the_new_job_and_only_reads(kubeconfig: Path, tmp_path: Path) -> None:
    # The recorded cluster: team-b holds 24 of the cohort's 32 H100s (8 borrowed from team-a);
    # team-a's older job-llm-ft (16 GPUs, priority 100) waits. Kueue's cycles at this instant:
    # llm-ft reclaims (team-b's job is preempted), then is admitted at team-a's nominal 16; the
    # new job (priority 100, newer) then fits by borrowing 8 of team-b's now unused quota.
    job = tmp_path / "new-job.yaml"
    job.write_text(NEW_JOB)
    result = CliRunner().invoke(
        app, ["explain", "--kubeconfig", str(kubeconfig), "-f", str(job), "-o", "json"]
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)["whatIf"][0]
    assert (answer["job"], answer["status"], answer["clusterQueue"]) == (
        "Job team-a/eval-8gpu",
        "admitted",
        "team-a",
    )
    assert answer["flavors"] == {"main": {"cpu": "h100", "nvidia.com/gpu": "h100"}}
    assert "borrowing" in answer["answer"]
    assert _Replay.methods and all(m.startswith("GET ") for m in _Replay.methods)
    assert not any("eval-8gpu" in m for m in _Replay.methods)  # nothing about the new job is sent


def test_live_what_if_gives_an_unlabelled_job_the_default_the_clusters_policy_sets(
    kubeconfig: Path, tmp_path: Path
) -> None:
    # The recorded cluster has gpuplane's MutatingAdmissionPolicy (v1) and binding for team-a,
    # default class batch (value 100); a Job without the priority-class label gets it.
    job = tmp_path / "new-job.yaml"
    job.write_text(NEW_JOB.replace("    kueue.x-k8s.io/priority-class: batch\n", ""))
    result = CliRunner().invoke(
        app, ["explain", "--kubeconfig", str(kubeconfig), "-f", str(job), "-o", "json"]
    )
    assert result.exit_code == 0, result.output
    (row,) = [j for j in json.loads(result.stdout)["jobs"] if j["job"] == "Job team-a/eval-8gpu"]
    assert row["priority"] == 100
    assert any(
        "MutatingAdmissionPolicy gpuplane-default-priority-team-a sets batch" in n for n in row["notes"]
    )
    assert "GET /apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies" in _Replay.methods
    assert all(m.startswith("GET ") for m in _Replay.methods)
