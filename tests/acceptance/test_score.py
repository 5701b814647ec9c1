"""Scoring on hand-made observations: each failure class fails its step with the number and the
threshold in the message; a passing table passes."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuplane.acceptance.observations import Observations, PodRecord, SeriesCheck, from_logs
from gpuplane.acceptance.score import score
from gpuplane.cli import app
from gpuplane.outputs import write_tree_atomic
from tests.acceptance.helpers import EXAMPLES, FIXTURES, IMAGE, suite_for

T0 = 1_700_000_000.0  # any epoch: only differences matter
EKS = next(e for e in EXAMPLES if e.stem == "eks-mixed")
NCCL_16G = (FIXTURES / "api" / "logs" / "nccl-allreduce-launcher-4bq9z.launcher.log").read_text()


@pytest.fixture(scope="module")
def suite() -> dict[str, Any]:
    _, rendered = suite_for(EKS, "h100-train", nodes=2, api_price_per_unit=0.5)
    return rendered.info


def _ev(event: str, at: float, pod: str, **fields: Any) -> dict[str, Any]:
    return {"gpuplane": "acceptance/v1", "event": event, "ts": T0 + at, "pod": pod, **fields}


def _pod(name: str, node_pool: str = "h100-train", image_id: str = IMAGE, **labels: str) -> PodRecord:
    base = {
        "gpuplane.io/acceptance": "acceptance-h100-train",
        "gpuplane.io/acceptance-step": "train",
        "gpuplane.io/workload-class": "training",
        "gpuplane.io/pool": "h100-train",
        "gpuplane.io/team": "research",
        "kueue.x-k8s.io/queue-name": "research",
    }
    node = {
        "gpuplane.io/pool": node_pool,
        "gpuplane.io/accelerator": "h100-80gb",
        "gpuplane.io/sharing": "exclusive",
        "gpuplane.io/capacity": "spot",
    }
    return PodRecord(
        name,
        "train",
        "node-a",
        {**base, **labels},
        node,
        [{"container": "train", "image": IMAGE, "image_id": image_id}],
    )


def passing() -> Observations:
    """A 2-node run: admitted in 30 s, copies at 120/400 MB/s, checkpoint, deletion, resume in 90 s."""
    events = [
        _ev("copy", 60, "a", what="dataset", bytes=1_200_000_000, files=10, seconds=10.0, mb_per_s=120.0),
        _ev("copy", 61, "a", what="weights", bytes=4_000_000_000, files=1, seconds=10.0, mb_per_s=400.0),
        _ev("window_start", 100, "a", restored=False),
        _ev("window_start", 100, "b", restored=False),
        _ev("checkpoint", 400, "a", bytes=10, units=50),
        _ev("window_end", 700, "b", units=120, seconds=600.0, exit=-15, reason="window"),
        _ev("window_start", 480, "c", restored=True),
        _ev("resumed", 520, "c", seconds=40.0, units=51),
        _ev("window_end", 1080, "c", units=150, seconds=600.0, exit=-15, reason="window"),
    ]
    pods = [_pod("a"), _pod("b"), _pod("c")]
    series = [
        SeriesCheck("gpu", "q", 16),
        SeriesCheck("gpu_activity", "q", 1, 0.75),
        SeriesCheck("queue", "q", 1),
    ]
    return Observations(
        submitted=T0, admitted=T0 + 30, running=T0 + 50, deleted_at=T0 + 430, deleted_pod="a",
        events=events, nccl_log=NCCL_16G, pods=pods, series=series,
    )  # fmt: skip


def _status(suite: dict[str, Any], obs: Observations) -> dict[int, str]:
    return {s.number: s.status for s in score(suite, obs).steps}


def test_a_good_run_passes_every_step(suite: dict[str, Any]) -> None:
    results = score(suite, passing())
    assert _status(suite, passing()) == dict.fromkeys(range(1, 8), "pass")
    assert results.passed and results.failures() == []
    figures = {f.name: f.value for s in results.steps for f in s.figures}
    assert figures["resume_s"] == 90.0  # deletion at +430, first step after restore at +520
    # GPU time: a 100..430, b 100..700, c 480..1080 -> 1,530 s x 8 GPUs; lost 400..430 x 8
    assert figures["gpu_hours"] == pytest.approx(1530 * 8 / 3600)
    assert figures["useful_gpu_hours"] == pytest.approx((1530 - 30) * 8 / 3600 * 0.75)


def test_low_bus_bandwidth_fails_step_3_with_number_and_threshold(suite: dict[str, Any]) -> None:
    obs = passing()
    assert obs.nccl_log is not None
    obs.nccl_log = obs.nccl_log.replace("376.90", "212.40")
    results = score(suite, obs)
    assert _status(suite, obs)[3] == "fail"
    message = next(m for m in results.failures() if m.startswith("step 3"))
    assert "busbw_at_max 212.4 GB/s (threshold >= 300 GB/s" in message and "NVIDIA/aicr" in message


def test_a_restore_slower_than_its_threshold_fails_step_5(suite: dict[str, Any]) -> None:
    obs = passing()
    obs.events = [e if e["event"] != "resumed" else {**e, "ts": T0 + 1100.0} for e in obs.events]
    message = next(m for m in score(suite, obs).failures() if m.startswith("step 5"))
    assert "resume_s 670 s (threshold <= 600 s" in message


def test_restarting_from_zero_is_not_a_restore(suite: dict[str, Any]) -> None:
    obs = passing()
    obs.events = [e if e["event"] != "resumed" else {**e, "units": 0} for e in obs.events]
    assert any("began again from zero" in m for m in score(suite, obs).failures())


def test_missing_labels_fail_step_6(suite: dict[str, Any]) -> None:
    obs = passing()
    obs.pods[1] = _pod("b", node_pool="other-pool")
    del obs.pods[2].labels["gpuplane.io/team"]
    obs.series = [SeriesCheck("gpu", "q", 16), SeriesCheck("cost_labels", "kube_pod_labels{...}", 0)]
    failures = [m for m in score(suite, obs).failures() if m.startswith("step 6")]
    assert any("pod c lacks labels gpuplane.io/team=research" in m for m in failures)
    assert any("node node-a of pod b lacks labels gpuplane.io/pool=h100-train" in m for m in failures)
    assert any("no cost_labels series" in m for m in failures)


def test_a_benchmark_on_another_image_fails_step_3(suite: dict[str, Any]) -> None:
    obs = passing()
    clean = "docker.io/nvidia/nccl-tests@sha256:" + "0f" * 32
    obs.pods.append(
        PodRecord(
            "launcher", "nccl-launcher", images=[{"container": "launcher", "image": clean, "image_id": clean}]
        )
    )
    message = next(m for m in score(suite, obs).failures() if m.startswith("step 3"))
    assert f"the benchmark ran image {clean}, not the production image {IMAGE}" in message


def test_training_pods_on_another_image_fail_step_1(suite: dict[str, Any]) -> None:
    obs = passing()
    obs.pods[0].images = [
        {"container": "train", "image": "train:latest", "image_id": "train@sha256:" + "aa" * 32}
    ]
    failures = [m for m in score(suite, obs).failures() if m.startswith("step 1")]
    assert any(f"not the production image {IMAGE}" in m for m in failures)
    assert any("different image digests" in m for m in failures)


def test_an_image_without_python_fails_the_helper_steps(suite: dict[str, Any]) -> None:
    obs = Observations(
        events=[
            {"gpuplane": "acceptance/v1", "event": "no_python", "step": "fetch"},
            {"gpuplane": "acceptance/v1", "event": "no_python", "step": "train"},
        ]
    )
    failures = score(suite, obs).failures()
    assert any(m.startswith("step 2") and "has no python3" in m for m in failures)
    assert any(m.startswith("step 4") and "has no python3" in m for m in failures)


def test_renting_is_cheaper_than_the_cluster_fails_step_7(suite: dict[str, Any]) -> None:
    expensive = copy.deepcopy(suite)
    expensive["prices"]["support_monthly"] = 10_000_000.0
    message = next(m for m in score(expensive, passing()).failures() if m.startswith("step 7"))
    assert "more than the rental baseline's" in message


def test_a_nccl_run_smaller_than_the_threshold_size_fails(suite: dict[str, Any]) -> None:
    obs = passing()
    obs.nccl_log = (FIXTURES / "nccl" / "v2_19_two_nodes.txt").read_text()  # -e 8G; the threshold is at 16G
    message = next(m for m in score(suite, obs).failures() if m.startswith("step 3"))
    assert "stopped at 8589934592 bytes, below the 16G" in message


def test_score_logs_offline_through_the_cli(tmp_path: Path) -> None:
    _, rendered = suite_for(EKS, "h100-train", nodes=2)
    write_tree_atomic(tmp_path / "suite", rendered.files)
    logs = tmp_path / "all.log"
    api = FIXTURES / "api" / "logs"
    logs.write_text("".join(p.read_text() for p in sorted(api.glob("*.log"))))
    assert from_logs(logs.read_text()).nccl_log is not None
    result = CliRunner().invoke(
        app,
        [
            "acceptance",
            "score",
            str(logs),
            "--suite",
            str(tmp_path / "suite"),
            "--report",
            str(tmp_path / "r.html"),
        ],
    )
    assert result.exit_code == 1, result.output
    assert "step 3    pass" in result.output and "step 1 skipped" in result.output
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")
    missing = CliRunner().invoke(app, ["acceptance", "score", str(logs)])
    assert missing.exit_code == 2 and "--suite: scoring logs needs the suite" in missing.output


def test_a_pod_recreated_under_its_own_name_counts_as_two_windows(suite: dict[str, Any]) -> None:
    # PyTorchJob's operator recreates train-master-0 under the same name: the helper's run ids
    # (not the pod names) tell the deleted window from the restored one.
    obs = passing()
    for event in obs.events:
        if event["pod"] == "c":
            event.update(pod="a", run="second")
        elif event["pod"] == "a":
            event["run"] = "first"
    obs.events.append(_ev("checkpoint", 900, "a", run="second", bytes=10, units=120))
    obs.deleted_run = "first"
    results = score(suite, obs)
    figures = {f.name: f.value for s in results.steps for f in s.figures}
    assert figures["checkpoints_before_deletion"] == 1
    assert figures["gpu_hours"] == pytest.approx(1530 * 8 / 3600)
    assert figures["gpu_hours_lost"] == pytest.approx(30 * 8 / 3600)


def test_malformed_helper_lines_are_ignored_not_fatal() -> None:
    from gpuplane.acceptance.observations import helper_events

    text = "\n".join(
        [
            '{"gpuplane": "acceptance/v1", "event": "copy", "ts": 1.0, "what": "dataset", "mb_per_s": "fast"}',
            '{"gpuplane": "acceptance/v1", "event": "progress", "ts": true, "units": 3}',
            '{"gpuplane": "acceptance/v1", "event": "progress", "ts": 2.0, "units": 4}',
            '{"gpuplane": "acceptance/v1", "event": ',
            "step 5 loss 0.2",
        ]
    )
    assert [e["units"] for e in helper_events(text)] == [4]
