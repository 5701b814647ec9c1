"""Live explain with topology-aware scheduling: Topologies and Pods read from the cluster.

The recording (fixtures/live/tas/, gpuplane's own content) is a cluster with one Topology
(rack, hostname), a TAS flavor on four 8-GPU nodes in two racks, and one pending Workload of
4 pods x 4 GPUs that requires one rack. A running non-TAS notebook takes 4 GPUs of h100-a1; a
Succeeded pod on h100-b1 holds nothing. By hand (Kueue v0.19.2 BestFit on required): rack-a holds
1 + 2 = 3 pods, rack-b 2 + 2 = 4, so only rack-b fits: h100-b1 2 pods, h100-b2 2 pods. Without
the Pods the racks tie at 4 and rack-a (first by value) would be chosen; counting the Succeeded pod
would leave no rack with room.
"""

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

FIXTURES = Path(__file__).parent / "fixtures" / "live" / "tas"


class _Replay(BaseHTTPRequestHandler):
    paths: ClassVar[list[str]] = []
    refuse_pods: ClassVar[bool] = False
    hide_topologies: ClassVar[bool] = False

    def do_GET(self) -> None:
        type(self).paths.append(self.path)
        name = self.path.split("?")[0].strip("/").replace("/", "_")
        file = FIXTURES / f"{name}.json"
        if self.hide_topologies and name.endswith("_topologies"):
            body, code = b'{"kind": "Status", "code": 404, "reason": "NotFound"}', 404
        elif self.refuse_pods and name == "api_v1_pods":
            body, code = b'{"kind": "Status", "code": 403, "reason": "Forbidden"}', 403
        elif file.is_file():
            body, code = file.read_bytes(), 200
        else:
            body, code = b'{"kind": "Status", "code": 404, "reason": "NotFound"}', 404
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def kubeconfig(tmp_path: Path) -> Iterator[Path]:
    _Replay.paths = []
    _Replay.refuse_pods = False
    _Replay.hide_topologies = False
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Replay)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    cfg = tmp_path / "kubeconfig"
    cfg.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters:\n- name: replay\n  cluster:\n    server: http://127.0.0.1:{server.server_address[1]}\n"
        "users:\n- name: reader\n  user:\n    token: not-a-secret\n"
        "contexts:\n- name: replay\n  context: {cluster: replay, user: reader}\n"
        "current-context: replay\n"
    )
    yield cfg
    server.shutdown()
    server.server_close()


def _explain(kubeconfig: Path) -> dict[str, object]:
    result = CliRunner().invoke(app, ["explain", "--kubeconfig", str(kubeconfig), "-o", "json"])
    assert result.exit_code == 0, result.output
    out: dict[str, object] = json.loads(result.stdout)
    return out


def test_live_read_lists_the_topology_and_the_pods(kubeconfig: Path) -> None:
    parsed = read_cluster(str(kubeconfig))
    kinds = {type(o).__name__ for o in parsed.objects}
    assert "Topology" in kinds
    raw_kinds = sorted(str(r.data.get("kind")) for r in parsed.k8s if r.data.get("kind") in ("Node", "Pod"))
    assert raw_kinds == ["Node"] * 4 + ["Pod"] * 2
    assert "/apis/kueue.x-k8s.io/v1beta2/topologies" in _Replay.paths
    assert "/api/v1/pods" in _Replay.paths


def test_live_explain_places_the_gang_on_the_rack_the_pods_leave_room_in(kubeconfig: Path) -> None:
    cycle = _explain(kubeconfig)["cycles"][0]  # type: ignore[index]
    (admitted,) = cycle["admitted"]
    assert admitted["workload"] == "llm/jobset-pretrain-4d1c2"
    (podset,) = admitted["podSets"]
    assert podset["topologyAssignment"] == {
        "levels": ["kubernetes.io/hostname"],
        "domains": [{"values": ["h100-b1"], "count": 2}, {"values": ["h100-b2"], "count": 2}],
    }


def test_pods_refused_is_a_note_and_the_placement_ignores_them(kubeconfig: Path) -> None:
    _Replay.refuse_pods = True
    parsed = read_cluster(str(kubeconfig))
    assert any(n.startswith("cannot list Pods: 403") for n in parsed.notes), parsed.notes
    cycle = _explain(kubeconfig)["cycles"][0]  # type: ignore[index]
    (admitted,) = cycle["admitted"]
    # Without the notebook pod both racks hold 4 pods; BestFit takes the first by value, rack-a.
    assert [d["values"] for d in admitted["podSets"][0]["topologyAssignment"]["domains"]] == [
        ["h100-a1"],
        ["h100-a2"],
    ]


def test_a_cluster_without_topologies_lists_no_pods_and_says_nothing(kubeconfig: Path) -> None:
    _Replay.hide_topologies = True
    parsed = read_cluster(str(kubeconfig))
    assert [p for p in _Replay.paths if "topologies" in p] == [
        "/apis/kueue.x-k8s.io/v1beta2/topologies",
        "/apis/kueue.x-k8s.io/v1beta1/topologies",
        "/apis/kueue.x-k8s.io/v1alpha1/topologies",
    ]
    assert "/api/v1/pods" not in _Replay.paths
    assert not any("topolog" in n or "Pods" in n for n in parsed.notes), parsed.notes
