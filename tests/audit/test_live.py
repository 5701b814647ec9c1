"""Live-cluster audit with the official client against a local server replaying recorded responses."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from typer.testing import CliRunner

from gpuplane.audit import AuditConfig, audit
from gpuplane.audit.live import read_cluster
from gpuplane.cli import app
from gpuplane.errors import InputError
from tests.audit.helpers import FIXTURES

RECORDED = FIXTURES / "live"


class _Replay(BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, str, str]]] = []

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        self.seen.append(("GET", path, self.headers.get("Authorization", "")))
        file = RECORDED / (path.replace("/", "_") + ".json")
        if file.is_file():
            body, status = file.read_bytes(), 200
        else:
            body = json.dumps(
                {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404}
            ).encode()
            status = 404
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture()
def kubeconfig(tmp_path: Path) -> Iterator[Path]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Replay)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Replay.seen = []
    config = tmp_path / "kubeconfig"
    config.write_text(f"""apiVersion: v1
kind: Config
clusters:
- name: replay
  cluster: {{server: "http://127.0.0.1:{server.server_address[1]}"}}
users:
- name: auditor
  user: {{token: read-only-token}}
contexts:
- name: replay
  context: {{cluster: replay, user: auditor}}
current-context: replay
""")
    yield config
    server.shutdown()
    server.server_close()


def test_live_cluster_findings_and_read_only_access(kubeconfig: Path) -> None:
    notes: list[str] = []
    inputs = read_cluster(str(kubeconfig), "replay", notes)
    findings = audit(inputs, AuditConfig())
    rules = {f.rule for f in findings}
    assert {"GPU007", "GPU008", "GPU012", "GPU013", "GPU015", "GPU006", "GPU011"} <= rules
    assert all(method == "GET" for method, _, _ in _Replay.seen)
    assert all(auth == "Bearer read-only-token" for _, _, auth in _Replay.seen)
    assert notes == []  # uninstalled APIs (404) are skipped silently
    # the controller-owned pod is not reported twice (its Deployment is)
    assert not any(f.kind == "Pod" and f.name.startswith("chat-") for f in findings)
    gpu008 = next(f for f in findings if f.rule == "GPU008")
    assert "team-a" in gpu008.message and "team-b" in gpu008.message
    assert all(f.file == "cluster:replay" and f.line is None for f in findings)
    assert "team-b" not in {f.namespace for f in findings if f.rule == "GPU012"}


def test_live_audit_through_the_cli_prints_json(kubeconfig: Path) -> None:
    result = CliRunner().invoke(
        app, ["audit", "--kubeconfig", str(kubeconfig), "--context", "replay", "-o", "json"]
    )
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert any(f["rule"] == "GPU013" and f["kind"] == "ClusterPolicy" for f in doc["findings"])


def test_unreachable_cluster_is_an_upstream_error(tmp_path: Path) -> None:
    """Exit 3 as errors.py promises (was an InputError, exit 2); the CLI form: tests/kube/test_client.py."""
    from gpuplane.errors import UpstreamError

    config = tmp_path / "kubeconfig"
    config.write_text("""apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:9"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
""")
    with pytest.raises(UpstreamError):
        read_cluster(str(config))


def test_bad_kubeconfig_is_an_input_error(tmp_path: Path) -> None:
    config = tmp_path / "kubeconfig"
    config.write_text("apiVersion: v1\nkind: Config\n")
    with pytest.raises(InputError):
        read_cluster(str(config), "missing")
