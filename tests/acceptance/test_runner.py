"""`acceptance run` against a local API server replaying recorded responses: the exact sequence of
calls (create, watch, delete pod, cleanup), nothing left behind, cleanup on Ctrl-C, the bundle."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplane.acceptance import runner as runner_module
from gpuplane.acceptance.bundle import write_bundle
from gpuplane.acceptance.cluster import connect
from gpuplane.acceptance.runner import Runner, load_plan
from gpuplane.acceptance.score import score
from gpuplane.cli import app
from gpuplane.outputs import write_tree_atomic
from tests.acceptance.helpers import EXAMPLES, FIXTURES, suite_for
from tests.support.browser import check_in_chromium
from tests.support.kube_replay import ReplayState, replay_server

SUITE_NS = "acceptance-h100-train"
RUN = "0123abcd"
NS = f"{SUITE_NS}-{RUN}"  # the run's own namespace
API = FIXTURES / "api"
START = datetime.fromisoformat("2026-11-20T09:07:30+00:00").timestamp()
N0, N1 = "ip-10-0-3-7.ec2.internal", "ip-10-0-3-8.ec2.internal"
OLD, NEW, OTHER = "train-trainer-0-0-7xk2p", "train-trainer-0-0-h5t8r", "train-trainer-0-1-q9w4m"
LOG = f"GET /api/v1/namespaces/{NS}/pods/{{}}/log"
PODS = f"WATCH /api/v1/namespaces/{NS}/pods"
CREATE = [
    "POST /api/v1/namespaces",
    # the pool's team NetworkPolicies: default-deny, allow-dns, allow-same-namespace (no egress declared)
    *[f"POST /apis/networking.k8s.io/v1/namespaces/{NS}/networkpolicies"] * 3,
    f"POST /apis/kueue.x-k8s.io/v1beta2/namespaces/{NS}/localqueues",
    f"POST /api/v1/namespaces/{NS}/configmaps",
    f"POST /api/v1/namespaces/{NS}/persistentvolumeclaims",
]
CLEANUP = [
    f"GET /api/v1/namespaces/{NS}",
    f"DELETE /api/v1/namespaces/{NS}",
    f"GET /api/v1/namespaces/{NS}",
    f"GET /api/v1/namespaces/{NS}",
]


class FakeClock:
    """Time that moves only when the runner sleeps (so every run replays identically)."""

    def __init__(self, start: float, interrupt_at: int | None = None) -> None:
        self.now = start
        self.sleeps = 0
        self.interrupt_at = interrupt_at

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        if self.sleeps == self.interrupt_at:
            raise KeyboardInterrupt
        self.now += seconds


@pytest.fixture()
def suite_dir(tmp_path: Path) -> Path:
    eks = next(e for e in EXAMPLES if e.stem == "eks-mixed")
    _, suite = suite_for(eks, "h100-train", nodes=2, window_s=600.0, api_price_per_unit=0.5)
    write_tree_atomic(tmp_path / "suite", suite.files)
    return tmp_path / "suite"


@pytest.fixture()
def replay(tmp_path: Path) -> Iterator[tuple[ReplayState, Path]]:
    with replay_server(API, tmp_path) as served:
        yield served


def _run(suite_dir: Path, kubeconfig: Path, clock: FakeClock) -> tuple[Runner, object]:
    cluster = connect(str(kubeconfig), "replay")
    runner = Runner(
        cluster, load_plan(suite_dir), clock=clock, sleep=clock.sleep, deadline_s=7200, run_id=RUN
    )
    try:
        return runner, runner.run()
    finally:
        cluster.close()


def test_run_makes_exactly_these_calls_and_leaves_nothing(
    suite_dir: Path, replay: tuple[ReplayState, Path]
) -> None:
    state, kubeconfig = replay
    runner, _ = _run(suite_dir, kubeconfig, FakeClock(START))
    assert state.calls == [
        *CREATE,
        f"POST /apis/kubeflow.org/v2beta1/namespaces/{NS}/mpijobs",
        PODS,
        f"GET /api/v1/nodes/{N0}",
        f"GET /api/v1/nodes/{N0}",
        f"GET /api/v1/nodes/{N1}",
        LOG.format("nccl-allreduce-launcher-4bq9z"),
        f"POST /apis/jobset.x-k8s.io/v1alpha2/namespaces/{NS}/jobsets",
        PODS,
        LOG.format(OLD),
        f"GET /api/v1/nodes/{N0}",
        f"DELETE /api/v1/namespaces/{NS}/pods/{OLD}",
        PODS,
        LOG.format(NEW),
        LOG.format(NEW),
        f"GET /api/v1/nodes/{N0}",
        LOG.format(OTHER),
        LOG.format(OTHER),
        f"GET /api/v1/nodes/{N1}",
        f"GET /apis/kueue.x-k8s.io/v1beta2/namespaces/{NS}/workloads",
        *CLEANUP,
    ]
    assert state.leftovers() == []
    obs = runner.obs
    # the hand-made timeline: JobSet created 09:00:00, admitted 09:00:04, pod started 09:01:30,
    # deletion at the runner's 09:07:30, the new pod resumed at 09:09:10
    assert (obs.submitted, obs.admitted, obs.running, obs.deleted_at) == (
        START - 450,
        START - 446,
        START - 360,
        START,
    )
    assert obs.deleted_pod == OLD and obs.nccl_log and "Avg bus bandwidth" in obs.nccl_log
    assert [p.name for p in obs.pods if p.step == "train"] == [OLD, NEW, OTHER]


def test_the_recorded_run_scores_with_the_hand_made_figures(
    suite_dir: Path, replay: tuple[ReplayState, Path]
) -> None:
    _, kubeconfig = replay
    runner, _ = _run(suite_dir, kubeconfig, FakeClock(START))
    results = score(load_plan(suite_dir).info, runner.obs)
    status = {s.number: s.status for s in results.steps}
    assert status == {1: "pass", 2: "pass", 3: "pass", 4: "pass", 5: "pass", 6: "skipped", 7: "pass"}
    figures = {f.name: f.value for s in results.steps for f in s.figures}
    assert figures["admission_wait_s"] == 4.0 and figures["admitted_to_running_s"] == 86.0
    assert figures["dataset_mb_per_s"] == 200.0 and figures["weights_mb_per_s"] == 300.0
    assert figures["busbw_at_max"] == 376.90 and figures["avg_busbw"] == 350.025  # -e 16G, as the threshold
    assert figures["steps"] == 400 and figures["resume_s"] == 100.0 and figures["resumed_at_unit"] == 101
    # GPU time: (330 + 600 + 600) s x 8 GPUs; lost: 09:07:00 checkpoint -> 09:07:30 deletion, x 8
    assert figures["gpu_hours"] == pytest.approx(1530 * 8 / 3600)
    assert figures["gpu_hours_lost"] == pytest.approx(30 * 8 / 3600)
    # priced as simulate prices: 3.4 GPU-h at the pool's GPU-hour price, plus support and operations
    # (1,000 + 2,500 a month, eks-mixed.yaml) prorated over the 1,010 s window (09:02:00 -> 09:18:50)
    prices = load_plan(suite_dir).info["prices"]
    assert figures["cost_total"] == pytest.approx(prices["gpu_hourly"] * 3.4 + 3500 * (1010 / 3600) / 730)
    cost_total = figures["cost_total"]
    assert cost_total is not None and figures["cluster_cost_per_steps"] == pytest.approx(cost_total / 400)
    # renting (gpuplane.baselines): 2 pods on their own p5.48xlarge for the kept work, 1,500 x 8
    # GPU-s / 16 GPUs = 750 s, plus 600 s boot, per-second billing with a 60 s minimum (EC2)
    rental = prices["rental"]
    assert (rental["offer"]["vm"], rental["boot_s"], rental["billing"]["minimum_s"]) == (
        "p5.48xlarge",
        600.0,
        60.0,
    )
    assert figures["rental_cost_per_steps"] == pytest.approx(
        2 * rental["offer"]["hourly"] * (1350 / 3600) / 400
    )
    assert figures["api_cost_per_steps"] == 0.5
    assert "no --prometheus" in " ".join(results.failures())


def test_ctrl_c_mid_run_still_deletes_the_namespace(
    suite_dir: Path, replay: tuple[ReplayState, Path]
) -> None:
    state, kubeconfig = replay
    with pytest.raises(KeyboardInterrupt):
        _run(suite_dir, kubeconfig, FakeClock(START, interrupt_at=1))
    # interrupted while waiting after the pod deletion: the namespace goes, nothing is left
    assert state.calls[-4:] == CLEANUP
    assert f"DELETE /api/v1/namespaces/{NS}/pods/{OLD}" in state.calls
    assert state.leftovers() == []


def test_a_namespace_that_is_already_there_is_never_touched(
    suite_dir: Path, replay: tuple[ReplayState, Path]
) -> None:
    state, kubeconfig = replay
    state.objects[("Namespace", "", NS)] = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}
    from gpuplane.acceptance.cluster import NamespaceExists

    with pytest.raises(NamespaceExists, match="already exists"):
        _run(suite_dir, kubeconfig, FakeClock(START))
    # read back (it carries no run label of this run), never deleted
    assert state.calls == ["POST /api/v1/namespaces", f"GET /api/v1/namespaces/{NS}"]
    assert state.leftovers() == [("Namespace", "", NS)]


def test_cli_run_asks_first_and_writes_a_bundle_that_opens_in_chromium(
    suite_dir: Path, replay: tuple[ReplayState, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, kubeconfig = replay
    bundle = tmp_path / "evidence"
    args = ["acceptance", "run", str(suite_dir), "--kubeconfig", str(kubeconfig), "-o", str(bundle)]
    refused = CliRunner().invoke(app, args)
    assert refused.exit_code == 2 and "pass --yes" in refused.output and state.calls == []
    clock = FakeClock(START)
    monkeypatch.setattr(runner_module, "POLL_S", 0.0)
    monkeypatch.setattr("gpuplane.acceptance.command.time.time", clock)
    monkeypatch.setattr("gpuplane.acceptance.command.time.sleep", clock.sleep)
    monkeypatch.setattr("gpuplane.acceptance.command.secrets.token_hex", lambda n: RUN)
    result = CliRunner().invoke(app, [*args, "--yes"])
    assert result.exit_code == 1, result.output  # step 6 was not checked (no --prometheus)
    assert f"create MPIJob {NS}/nccl-allreduce" in result.output
    assert "step 6 (GPU, network, storage, queue and cost labels exported)" in result.output
    assert state.leftovers() == []
    files = sorted(p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file())
    assert {"bundle.json", "results.json", "observations.json", "report.html", "images.json"} <= set(files)
    assert "manifests/20-step1-train.yaml" in files and f"logs/{NEW}.log" in files
    assert json.loads((bundle / "results.json").read_text())["verdict"] == "fail"
    check = check_in_chromium(bundle / "report.html", tmp_path / "shot.png")
    assert check.ok, (check.console_errors, check.external_requests)
    assert check.svg_count >= 1
    rescored = CliRunner().invoke(app, ["acceptance", "score", str(bundle), "-o", "json"])
    assert rescored.exit_code == 1 and json.loads(rescored.stdout)["steps"][2]["status"] == "pass"


def test_bundle_never_replaces_a_directory_it_did_not_write(tmp_path: Path) -> None:
    from gpuplane.errors import OutputError

    target = tmp_path / "photos"
    target.mkdir()
    (target / "cat.jpg").write_bytes(b"\xff\xd8")
    with pytest.raises(OutputError, match="not an acceptance evidence bundle"):
        write_bundle(target, {"bundle.json": "{}"})
    assert (target / "cat.jpg").read_bytes() == b"\xff\xd8"


def test_an_unreachable_cluster_is_an_upstream_error(suite_dir: Path, tmp_path: Path) -> None:
    config = tmp_path / "unreachable"
    config.write_text(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: x\n  cluster: {server: 'http://127.0.0.1:9'}\n"
        "users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: x, user: u}\ncurrent-context: x\n"
    )
    bundle = tmp_path / "evidence"
    args = ["acceptance", "run", str(suite_dir), "--kubeconfig", str(config), "--yes", "-o", str(bundle)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 3, result.output
    assert (
        "error: Kubernetes API http://127.0.0.1:9: cannot create Namespace acceptance-h100-train-"
        in result.output
    )
    assert ": cannot reach the API server (" in result.output
    # the evidence written before the run touched the cluster stays, marked incomplete
    assert json.loads((bundle / "bundle.json").read_text())["verdict"] == "incomplete"
    assert not (bundle / "results.json").exists()


def test_run_on_a_directory_that_is_not_a_suite_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    result = CliRunner().invoke(
        app,
        [
            "acceptance",
            "run",
            str(tmp_path / "notes"),
            "--kubeconfig",
            "k",
            "--yes",
            "-o",
            str(tmp_path / "b"),
        ],
    )
    assert result.exit_code == 2
    assert (
        "notes/suite.json: error: cannot read (No such file or directory); is this an acceptance suite?"
        in result.output
    )
