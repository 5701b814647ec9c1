"""Issue 20's Done means: every engine that reaches a cluster does it through `gpuplane.kube.client`,
so `explain --kubeconfig`, `audit --kubeconfig` and `acceptance run` fail the same way.

Against an unreachable API server (nothing listens on the port) and one that refuses every call
(403 with a `Status` body echoing a secret, as kube-apiserver writes metav1.Status), each command
exits 3 and prints exactly one error line of one form:
`gpuplane CMD: error: Kubernetes API SERVER: WHAT: REASON`, with the same SERVER (the kubeconfig's
URL, credentials redacted), the same REASON for an unreachable server and the same status for a
refusing one; no credential of the kubeconfig or of the answer appears anywhere.
`acceptance run` also prints its banner and what may remain (its namespace POST was attempted):
those are not error lines.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplane.cli import app
from gpuplane.outputs import write_tree_atomic
from tests.acceptance.helpers import EXAMPLES, suite_for
from tests.kube.test_client import SECRET, _free_port, _kubeconfig

COMMANDS = ("explain", "audit", "acceptance run")
ERROR_LINE = re.compile(
    r"^gpuplane (?P<cmd>explain|audit|acceptance): error: "
    r"Kubernetes API (?P<server>http://\*\*\*@127\.0\.0\.1:\d+/?): (?P<what>[^:]+): (?P<reason>.+)$"
)


def _suite(tmp_path: Path) -> Path:
    eks = next(e for e in EXAMPLES if e.stem == "eks-mixed")
    _, suite = suite_for(eks, "h100-train", nodes=1, window_s=600.0, api_price_per_unit=0.5)
    write_tree_atomic(tmp_path / "suite", suite.files)
    return tmp_path / "suite"


def _args(command: str, tmp_path: Path, cfg: Path) -> list[str]:
    if command == "acceptance run":
        suite = _suite(tmp_path)
        return ["acceptance", "run", str(suite), "--kubeconfig", str(cfg), "--yes", "-o", str(tmp_path / "b")]
    return [command, "--kubeconfig", str(cfg)]


def _error_line(command: str, tmp_path: Path, cfg: Path) -> re.Match[str]:
    result = CliRunner().invoke(app, _args(command, tmp_path, cfg))
    assert result.exit_code == 3, result.output
    for secret in ("hunter2", "admin", SECRET, "the-kubeconfig-token", "Traceback"):
        assert secret not in result.output
    errors = [line for line in result.output.splitlines() if ": error:" in line]
    assert len(errors) == 1, result.output
    found = ERROR_LINE.match(errors[0])
    assert found is not None, errors[0]
    assert found["cmd"] == command.split()[0]  # the CLI names a command by its first word
    return found


class _Refuse(BaseHTTPRequestHandler):
    """Answers every request 403 Forbidden with a Status body that echoes a secret."""

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
        body = json.dumps(
            {
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": f"user system:anonymous token={SECRET} is forbidden",
                "reason": "Forbidden",
                "code": 403,
            }
        ).encode()
        self.send_response(403)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def refusing() -> Iterator[int]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Refuse)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield int(httpd.server_address[1])
    httpd.shutdown()
    httpd.server_close()


def test_an_unreachable_api_server_is_the_same_exit_3_line_in_every_engine(tmp_path: Path) -> None:
    cfg = _kubeconfig(tmp_path, _free_port())
    found = {c: _error_line(c, tmp_path / c.replace(" ", "-"), cfg) for c in COMMANDS}
    assert len({m["server"] for m in found.values()}) == 1
    reasons = {m["reason"] for m in found.values()}
    assert len(reasons) == 1, reasons
    assert reasons.pop().startswith("cannot reach the API server (")
    assert found["acceptance run"]["what"].startswith("cannot create Namespace acceptance-h100-train-")


def test_a_refusing_api_server_is_the_same_exit_3_line_in_every_engine(tmp_path: Path, refusing: int) -> None:
    cfg = _kubeconfig(tmp_path, refusing)
    found = {c: _error_line(c, tmp_path / c.replace(" ", "-"), cfg) for c in COMMANDS}
    # explain and acceptance stop at the first refusal; audit tries every list first and then says how
    # many were refused (audit/live.py), so only the status is common to the three reasons
    assert all(m["reason"].startswith("HTTP 403") for m in found.values()), found
    assert found["explain"]["reason"] == found["acceptance run"]["reason"] == "HTTP 403 Forbidden"


def test_past_the_deadline_a_call_is_refused_unless_it_is_cleanup() -> None:
    """`request_timeout` cuts the limits to what is left of --timeout and refuses a call past it;
    cleanup (acceptance run's namespace read and delete) still gets the full limits, once each."""
    from gpuplane.errors import UpstreamError
    from gpuplane.kube.client import Client
    from gpuplane.limits import limits

    full = (float(limits().api_connect_timeout), float(limits().api_read_timeout))
    client = Client(object(), "https://user:pw@api.example:6443", deadline_s=1e-9)
    with pytest.raises(UpstreamError, match=r"GET /x: no answer within --timeout 1e-09 s") as caught:
        client.request_timeout("GET /x")
    assert "pw" not in str(caught.value) and "Kubernetes API https://***@api.example:6443" in str(
        caught.value
    )
    assert client.request_timeout("DELETE /ns", past_deadline=True) == full
    roomy = Client(object(), "https://api.example:6443", deadline_s=10.0)
    connect_s, read_s = roomy.request_timeout("GET /x")
    assert 0 < connect_s <= 10.0 and 0 < read_s <= 10.0  # cut to the deadline, below both limits
    roomy.deadline_s = 1e6
    roomy.start()  # the deadline counts again from now: the limits themselves apply
    assert roomy.request_timeout("GET /x") == full
