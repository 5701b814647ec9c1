"""Step 6 against a real Prometheus (Debian's, as account's tests use it) loaded with the series the
exporters would have written for the recorded run; and the whole run passing through the CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplane.acceptance import runner as runner_module
from gpuplane.acceptance.series import check_series
from gpuplane.cli import app
from gpuplane.outputs import write_tree_atomic
from tests.acceptance.helpers import EXAMPLES, suite_for
from tests.acceptance.test_runner import API, NS, RUN, START, FakeClock
from tests.support.kube_replay import replay_server
from tests.support.promserver import PrometheusServer, ToolMissing, tool

T0 = datetime.fromisoformat("2026-11-20T08:58:00+00:00").timestamp()
PODS = {"train-trainer-0-0-7xk2p": "ip-10-0-3-7", "train-trainer-0-1-q9w4m": "ip-10-0-3-8"}
ACTIVITY = 0.625  # every GPU of the suite at 62.5 % graphics-engine activity


def _openmetrics() -> str:
    """22 minutes every 30 s of what dcgm-exporter, kube-state-metrics, Kueue, the kubelet and
    cAdvisor export for the recorded run's two training pods (names and labels: exporters.md)."""
    families: dict[str, tuple[str, list[tuple[str, str, float]]]] = {
        "DCGM_FI_DEV_FB_USED": ("gauge", []),
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE": ("gauge", []),
        "kube_pod_container_resource_requests": ("gauge", []),
        "kube_pod_labels": ("gauge", []),
        "kube_node_labels": ("gauge", []),
        "kubelet_volume_stats_used_bytes": ("gauge", []),
    }
    for pod, host in PODS.items():
        for gpu in range(8):
            base = f'gpu="{gpu}",UUID="GPU-{host}-{gpu}",modelName="NVIDIA H100 80GB HBM3",Hostname="{host}",container="train",namespace="{NS}",pod="{pod}"'
            families["DCGM_FI_DEV_FB_USED"][1].append(("DCGM_FI_DEV_FB_USED", base, 61234.0))
            families["DCGM_FI_PROF_GR_ENGINE_ACTIVE"][1].append(
                ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", base, ACTIVITY)
            )
        families["kube_pod_container_resource_requests"][1].append(
            (
                "kube_pod_container_resource_requests",
                f'namespace="{NS}",pod="{pod}",uid="u-{pod}",container="train",node="{host}.ec2.internal",resource="nvidia_com_gpu",unit="integer"',
                8.0,
            )
        )
        families["kube_pod_labels"][1].append(
            (
                "kube_pod_labels",
                f'namespace="{NS}",pod="{pod}",uid="u-{pod}",label_gpuplane_io_team="research"',
                1.0,
            )
        )
        families["kube_node_labels"][1].append(
            ("kube_node_labels", f'node="{host}.ec2.internal",label_gpuplane_io_pool="h100-train"', 1.0)
        )
    families["kubelet_volume_stats_used_bytes"][1].append(
        (
            "kubelet_volume_stats_used_bytes",
            f'namespace="{NS}",persistentvolumeclaim="checkpoints"',
            1073741824.0,
        )
    )
    lines: list[str] = []
    for name, (kind, samples) in families.items():
        lines.append(f"# TYPE {name} {kind}")
        for step in range(45):
            for metric, labels, value in samples:
                lines.append(f"{metric}{{{labels}}} {value} {T0 + 30 * step:.0f}")
    lines.append("# TYPE kueue_admission_wait_time_seconds histogram")
    for step in range(45):
        at = f"{T0 + 30 * step:.0f}"
        labels = 'cluster_queue="research",priority_class="batch",replica_role="standalone"'
        lines += [
            f'kueue_admission_wait_time_seconds_bucket{{{labels},le="+Inf"}} 2 {at}',
            f"kueue_admission_wait_time_seconds_count{{{labels}}} 2 {at}",
            f"kueue_admission_wait_time_seconds_sum{{{labels}}} 5 {at}",
        ]
    lines.append("# TYPE container_network_receive_bytes counter")
    for step in range(45):
        for pod in PODS:
            lines.append(
                f'container_network_receive_bytes_total{{namespace="{NS}",pod="{pod}",interface="eth0"}} {1e9 * step:.0f} {T0 + 30 * step:.0f}'
            )
    return "\n".join(lines) + "\n# EOF\n"


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    try:
        promtool = tool("promtool")
        tool("prometheus")
    except ToolMissing as exc:
        pytest.skip(str(exc))
    work = tmp_path_factory.mktemp("acceptance-prom")
    source = work / "series.om"
    source.write_text(_openmetrics())
    subprocess.run(
        [promtool, "tsdb", "create-blocks-from", "openmetrics", "-q", str(source), str(work / "tsdb")],
        check=True,
        capture_output=True,
        timeout=300,
    )
    server = PrometheusServer(work / "tsdb", work / "server")
    try:
        server.wait_ready()
        yield server.url
    finally:
        server.stop()
        shutil.rmtree(work / "tsdb", ignore_errors=True)


@pytest.fixture(scope="module")
def suite_info() -> dict[str, object]:
    eks = next(e for e in EXAMPLES if e.stem == "eks-mixed")
    _, suite = suite_for(eks, "h100-train", nodes=2)
    return suite.info


def test_every_family_is_found_for_the_suite(prometheus: str, suite_info: dict[str, object]) -> None:
    from gpuplane.account.prom import PromClient

    with PromClient(prometheus) as client:
        # the run's own namespace (the suite's name plus the run id) is where the series are
        checks = check_series(client, {**suite_info, "namespace": NS}, START - 450, START)
    found = {c.family: (c.series, c.value) for c in checks}
    assert found == {
        "gpu": (16, None),
        "gpu_activity": (1, ACTIVITY),
        "gpu_requests": (2, None),
        "cost_labels": (2, None),
        "node_labels": (2, None),
        "queue": (1, None),
        "storage": (1, None),
        "network": (2, None),
    }


def test_a_namespace_without_series_finds_none(prometheus: str, suite_info: dict[str, object]) -> None:
    from gpuplane.account.prom import PromClient

    other = {
        **suite_info,
        "namespace": "acceptance-elsewhere",
        "team": "apps",
        "pool": "l4-shared",
        "cluster_queue": "apps",
    }
    with PromClient(prometheus) as client:
        checks = check_series(client, other, START - 450, START)
    assert {c.family: c.series for c in checks} == dict.fromkeys(
        ("gpu", "gpu_activity", "gpu_requests", "cost_labels", "node_labels", "queue", "storage", "network"),
        0,
    )


def test_the_recorded_run_passes_every_step_end_to_end(
    prometheus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    eks = next(e for e in EXAMPLES if e.stem == "eks-mixed")
    _, suite = suite_for(eks, "h100-train", nodes=2, api_price_per_unit=0.5)
    write_tree_atomic(tmp_path / "suite", suite.files)
    clock = FakeClock(START)
    monkeypatch.setattr(runner_module, "POLL_S", 0.0)
    monkeypatch.setattr("gpuplane.acceptance.command.time.time", clock)
    monkeypatch.setattr("gpuplane.acceptance.command.time.sleep", clock.sleep)
    monkeypatch.setattr("gpuplane.acceptance.command.secrets.token_hex", lambda n: RUN)
    with replay_server(API, tmp_path) as (state, kubeconfig):
        args = ["acceptance", "run", str(tmp_path / "suite"), "--kubeconfig", str(kubeconfig), "--yes"]
        result = CliRunner().invoke(
            app, [*args, "--prometheus", prometheus, "-o", str(tmp_path / "evidence")]
        )
        assert state.leftovers() == []
    assert result.exit_code == 0, result.output
    assert "verdict: pass" in result.output
    results = json.loads((tmp_path / "evidence" / "results.json").read_text())
    assert [s["status"] for s in results["steps"]] == ["pass"] * 7
    step7 = {f["name"]: f["value"] for f in results["steps"][6]["figures"]}
    assert step7["useful_gpu_hours"] == pytest.approx((1530 - 30) * 8 / 3600 * ACTIVITY)
