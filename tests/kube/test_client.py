"""The one Kubernetes API client under `explain --kubeconfig` and `audit --kubeconfig`: every way a
cluster can fail to answer is exit 3 with the same one-line form, and nothing secret is shown.

Servers here: refused connections (nothing listens), a socket that accepts and never answers,
and a local HTTP server answering HTML, bytes, or 401/403/500 `Status` bodies as kube-apiserver
writes them (metav1.Status: kind, status Failure, reason, message, code).
"""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from typer.testing import CliRunner

from gpuplane.cli import app

SECRET = "s3cr3t-in-the-body"
COMMANDS = (["explain"], ["audit"])
ONE_LINE = re.compile(
    r"^gpuplane (explain|audit): error: Kubernetes API http://\*\*\*@127\.0\.0\.1:\d+/?: .+\n$"
)


class _Answer(BaseHTTPRequestHandler):
    """Answers every GET the way `mode` says."""

    mode: ClassVar[str] = "html"

    def do_GET(self) -> None:
        mode = type(self).mode
        if mode == "html":
            body, status, ctype = b"<html><body>Login required</body></html>", 200, "text/html"
        elif mode == "bytes":
            body, status, ctype = b"\x89PNG\r\n\x1a\n\xff\xfe\x00", 200, "application/octet-stream"
        else:
            status = int(mode)
            reason = {401: "Unauthorized", 403: "Forbidden", 500: "InternalError"}[status]
            body = json.dumps(
                {
                    "kind": "Status",
                    "apiVersion": "v1",
                    "metadata": {},
                    "status": "Failure",
                    "message": f"user system:anonymous token={SECRET} cannot list",
                    "reason": reason,
                    "code": status,
                }
            ).encode()
            ctype = "application/json"
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("X-Echo-Authorization", f"Bearer {SECRET}")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _kubeconfig(tmp_path: Path, port: int) -> Path:
    """A kubeconfig whose server URL carries credentials (they must never be printed)."""
    cfg = tmp_path / "kubeconfig"
    cfg.write_text(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: x\n"
        f"  cluster: {{server: 'http://admin:hunter2@127.0.0.1:{port}/'}}\n"
        "users:\n- name: u\n  user: {token: the-kubeconfig-token}\n"
        "contexts:\n- name: x\n  context: {cluster: x, user: u}\ncurrent-context: x\n"
    )
    return cfg


@pytest.fixture()
def server() -> Iterator[int]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Answer)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield int(httpd.server_address[1])
    httpd.shutdown()
    httpd.server_close()


def _run(command: list[str], cfg: Path, *more: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*command, "--kubeconfig", str(cfg), *more])
    return result.exit_code, result.output


def _assert_one_line_exit_3(code: int, output: str) -> None:
    assert code == 3, output
    assert ONE_LINE.match(output), output
    for secret in ("hunter2", "admin", SECRET, "the-kubeconfig-token", "Traceback"):
        assert secret not in output


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_an_unreachable_api_server_is_exit_3_in_one_line(command: list[str], tmp_path: Path) -> None:
    code, output = _run(command, _kubeconfig(tmp_path, _free_port()))
    _assert_one_line_exit_3(code, output)
    assert "cannot reach the API server" in output


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_server_that_never_answers_ends_at_the_deadline(command: list[str], tmp_path: Path) -> None:
    with socket.socket() as listener:  # the kernel accepts the connection; nobody ever answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        code, output = _run(command, _kubeconfig(tmp_path, listener.getsockname()[1]), "--timeout", "1")
    _assert_one_line_exit_3(code, output)
    assert "timeout" in output


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("mode", ["html", "bytes"])
def test_an_answer_that_is_not_json_is_exit_3(
    command: list[str], mode: str, server: int, tmp_path: Path
) -> None:
    _Answer.mode = mode
    code, output = _run(command, _kubeconfig(tmp_path, server))
    _assert_one_line_exit_3(code, output)
    assert "not JSON" in output


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("status", ["401", "403", "500"])
def test_refused_lists_are_exit_3_not_no_findings(
    command: list[str], status: str, server: int, tmp_path: Path
) -> None:
    """Issue 19: `audit --kubeconfig` said "no findings", exit 0, when every list was 403 or 500."""
    _Answer.mode = status
    code, output = _run(command, _kubeconfig(tmp_path, server))
    _assert_one_line_exit_3(code, output.splitlines()[-1] + "\n")
    assert f"HTTP {status}" in output
    assert "no findings" not in output
    assert SECRET not in output


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("value", ["nan", "inf", "0", "-5"])
def test_timeout_must_be_a_positive_finite_number(command: list[str], value: str, tmp_path: Path) -> None:
    code, output = _run(command, _kubeconfig(tmp_path, _free_port()), "--timeout", value)
    assert code == 2 and "--timeout" in output, output


MALFORMED = [
    "apiVersion: v1\nkind: Config\nclusters: 7\ncurrent-context: nowhere\n",
    "apiVersion: v1\nkind: Config\ncurrent-context: x\n"
    "users: [{name: u, user: {token: kubeconfig-token-9f8e, password: pw-7d6c}}]\n",
    "apiVersion: v1\nkind: Config\ncurrent-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
    "users: [{name: u, user: {token: kubeconfig-token-9f8e}}]\nclusters: [{name: c, cluster: {}}]\n",
    "users: [{name: u, user: {token: kubeconfig-token-9f8e}}]\n: [\n",
    "\x00\x01binary",
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("text", MALFORMED)
def test_a_malformed_kubeconfig_is_an_input_error(command: list[str], text: str, tmp_path: Path) -> None:
    cfg = tmp_path / "kubeconfig"
    cfg.write_text(text)
    code, output = _run(command, cfg)
    assert code == 2, output
    assert output.count("\n") == 1 and "Traceback" not in output, output
    assert "kubeconfig-token-9f8e" not in output and "pw-7d6c" not in output, output
