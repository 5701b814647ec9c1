"""`acceptance run` owns what it writes to a cluster (issue 19, Deliver 1, 2 and 6).

Driven against the recorded API server (tests/support/kube_replay.py): a tampered suite never
makes the run delete what it did not create, the single-node suite (a batch/v1 Job) runs end to
end through the installed kubernetes client, manifests are read only from inside the suite
folder, an interrupted cleanup says what remains and how to delete it, a server that accepts and
never answers ends in exit 3 instead of a hang, and an API answering HTML is exit 3.
"""

from __future__ import annotations

import json
import signal
import socket
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuplane.acceptance import runner as runner_module
from gpuplane.acceptance.cluster import connect
from gpuplane.acceptance.runner import Runner, load_plan, run_namespace
from gpuplane.acceptance.score import score
from gpuplane.cli import app
from gpuplane.errors import InputError, UpstreamError
from gpuplane.outputs import write_tree_atomic
from gpuplane.vocab import LABEL_ACCEPTANCE_RUN
from tests.acceptance.helpers import EXAMPLES, FIXTURES, suite_for
from tests.support.kube_replay import ReplayState, replay_server

API = FIXTURES / "api"
RUN = "5e1f00d2"
START = datetime.fromisoformat("2026-11-20T09:07:30+00:00").timestamp()


class Clock:
    """Time moves only when the runner sleeps; `interrupt_at` raises KeyboardInterrupt on that sleep."""

    def __init__(self, interrupt_at: set[int] | None = None) -> None:
        self.now = START
        self.sleeps = 0
        self.interrupt_at = interrupt_at or set()

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        if self.sleeps in self.interrupt_at:
            raise KeyboardInterrupt
        self.now += seconds


def _suite(tmp_path: Path, nodes: int) -> Path:
    eks = next(e for e in EXAMPLES if e.stem == "eks-mixed")
    _, suite = suite_for(eks, "h100-train", nodes=nodes, window_s=600.0, api_price_per_unit=0.5)
    write_tree_atomic(tmp_path / "suite", suite.files)
    return tmp_path / "suite"


@pytest.fixture()
def replay(tmp_path: Path) -> Iterator[tuple[ReplayState, Path]]:
    with replay_server(API, tmp_path) as served:
        yield served


def _runner(suite: Path, kubeconfig: Path, clock: Clock, **kw: Any) -> Runner:
    cluster = connect(str(kubeconfig), "replay")
    return Runner(
        cluster, load_plan(suite), clock=clock, sleep=clock.sleep, deadline_s=7200, run_id=RUN, **kw
    )


def _namespaces(state: ReplayState) -> tuple[set[str], set[str]]:
    posted = {name for kind, _, name in state.created if kind == "Namespace"}
    deleted = {name for kind, _, name in state.deleted if kind == "Namespace"}
    return posted, deleted


def test_run_namespace_is_the_suite_name_plus_the_run_id_within_63_characters() -> None:
    assert run_namespace("acceptance-h100-train", RUN) == f"acceptance-h100-train-{RUN}"
    long = run_namespace("acceptance-" + "a" * 52, RUN)
    assert len(long) == 63 and long.endswith(f"-{RUN}")
    # a cut that would end in '-' drops it (a DNS label cannot end in one)
    assert run_namespace("acceptance-" + "b" * 42 + "-x", RUN) == "acceptance-" + "b" * 42 + f"-{RUN}"


@pytest.mark.parametrize("nodes", [1, 2])
def test_a_tampered_suite_deletes_exactly_what_the_run_created(
    tmp_path: Path, replay: tuple[ReplayState, Path], nodes: int
) -> None:
    """The docs invite editing suite.json: namespace `production` in suite.json and the manifests
    makes the run create `production-<run>` and delete that one, never `production`."""
    state, kubeconfig = replay
    suite = _suite(tmp_path, nodes)
    for path in [suite / "suite.json", *sorted((suite / "manifests").iterdir())]:
        path.write_text(path.read_text().replace("acceptance-h100-train", "production"))
    production = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "production", "uid": "p-1"}}
    state.objects[("Namespace", "", "production")] = production
    if nodes == 1:
        state.script = json.loads((API / "script-job.json").read_text())
    runner = _runner(suite, kubeconfig, Clock())
    runner.run()
    posted, deleted = _namespaces(state)
    assert posted == deleted == {f"production-{RUN}"}
    assert ("Namespace", "", "production") in state.objects  # untouched
    assert not [c for c in state.calls if c.startswith("DELETE /api/v1/namespaces/production/")]
    assert not [c for c in state.calls if c.endswith("/namespaces/production")]
    # every namespaced object went into the run's namespace, carrying the run label
    assert {ns for kind, ns, _ in state.created if kind != "Namespace"} == {f"production-{RUN}"}
    assert runner.remains() == []


def test_a_suite_whose_namespace_object_disagrees_with_suite_json_is_refused_before_any_call(
    tmp_path: Path, replay: tuple[ReplayState, Path]
) -> None:
    """The issue's reproduction: suite.json and the namespaced objects say `production`, the
    Namespace object still says the suite's name. The old runner POSTed the suite's namespace and
    DELETEd `production`."""
    state, _ = replay
    suite = _suite(tmp_path, 1)
    for path in [suite / "suite.json", *sorted((suite / "manifests").iterdir())]:
        text = path.read_text().replace("namespace: acceptance-h100-train", "namespace: production")
        path.write_text(text.replace('"namespace": "acceptance-h100-train"', '"namespace": "production"'))
    with pytest.raises(InputError) as caught:
        load_plan(suite)
    assert caught.value.lines() == [
        f"{suite / 'suite.json'}: error: namespace: the manifests must create exactly one Namespace, production"
    ]
    assert state.calls == []


def test_the_run_labels_and_annotates_its_namespace_with_the_run_id(
    tmp_path: Path, replay: tuple[ReplayState, Path]
) -> None:
    state, kubeconfig = replay
    state.script = json.loads((API / "script-job.json").read_text())
    suite = _suite(tmp_path, 1)
    seen: dict[str, Any] = {}
    original = state.release

    def spy(key: str) -> None:  # capture the namespace as the server stored it, before cleanup
        if key == "create Namespace":
            seen.update(state.objects[("Namespace", "", f"acceptance-h100-train-{RUN}")])
        original(key)

    state.release = spy  # type: ignore[method-assign]
    _runner(suite, kubeconfig, Clock()).run()
    meta = seen["metadata"]
    assert meta["labels"][LABEL_ACCEPTANCE_RUN] == RUN
    assert RUN in next(iter(meta["annotations"].values()))


def test_a_namespace_that_does_not_carry_the_run_label_is_never_deleted(
    tmp_path: Path, replay: tuple[ReplayState, Path]
) -> None:
    """Even one with the run's own name: it was there before, so it is someone else's."""
    state, kubeconfig = replay
    name = f"acceptance-h100-train-{RUN}"
    state.objects[("Namespace", "", name)] = {"kind": "Namespace", "metadata": {"name": name, "uid": "x"}}
    from gpuplane.acceptance.cluster import NamespaceExists

    runner = _runner(_suite(tmp_path, 1), kubeconfig, Clock())
    with pytest.raises(NamespaceExists):
        runner.run()
    assert state.deleted == [] and ("Namespace", "", name) in state.objects
    assert runner.remains() == []


def test_a_single_node_suite_runs_end_to_end_through_the_installed_client(
    tmp_path: Path, replay: tuple[ReplayState, Path]
) -> None:
    """The batch/v1 Job path: kubernetes 37 refused its integer `nvidia.com/gpu: 8` before sending."""
    state, kubeconfig = replay
    state.script = json.loads((API / "script-job.json").read_text())
    suite = _suite(tmp_path, 1)
    runner = _runner(suite, kubeconfig, Clock())
    obs = runner.run()
    ns = f"acceptance-h100-train-{RUN}"
    assert f"POST /apis/batch/v1/namespaces/{ns}/jobs" in state.calls
    assert ("Pod", ns, "train-0-k7d2x") in state.deleted
    assert state.leftovers() == []
    assert obs.deleted_pod == "train-0-k7d2x"
    assert [p.name for p in obs.pods] == ["train-0-k7d2x", "train-0-p3m8v"]
    job = state.objects.get(("Job", ns, "train"))
    assert job is None  # deleted with the namespace
    status = {s.number: s.status for s in score(load_plan(suite).info, obs).steps}
    # step 3 (NCCL) does not apply on one node; 6 needs --prometheus; the rest pass on the recording
    assert status == {1: "pass", 2: "pass", 3: "n/a", 4: "pass", 5: "pass", 6: "skipped", 7: "pass"}


def test_the_job_sent_has_string_quantities(tmp_path: Path, replay: tuple[ReplayState, Path]) -> None:
    state, kubeconfig = replay
    state.script = json.loads((API / "script-job.json").read_text())
    bodies: list[dict[str, Any]] = []
    original = state.release

    def spy(key: str) -> None:
        if key == "create Job":
            bodies.append(
                json.loads(json.dumps(state.objects[("Job", f"acceptance-h100-train-{RUN}", "train")]))
            )
        original(key)

    state.release = spy  # type: ignore[method-assign]
    _runner(_suite(tmp_path, 1), kubeconfig, Clock()).run()
    resources = bodies[0]["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert resources == {"limits": {"nvidia.com/gpu": "8"}, "requests": {"nvidia.com/gpu": "8"}}


@pytest.mark.parametrize(
    ("key", "make", "message"),
    [
        ("../outside.yaml", None, "is not a path inside the suite folder"),
        ("/etc/hostname", None, "is not a path inside the suite folder"),
        ("manifests/link.yaml", "link", "is a symbolic link"),
        ("linked/x.yaml", "dirlink", "is a symbolic link"),
    ],
)
def test_manifests_are_read_only_from_inside_the_suite_folder(
    tmp_path: Path, key: str, make: str | None, message: str
) -> None:
    suite = _suite(tmp_path, 1)
    outside = tmp_path / "outside.yaml"
    outside.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: production}\n")
    if make == "link":
        (suite / key).symlink_to(outside)
    if make == "dirlink":
        (suite / "linked").symlink_to(tmp_path)
        (tmp_path / "x.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    info = json.loads((suite / "suite.json").read_text())
    info["manifests"][key] = ["Namespace production"]
    (suite / "suite.json").write_text(json.dumps(info))
    with pytest.raises(InputError) as caught:
        load_plan(suite)
    line = caught.value.lines()[0]
    assert line.startswith(f"{suite / 'suite.json'}: error: manifests: ") and message in line


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"namespace": "Production!"}, "namespace: 'Production!' is not a namespace name (a DNS-1123 label)"),
        ({"namespace": None}, "namespace: None is not a namespace name (a DNS-1123 label)"),
        ({"manifests": []}, "manifests: missing or not a JSON object"),
        ({"nodes": "2"}, "nodes: '2' is not a positive whole number"),
        ({"nodes": 0}, "nodes: 0 is not a positive whole number"),
        (
            {
                "thresholds": {
                    "resume": {"metric": "resume_s", "op": "<=", "value": "x", "unit": "s", "source": "me"}
                }
            },
            "thresholds.resume: value 'x' is not a finite number",
        ),
        ({"window_s": float("inf")}, "not JSON: Infinity is not a finite number"),
    ],
)
def test_odd_suite_files_are_located_errors(tmp_path: Path, edit: dict[str, Any], message: str) -> None:
    suite = _suite(tmp_path, 1)
    info = {**json.loads((suite / "suite.json").read_text()), **edit}
    (suite / "suite.json").write_text(json.dumps(info))
    with pytest.raises(InputError) as caught:
        load_plan(suite)
    assert caught.value.lines() == [f"{suite / 'suite.json'}: error: {message}"]


def test_an_interrupted_cleanup_says_what_remains_and_how_to_delete_it(
    tmp_path: Path, replay: tuple[ReplayState, Path]
) -> None:
    """Ctrl-C during the run starts cleanup; a second Ctrl-C while it waits for the namespace to
    go leaves it terminating: the runner names it and the kubectl command."""
    state, kubeconfig = replay
    runner = _runner(_suite(tmp_path, 2), kubeconfig, Clock(interrupt_at={1, 2}))
    with pytest.raises(KeyboardInterrupt):
        runner.run()
    ns = f"acceptance-h100-train-{RUN}"
    assert runner.remains()[0].startswith(f"namespace {ns}, uid ")
    assert runner.remains()[1] == f"delete it with: kubectl delete namespace -l {LABEL_ACCEPTANCE_RUN}={RUN}"
    assert _namespaces(state)[1] == {ns}  # the DELETE was sent before the second interrupt


class TermClock(Clock):
    """Like Clock, but the interrupt is SIGTERM as the CLI raises it (`swap.Terminated`)."""

    def sleep(self, seconds: float) -> None:
        from gpuplane.swap import Terminated

        self.sleeps += 1
        if self.sleeps in self.interrupt_at:
            raise Terminated(signal.SIGTERM)
        self.now += seconds


@pytest.mark.parametrize(("clock_type", "code"), [(Clock, 130), (TermClock, 143)])
def test_cli_prints_what_remains_on_an_interrupt(
    tmp_path: Path,
    replay: tuple[ReplayState, Path],
    monkeypatch: pytest.MonkeyPatch,
    clock_type: type[Clock],
    code: int,
) -> None:
    _, kubeconfig = replay
    clock = clock_type(interrupt_at={1, 2})
    monkeypatch.setattr(runner_module, "POLL_S", 0.0)
    monkeypatch.setattr("gpuplane.acceptance.command.time.time", clock)
    monkeypatch.setattr("gpuplane.acceptance.command.time.sleep", clock.sleep)
    monkeypatch.setattr("gpuplane.acceptance.command.secrets.token_hex", lambda n: RUN)
    bundle = tmp_path / "evidence"
    suite = _suite(tmp_path, 2)
    result = CliRunner().invoke(
        app, ["acceptance", "run", str(suite), "--kubeconfig", str(kubeconfig), "--yes", "-o", str(bundle)]
    )
    assert result.exit_code == code, result.output
    assert f"kubectl delete namespace -l {LABEL_ACCEPTANCE_RUN}={RUN}" in result.output
    # the logs collected before the interrupt are in the bundle, which says it is incomplete
    assert (bundle / "logs" / "nccl-allreduce-launcher-4bq9z.log").is_file()
    assert json.loads((bundle / "bundle.json").read_text())["verdict"] == "incomplete"
    assert (bundle / "observations.json").is_file()


def test_cli_says_nothing_remains_when_cleanup_finished_after_an_interrupt(
    tmp_path: Path, replay: tuple[ReplayState, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    state, kubeconfig = replay
    clock = TermClock(interrupt_at={1})
    monkeypatch.setattr(runner_module, "POLL_S", 0.0)
    monkeypatch.setattr("gpuplane.acceptance.command.time.time", clock)
    monkeypatch.setattr("gpuplane.acceptance.command.time.sleep", clock.sleep)
    monkeypatch.setattr("gpuplane.acceptance.command.secrets.token_hex", lambda n: RUN)
    suite = _suite(tmp_path, 2)
    args = ["acceptance", "run", str(suite), "--kubeconfig", str(kubeconfig), "--yes"]
    result = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "b")])
    assert result.exit_code == 143, result.output
    ns = f"acceptance-h100-train-{RUN}"
    assert f"namespace {ns} was deleted, nothing this run created remains" in result.output
    assert "kubectl" not in result.output
    posted, deleted = _namespaces(state)
    assert posted == deleted == {ns} and state.leftovers() == []


def _silent_server() -> tuple[socket.socket, int, list[socket.socket]]:
    """A socket that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    return server, server.getsockname()[1], held


def _kubeconfig(tmp_path: Path, server: str, token: str = "tok-" + "s" * 20) -> Path:
    config = tmp_path / "kc"
    config.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters:\n- name: c\n  cluster: {{server: '{server}'}}\n"
        f"users:\n- name: u\n  user: {{token: {token}}}\n"
        "contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n"
    )
    return config


def test_a_server_that_accepts_and_never_answers_is_exit_3_not_a_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The timeouts are the one client's (gpuplane.kube.client: limits.yaml api_connect_timeout and
    api_read_timeout, cut to --timeout); cleanup's read is still sent once past the deadline."""
    import dataclasses

    from gpuplane.kube import client as kube_client
    from gpuplane.limits import limits

    short = dataclasses.replace(limits(), api_connect_timeout=1, api_read_timeout=1)
    monkeypatch.setattr(kube_client, "limits", lambda: short)
    server, port, held = _silent_server()
    try:
        config = _kubeconfig(tmp_path, f"http://127.0.0.1:{port}")
        args = ["acceptance", "run", str(_suite(tmp_path, 1)), "--kubeconfig", str(config), "--yes"]
        result = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "b"), "--timeout", "30"])
    finally:
        server.close()
        for conn in held:
            conn.close()
    assert result.exit_code == 3, result.output
    assert ": cannot create Namespace acceptance-h100-train-" in result.output
    assert ": no answer in time (timeout)" in result.output
    # the namespace POST was sent and not answered: the run says it may exist and how to delete it
    assert f"kubectl delete namespace -l {LABEL_ACCEPTANCE_RUN}=" in result.output


class _Garbage:
    """An HTTP server answering every request 200 with `body` (HTML or bytes)."""

    def __init__(self, body: bytes, content_type: str) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
                self.send_response(200)
                self.send_header("Content-Type", outer.content_type)
                self.send_header("Content-Length", str(len(outer.body)))
                self.end_headers()
                self.wfile.write(outer.body)

            do_GET = do_POST = do_DELETE = _answer

        self.body, self.content_type = body, content_type
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"<html><body>Sign in</body></html>", "text/html"),
        (b"\x00\xff\xfe garbage", "application/octet-stream"),
        (b'["a list"]', "application/json"),
        (b"{not json", "application/json"),
    ],
)
def test_an_api_answering_garbage_is_exit_3(tmp_path: Path, body: bytes, content_type: str) -> None:
    garbage = _Garbage(body, content_type)
    try:
        config = _kubeconfig(tmp_path, f"http://127.0.0.1:{garbage.server.server_address[1]}")
        cluster = connect(str(config), None)
        with pytest.raises(UpstreamError) as caught:
            cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}})
        shown = str(caught.value)
        assert "cannot create Namespace x: " in shown
        assert "the answer is not JSON" in shown or "the answer is not a Kubernetes object" in shown, shown
    finally:
        garbage.close()


def test_the_deadline_covers_cleanup(tmp_path: Path, replay: tuple[ReplayState, Path]) -> None:
    """With the deadline passed, cleanup still reads its namespace and sends the DELETE, then stops
    waiting at the first look instead of waiting up to NAMESPACE_GONE_S, and says what may remain."""
    state, kubeconfig = replay
    clock = Clock()
    cluster = connect(str(kubeconfig), "replay")
    runner = Runner(
        cluster, load_plan(_suite(tmp_path, 2)), clock=clock, sleep=clock.sleep, deadline_s=0, run_id=RUN
    )
    obs = runner.run()
    ns = f"acceptance-h100-train-{RUN}"
    assert state.calls[-3:] == [
        f"GET /api/v1/namespaces/{ns}",
        f"DELETE /api/v1/namespaces/{ns}",
        f"GET /api/v1/namespaces/{ns}",  # Terminating: past the deadline, no second look
    ]
    # the recording needs no wait before cleanup (every watch ends done), so only cleanup is cut short
    assert obs.notes == [f"namespace {ns} was still terminating when the run ended"]
    assert runner.remains()[1].endswith(f"-l {LABEL_ACCEPTANCE_RUN}={RUN}")


def test_logs_are_read_with_a_byte_limit(tmp_path: Path, replay: tuple[ReplayState, Path]) -> None:
    """A container log is read with the API's limitBytes (a quarter of input_bytes), so a runaway
    log cannot exhaust memory or make the bundle unreadable by `acceptance score`."""
    from gpuplane.limits import limits

    state, kubeconfig = replay
    cluster = connect(str(kubeconfig), "replay")
    assert "step 100" in cluster.pod_log("ns", "train-trainer-0-0-7xk2p", "train")
    assert state.paths == [
        f"/api/v1/namespaces/ns/pods/train-trainer-0-0-7xk2p/log?container=train&limitBytes={limits().input_bytes // 4}"
    ]
