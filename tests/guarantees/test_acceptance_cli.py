"""The Guarantees on `gpuplane acceptance render|run|score` (issue 19): hostile cases end in a refusal
or a correct result, never a replaced folder, a lost bundle, a printed secret or exit 70.

Each case here failed before the fix it names: render replaced an evidence bundle (it held a
suite.json), run replaced any folder holding a bundle.json, a pod named `../` or 253 characters
or a 400-digit step lost the bundle, score passed NCCL at busbw `inf`/`1e400`, `nan` options
reached suite.json, malformed bundles ended in exit 70, and secrets reached the output.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuplane.acceptance import runner as runner_module
from gpuplane.acceptance.bundle import Evidence, bundle_files, safe_name, write_bundle
from gpuplane.acceptance.observations import Observations
from gpuplane.acceptance.score import score
from gpuplane.cli import app
from gpuplane.outputs import write_tree_atomic
from tests.acceptance.helpers import EXAMPLES, FIXTURES, IMAGE, suite_for
from tests.acceptance.test_score import passing
from tests.support.kube_replay import ReplayState, replay_server

EKS = next(e for e in EXAMPLES if e.stem == "eks-mixed")
START = datetime.fromisoformat("2026-11-20T09:07:30+00:00").timestamp()
RUN = "77aa0011"


def _render(out: Path, *extra: str) -> Any:
    args = ["acceptance", "render", str(EKS), "--pool", "h100-train", "--image", IMAGE, "-o", str(out)]
    return CliRunner().invoke(app, [*args, "--command", "python train.py", *extra])


def _suite(tmp_path: Path, nodes: int = 2) -> Path:
    _, suite = suite_for(EKS, "h100-train", nodes=nodes, window_s=600.0, api_price_per_unit=0.5)
    write_tree_atomic(tmp_path / "suite", suite.files)
    return tmp_path / "suite"


def _bundle(tmp_path: Path, obs: Observations | None = None) -> Path:
    _, suite = suite_for(EKS, "h100-train", nodes=2, api_price_per_unit=0.5)
    obs = obs or passing()
    dest = tmp_path / "bundle"
    write_bundle(dest, bundle_files(score(suite.info, obs), obs, {}, {"pod-a": "log"}))
    return dest


def _tree(path: Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


# -- folders ------------------------------------------------------------------------------------


def test_render_never_replaces_an_evidence_bundle(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    before = _tree(bundle)
    assert "suite.json" in before  # what used to make render take it for a suite
    result = _render(bundle)
    assert result.exit_code == 2, result.output
    assert "was not written by gpuplane (no suite.json from it)" in result.output
    assert _tree(bundle) == before


def test_render_replaces_only_a_suite_it_wrote(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    assert _render(suite).exit_code == 0
    assert _render(suite, "--window", "300").exit_code == 0  # its own suite: replaced
    assert json.loads((suite / "suite.json").read_text())["window_s"] == 300
    other = tmp_path / "other"
    other.mkdir()
    (other / "suite.json").write_text('{"namespace": "mine"}\n')
    (other / "notes.txt").write_text("keep\n")
    result = _render(other)
    assert result.exit_code == 2 and (other / "notes.txt").read_text() == "keep\n"


def test_run_never_replaces_a_folder_without_its_marker(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    for name, files in {
        "suite-as-bundle": None,
        "bare-marker": {"bundle.json": "{}\n", "results.json": "precious\n"},
    }.items():
        target = suite if files is None else tmp_path / name
        if files is not None:
            target.mkdir()
            for rel, text in files.items():
                (target / rel).write_text(text)
        before = _tree(target)
        result = CliRunner().invoke(
            app, ["acceptance", "run", str(suite), "--kubeconfig", "k", "--yes", "-o", str(target)]
        )
        assert result.exit_code == 2, result.output
        assert "is not an acceptance evidence bundle" in result.output
        assert _tree(target) == before


@pytest.mark.parametrize("pod", ["../../outside", "a" * 253, ".hidden", "x/y", "ok-name"])
def test_log_file_names_are_made_safe(tmp_path: Path, pod: str) -> None:
    evidence = Evidence(tmp_path / "b")
    evidence.start(
        {"bundle.json": '{\n  "kind": "gpuplane-acceptance-bundle",\n  "verdict": "incomplete"\n}\n'}
    )
    evidence.log(pod, "text\n")
    logs = list((tmp_path / "b" / "logs").iterdir())
    assert [p.read_text() for p in logs] == ["text\n"]
    name = logs[0].name
    assert len(name) <= 105 and "/" not in name and not name.startswith(".")
    assert (name == f"{pod}.log") == (pod == "ok-name")
    assert not (tmp_path / "outside.log").exists()
    assert safe_name("a" * 253) != safe_name("a" * 252)  # cut names stay distinct


def test_a_link_planted_in_the_bundle_is_replaced_not_followed(tmp_path: Path) -> None:
    evidence = Evidence(tmp_path / "b")
    evidence.start(
        {"bundle.json": '{\n  "kind": "gpuplane-acceptance-bundle",\n  "verdict": "incomplete"\n}\n'}
    )
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    (tmp_path / "b" / "results.json").symlink_to(victim)
    evidence.add("results.json", "{}\n")
    assert victim.read_text() == "mine\n"
    assert not (tmp_path / "b" / "results.json").is_symlink()
    (tmp_path / "b" / "logs").symlink_to(tmp_path)
    with pytest.raises(Exception, match="refusing to write through it"):
        evidence.log("pod", "x")


@pytest.fixture()
def replay_copy(tmp_path: Path) -> Iterator[tuple[ReplayState, Path, Path]]:
    fixtures = tmp_path / "api"
    shutil.copytree(FIXTURES / "api", fixtures)
    with replay_server(fixtures, tmp_path) as (state, kubeconfig):
        yield state, kubeconfig, fixtures


def _run_cli(
    monkeypatch: pytest.MonkeyPatch, suite: Path, kubeconfig: Path, bundle: Path, *extra: str
) -> Any:
    clock = iter(range(10**6))
    now = [START]

    def time() -> float:
        next(clock)
        return now[0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    monkeypatch.setattr(runner_module, "POLL_S", 0.0)
    monkeypatch.setattr("gpuplane.acceptance.command.time.time", time)
    monkeypatch.setattr("gpuplane.acceptance.command.time.sleep", sleep)
    monkeypatch.setattr("gpuplane.acceptance.command.secrets.token_hex", lambda n: RUN)
    args = ["acceptance", "run", str(suite), "--kubeconfig", str(kubeconfig), "--yes", "-o", str(bundle)]
    return CliRunner().invoke(app, [*args, *extra])


def test_a_400_digit_step_does_not_lose_the_bundle(
    tmp_path: Path, replay_copy: tuple[ReplayState, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    state, kubeconfig, fixtures = replay_copy
    log = fixtures / "logs" / "train-trainer-0-0-h5t8r.train.log"
    huge = json.dumps(
        {
            "event": "progress",
            "gpuplane": "acceptance/v1",
            "pod": "p",
            "run": "r",
            "ts": 1795166331.0,
            "units": 1,
        }
    ).replace('"units": 1', '"units": ' + "9" * 400)
    log.write_text(log.read_text() + f"step {'9' * 400}\n{huge}\n")
    bundle = tmp_path / "evidence"
    result = _run_cli(monkeypatch, _suite(tmp_path), kubeconfig, bundle)
    assert result.exit_code == 1, result.output  # step 6 has no --prometheus; nothing crashed
    assert json.loads((bundle / "bundle.json").read_text())["verdict"] == "fail"
    assert "9" * 400 in (bundle / "logs" / "train-trainer-0-0-h5t8r.log").read_text()
    results = json.loads((bundle / "results.json").read_text())
    assert results["steps"][3]["status"] == "pass"  # the 400-digit line is not a measurement
    assert state.leftovers() == []


# -- refusing what cannot be right --------------------------------------------------------------


@pytest.mark.parametrize("value", ["inf", "1e400", "nan", "-inf"])
def test_score_never_passes_nccl_at_a_bus_bandwidth_that_is_not_finite(tmp_path: Path, value: str) -> None:
    obs = passing()
    assert obs.nccl_log is not None
    lines = obs.nccl_log.splitlines()
    # every row's busbw and the footer: the figure the threshold names is then not finite
    edited = []
    for line in lines:
        tokens = line.split()
        if not line.startswith("#") and len(tokens) > 12 and tokens[0].isdigit():
            tokens[7] = tokens[11] = value
            line = "  ".join(tokens)
        if line.startswith("# Avg bus bandwidth"):
            line = f"# Avg bus bandwidth    : {value}"
        edited.append(line)
    obs.nccl_log = "\n".join(edited) + "\n"
    bundle = _bundle(tmp_path, obs)
    result = CliRunner().invoke(app, ["acceptance", "score", str(bundle), "-o", "json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)  # strict JSON: no Infinity/NaN tokens reach it
    step3 = data["steps"][2]
    assert step3["status"] == "fail"
    assert all(f["value"] is None for f in step3["figures"] if f["name"].endswith("busbw"))
    assert "Infinity" not in result.stdout and "NaN" not in result.stdout


@pytest.mark.parametrize(
    ("footer", "row"),
    [
        ("# Avg bus bandwidth    : --", None),
        ("# Avg bus bandwidth    : 1e999999", None),
        ("# Out of bounds values : 99999999999999999999999999999 OK", None),
        (None, "²³  4  float  sum  -1  1.0  2.0  3.0  0  1.0  2.0  3.0  0"),
        (None, "9" * 5000 + "  4  float  sum  -1  1.0  2.0  3.0  0  1.0  2.0  3.0  0"),
    ],
)
def test_odd_nccl_footers_and_rows_are_not_a_crash(
    tmp_path: Path, footer: str | None, row: str | None
) -> None:
    obs = passing()
    assert obs.nccl_log is not None
    text = obs.nccl_log
    if footer is not None:
        key = footer.split(":")[0]
        text = "\n".join(footer if line.startswith(key) else line for line in text.splitlines()) + "\n"
    if row is not None:
        text = text.replace("# Out of bounds", row + "\n# Out of bounds", 1)
    obs.nccl_log = text
    result = CliRunner().invoke(app, ["acceptance", "score", str(_bundle(tmp_path, obs)), "-o", "json"])
    assert result.exit_code in (0, 1), result.output
    json.loads(result.stdout)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--window", "nan"),
        ("--window", "inf"),
        ("--window", "-5"),
        ("--window", "0"),
        ("--nccl-min-busbw", "nan"),
        ("--nccl-min-busbw", "inf"),
        ("--max-admission-wait", "-1"),
        ("--max-admission-wait", "nan"),
        ("--min-copy-mbps", "nan"),
        ("--max-resume", "inf"),
        ("--api-price-per-unit", "-0.5"),
    ],
)
def test_numeric_render_options_must_be_finite_and_in_range(tmp_path: Path, option: str, value: str) -> None:
    out = tmp_path / "suite"
    result = _render(out, "--nodes", "2", option, value)
    assert result.exit_code == 2, result.output
    assert f"error: {option}: expected a finite number" in result.output and "Traceback" not in result.output
    assert not out.exists()


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_run_timeout_must_be_finite_and_positive(tmp_path: Path, value: str) -> None:
    suite = _suite(tmp_path)
    args = ["acceptance", "run", str(suite), "--kubeconfig", "k", "--yes", "-o", str(tmp_path / "b")]
    result = CliRunner().invoke(app, [*args, "--timeout", value])
    assert result.exit_code == 2 and "--timeout: expected a finite number above 0" in result.output


def _damage(bundle: Path, how: str) -> str:
    """Damage one bundle file; returns the file the error must name."""
    obs_file = bundle / "observations.json"
    data = json.loads(obs_file.read_text())
    if how == "missing":
        obs_file.unlink()
    elif how == "not-json":
        obs_file.write_text("{not json")
    elif how == "list":
        obs_file.write_text("[]")
    elif how == "nan":
        obs_file.write_text(obs_file.read_text().replace('"admitted": 1700000030.0', '"admitted": NaN'))
    elif how == "1e400":
        obs_file.write_text(obs_file.read_text().replace('"admitted": 1700000030.0', '"admitted": 1e400'))
    elif how == "huge-int":
        obs_file.write_text(
            obs_file.read_text().replace('"admitted": 1700000030.0', '"admitted": ' + "9" * 5000)
        )
    elif how == "string-time":
        obs_file.write_text(json.dumps({**data, "admitted": "soon"}))
    elif how == "events-object":
        obs_file.write_text(json.dumps({**data, "events": {"a": 1}}))
    elif how == "pod-labels-list":
        data["pods"][0]["labels"] = ["x"]
        obs_file.write_text(json.dumps(data))
    elif how == "pod-missing-name":
        del data["pods"][0]["name"]
        obs_file.write_text(json.dumps(data))
    elif how == "pods-of-strings":
        obs_file.write_text(json.dumps({**data, "pods": ["a"]}))
    elif how == "unknown-key":
        obs_file.write_text(json.dumps({**data, "surprise": 1}))
    elif how == "series-bool":
        data["series"][0]["series"] = True
        obs_file.write_text(json.dumps(data))
    elif how == "nccl-log-number":
        obs_file.write_text(json.dumps({**data, "nccl_log": 5}))
    elif how == "deep":
        obs_file.write_text("[" * 100_000 + "]" * 100_000)
    elif how == "link":
        target = bundle.parent / "elsewhere.json"
        target.write_text(obs_file.read_text())
        obs_file.unlink()
        obs_file.symlink_to(target)
    elif how == "suite-list":
        (bundle / "suite.json").write_text("[1]")
        return "bundle"
    elif how == "binary":
        obs_file.write_bytes(b"\xff\xfe\x00garbage")
    elif how in ("threshold-infinity", "threshold-string", "threshold-op"):
        suite = json.loads((bundle / "suite.json").read_text())
        edit = {"threshold-infinity": ("value", 1e308 * 10), "threshold-string": ("value", "300"),
                "threshold-op": ("op", "!=")}[how]  # fmt: skip
        suite["thresholds"]["nccl"][edit[0]] = edit[1]
        (bundle / "suite.json").write_text(json.dumps(suite))
        return "suite.json: error: thresholds.nccl:" if how != "threshold-infinity" else "suite.json"
    return "observations.json"


DAMAGES = [
    "missing", "not-json", "list", "nan", "1e400", "huge-int", "string-time", "events-object",
    "pod-labels-list", "pod-missing-name", "pods-of-strings", "unknown-key", "series-bool",
    "nccl-log-number", "deep", "link", "suite-list", "binary", "threshold-infinity", "threshold-string",
    "threshold-op",
]  # fmt: skip


@pytest.mark.parametrize("how", DAMAGES)
def test_a_malformed_bundle_is_one_located_line_exit_2(tmp_path: Path, how: str) -> None:
    bundle = _bundle(tmp_path)
    named = _damage(bundle, how)
    result = CliRunner().invoke(app, ["acceptance", "score", str(bundle)])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and ": error: " in lines[0], result.output
    assert named in lines[0]


def test_a_bundle_file_over_the_size_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuplane.acceptance import bundle as bundle_module
    from gpuplane.limits import limits

    bundle = _bundle(tmp_path)
    small = type(limits())(**{**limits().__dict__, "input_bytes": 1000})
    monkeypatch.setattr(bundle_module, "limits", lambda: small)
    result = CliRunner().invoke(app, ["acceptance", "score", str(bundle)])
    assert result.exit_code == 2 and "larger than 1000 bytes (limit input_bytes)" in result.output


# -- secrets ------------------------------------------------------------------------------------

TOKEN = "kc-token-8f3a9c2e71d4"
PASSWORD = "hunter2-url-pass"
QUERY_TOKEN = "qtok-5b7e1d9a"
DATASET_PASSWORD = "ds-pass-0c4f7a"


def _secret_kubeconfig(tmp_path: Path, port: int, query: bool = False) -> Path:
    config = tmp_path / ("secret-kubeconfig-q" if query else "secret-kubeconfig")
    server = f"http://admin:{PASSWORD}@127.0.0.1:{port}" + (f"/?token={QUERY_TOKEN}" if query else "")
    config.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters:\n- name: replay\n  cluster: {{server: '{server}'}}\n"
        f"users:\n- name: runner\n  user: {{token: {TOKEN}}}\n"
        "contexts:\n- name: replay\n  context: {cluster: replay, user: runner}\ncurrent-context: replay\n"
    )
    return config


def _outputs(result: Any, *folders: Path) -> str:
    texts = [result.output]
    for folder in folders:
        if folder.exists():
            texts += [p.read_text(errors="replace") for p in sorted(folder.rglob("*")) if p.is_file()]
    return "\n".join(texts)


def _assert_no_secret(text: str) -> None:
    for secret in (TOKEN, PASSWORD, QUERY_TOKEN, DATASET_PASSWORD):
        assert secret not in text


def test_no_secret_reaches_any_output_of_a_run(
    tmp_path: Path, replay_copy: tuple[ReplayState, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Secrets planted in the kubeconfig (server URL user:password and ?token=, the user token) and
    in the helper's log (a dataset URL's password echoed in a copy error) appear nowhere: not in the
    output, not in any bundle file (logs, observations, results, report, manifests)."""
    state, kubeconfig, fixtures = replay_copy
    port = int(kubeconfig.read_text().split("127.0.0.1:")[1].split("'")[0])
    config = _secret_kubeconfig(tmp_path, port)
    log = fixtures / "logs" / "train-trainer-0-0-7xk2p.fetch.log"
    leaked = json.dumps(
        {
            "event": "copy_failed", "gpuplane": "acceptance/v1", "pod": "p", "run": "r", "ts": 1795165306.0,
            "what": "dataset", "source": "https://data.example.com/x",
            "error": f"InvalidURL: https://u:{DATASET_PASSWORD}@data.example.com/x?sig={QUERY_TOKEN} "
            f"nonnumeric port: 'u:{DATASET_PASSWORD}@data.example.com'",
        }
    )  # fmt: skip
    log.write_text(log.read_text() + leaked + "\n" + f"Authorization: Bearer {TOKEN}\n")
    bundle = tmp_path / "evidence"
    suite = _suite(tmp_path)
    result = _run_cli(monkeypatch, suite, config, bundle)
    everything = _outputs(result, bundle)
    assert (bundle / "results.json").exists(), result.output
    assert "http://***@127.0.0.1" in result.output  # without --context: the server URL, redacted
    assert state.leftovers() == []
    _assert_no_secret(everything)
    # a server URL with ?token= cannot be used as a base URL (requests fail, exit 3): still redacted
    query = _secret_kubeconfig(tmp_path, port, query=True)
    result = _run_cli(monkeypatch, suite, query, tmp_path / "evidence2")
    assert result.exit_code == 3 and "?token=***" in result.output
    _assert_no_secret(_outputs(result, tmp_path / "evidence2"))


class _Echo(BaseHTTPRequestHandler):
    """An API server answering 403 with a reason phrase and a body that echo the credentials."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
        auth = self.headers.get("Authorization", "")
        body = json.dumps({"kind": "Status", "code": 403, "message": f"denied for {auth}"}).encode()
        self.send_response(403, f"Forbidden for {auth}")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_DELETE = do_POST


def test_an_upstream_error_body_is_reduced_to_status_and_a_redacted_reason(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        config = _secret_kubeconfig(tmp_path, server.server_address[1])
        args = ["acceptance", "run", str(_suite(tmp_path)), "--kubeconfig", str(config), "--yes"]
        result = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "b")])
    finally:
        server.shutdown()
        server.server_close()
    assert result.exit_code == 3, result.output
    assert "cannot create Namespace" in result.output and "403 Forbidden for" in result.output
    assert "denied for" not in result.output  # the body is never shown
    _assert_no_secret(_outputs(result, tmp_path / "b"))


@pytest.mark.parametrize(
    "url", [f"https://u:{DATASET_PASSWORD}@data.example.com/x", f"s3://k:{DATASET_PASSWORD}@bucket/x"]
)
def test_render_refuses_credentials_in_a_source_url(tmp_path: Path, url: str) -> None:
    result = _render(tmp_path / "suite", "--dataset", url)
    assert result.exit_code == 2 and "carries credentials" in result.output
    _assert_no_secret(result.output)
    assert not (tmp_path / "suite").exists()


KUBECONFIGS = {
    "empty": b"",
    "list": b"- a\n- b\n",
    "no-contexts": b"apiVersion: v1\nkind: Config\n",
    "missing-cluster": b"apiVersion: v1\nkind: Config\ncontexts:\n- name: c\n  context: {cluster: nope, user: u}\n"
    b"current-context: c\n",
    "binary": b"\xff\xfe\x00\x01",
    "odd-types": b"apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: [1, 2]}\nusers:\n"
    b"- name: u\n  user: {token: {a: 1}}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n",
    "ints": b"clusters: 5\ncontexts: 7\ncurrent-context: 9\n",
}


@pytest.mark.parametrize("name", sorted(KUBECONFIGS))
def test_a_malformed_kubeconfig_is_one_located_line(tmp_path: Path, name: str) -> None:
    config = tmp_path / "kubeconfig"
    config.write_bytes(KUBECONFIGS[name])
    args = ["acceptance", "run", str(_suite(tmp_path)), "--kubeconfig", str(config), "--yes"]
    result = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "b")])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"{config}: error: cannot use the kubeconfig: ")
    assert not (tmp_path / "b").exists()  # nothing written before the cluster can be reached
