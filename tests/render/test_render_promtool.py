"""The rendered alert rules as Prometheus itself reads them: `promtool check rules --lint-fatal` on
every rendered rule file, and `promtool test rules` for each alert over hand-made series whose
firing alerts are written down here, not derived from the renderer."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuplane.render import monitoring
from tests.render.render_helpers import EXAMPLES, SMALL_SPEC, rendered, small_spec, spec_from

PROMTOOL = shutil.which("promtool")
pytestmark = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool not installed (make test installs it: scripts/system-deps.sh)"
)


def _rule_file(rule: dict[str, Any], directory: Path) -> Path:
    """A PrometheusRule's groups as a Prometheus rule file (the CRD's spec.groups is that format)."""
    path = directory / "rules.yaml"
    path.write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}, sort_keys=False), encoding="utf-8")
    return path


def _promtool(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run([PROMTOOL, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def _rendered_rule(example: Path) -> dict[str, Any]:
    _, result = rendered(example)
    [doc] = [d for d in yaml.safe_load_all(result.files["monitoring/prometheus-rules.yaml"]) if d]
    return dict(doc)


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_rendered_rule_file_passes_promtool_lint_fatal(example: Path, tmp_path: Path) -> None:
    path = _rule_file(_rendered_rule(example), tmp_path)
    done = _promtool("check", "rules", "--lint-fatal", path.name, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


@pytest.mark.parametrize("provider", ["aks", "gke", "eks", "generic"])
def test_rule_files_of_every_provider_pass_promtool_lint_fatal(provider: str, tmp_path: Path) -> None:
    path = _rule_file(monitoring.prometheus_rule(small_spec(provider)), tmp_path)
    done = _promtool("check", "rules", "--lint-fatal", path.name, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_promtool_lint_catches_pool_rules_that_share_a_label_set(tmp_path: Path) -> None:
    # Guards the guard: the defect this file exists for (every pool's rule with one label set).
    rule = monitoring.prometheus_rule(spec_from(SMALL_SPEC))
    for r in rule["spec"]["groups"][1]["rules"]:
        r["labels"] = {"severity": "warning"}
    path = _rule_file(rule, tmp_path)
    done = _promtool("check", "rules", "--lint-fatal", path.name, cwd=tmp_path)
    assert done.returncode != 0
    assert "duplicate" in (done.stdout + done.stderr).lower()


# Hand-made series for SMALL_SPEC (thresholds: idle < 5% for 30m, pending 60m, pool at max 15m;
# pools a100-spot max 2, a100-mig max 3, t4 max 5). One sample a minute.
SERIES = [
    # Two GPUs: one idle since 0m, one busy. Only the idle one alerts, after 30m (+5m window).
    ('DCGM_FI_DEV_GPU_UTIL{Hostname="n1",gpu="0",namespace="alpha",pod="idle-0"}', "0x90"),
    ('DCGM_FI_DEV_GPU_UTIL{Hostname="n1",gpu="1",namespace="alpha",pod="busy-0"}', "80x90"),
    ('DCGM_FI_DEV_XID_ERRORS{Hostname="n2",gpu="3",modelName="NVIDIA A100 80GB PCIe"}', "0x10 79x80"),
    (
        'kube_pod_container_resource_requests{namespace="beta",pod="wait-0",container="main",'
        'resource="nvidia_com_gpu",unit="integer"}',
        "1x90",
    ),
    ('kube_pod_status_phase{namespace="beta",pod="wait-0",phase="Pending"}', "1x90"),
    ('kube_pod_status_phase{namespace="beta",pod="wait-0",phase="Running"}', "0x90"),
    ('gpuplane_pending_workloads{team="beta"}', "2x90"),
    ('gpuplane_pending_workloads{team="alpha"}', "0x90"),
    # a100-spot and t4 sit at their maxNodes; a100-mig is one node short of its 3.
    ('gpuplane_nodes{pool="a100-spot",accelerator="a100-80gb"}', "2x90"),
    ('gpuplane_nodes{pool="a100-mig",accelerator="a100-80gb"}', "2x90"),
    ('gpuplane_nodes{pool="t4",accelerator="t4"}', "5x90"),
]

POOL_WAITS = "new work waits. Raise maxNodes or the provider quota, or move work to another pool."
EXPECTED: list[dict[str, Any]] = [
    {"eval_time": "20m", "alertname": "GPUAllocatedButIdle", "exp_alerts": []},
    {
        "eval_time": "40m",
        "alertname": "GPUAllocatedButIdle",
        "exp_alerts": [
            {
                "exp_labels": {
                    "severity": "warning",
                    "namespace": "alpha",
                    "pod": "idle-0",
                    "Hostname": "n1",
                    "gpu": "0",
                },
                "exp_annotations": {
                    "summary": "GPU allocated to alpha/idle-0 is idle",
                    "description": "GPU 0 on n1 has been below 5% utilisation for 30 minutes while "
                    "allocated: it costs money and does no work.",
                },
            }
        ],
    },
    {"eval_time": "5m", "alertname": "GPUXidError", "exp_alerts": []},
    {
        "eval_time": "12m",
        "alertname": "GPUXidError",
        "exp_alerts": [
            {
                "exp_labels": {
                    "severity": "critical",
                    "Hostname": "n2",
                    "gpu": "3",
                    "modelName": "NVIDIA A100 80GB PCIe",
                },
                "exp_annotations": {
                    "summary": "GPU reported an XID error on n2",
                    "description": "GPU 3 (NVIDIA A100 80GB PCIe) reported XID 79; check the driver log "
                    "and consider draining the node.",
                },
            }
        ],
    },
    {"eval_time": "50m", "alertname": "GPUPodsPendingTooLong", "exp_alerts": []},
    {
        "eval_time": "70m",
        "alertname": "GPUPodsPendingTooLong",
        "exp_alerts": [
            {
                "exp_labels": {"severity": "warning", "namespace": "beta", "pod": "wait-0"},
                "exp_annotations": {
                    "summary": "GPU pod beta/wait-0 pending too long",
                    "description": "A pod requesting GPUs has been Pending for more than 60 minutes.",
                },
            }
        ],
    },
    {
        "eval_time": "70m",
        "alertname": "GPUWorkloadsPendingTooLong",
        "exp_alerts": [
            {
                "exp_labels": {"severity": "warning", "team": "beta"},
                "exp_annotations": {
                    "summary": "Team beta has Kueue workloads pending",
                    "description": "Team beta has had workloads waiting in Kueue for more than 60 "
                    "minutes: its quota or the cohort is full.",
                },
            }
        ],
    },
    {"eval_time": "10m", "alertname": "GPUPoolAtMaxNodes", "exp_alerts": []},
    {
        "eval_time": "20m",
        "alertname": "GPUPoolAtMaxNodes",
        "exp_alerts": [
            {
                "exp_labels": {"severity": "warning", "pool": "a100-spot"},
                "exp_annotations": {
                    "summary": "GPU pool a100-spot is at its maximum of 2 nodes",
                    "description": f"Pool a100-spot has run at maxNodes (2) for 15 minutes; {POOL_WAITS}",
                },
            },
            {
                "exp_labels": {"severity": "warning", "pool": "t4"},
                "exp_annotations": {
                    "summary": "GPU pool t4 is at its maximum of 5 nodes",
                    "description": f"Pool t4 has run at maxNodes (5) for 15 minutes; {POOL_WAITS}",
                },
            },
        ],
    },
]


def test_each_alert_fires_as_written_down_under_promtool_test_rules(tmp_path: Path) -> None:
    rule = monitoring.prometheus_rule(spec_from(SMALL_SPEC))
    _rule_file(rule, tmp_path)
    alerts = {r["alert"] for g in rule["spec"]["groups"] for r in g["rules"]}
    assert alerts == {case["alertname"] for case in EXPECTED}, "every alert needs a written-down case"
    test = {
        "rule_files": ["rules.yaml"],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [{"series": s, "values": v} for s, v in SERIES],
                "alert_rule_test": EXPECTED,
            }
        ],
    }
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(test, sort_keys=False), encoding="utf-8")
    done = _promtool("test", "rules", "test.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def test_promtool_test_rules_fails_when_a_full_pool_is_missing(tmp_path: Path) -> None:
    # Guards the guard: expecting only one of the two full pools must fail.
    rule = monitoring.prometheus_rule(spec_from(SMALL_SPEC))
    _rule_file(rule, tmp_path)
    one_pool = dict(EXPECTED[-1], exp_alerts=EXPECTED[-1]["exp_alerts"][:1])
    test = {
        "rule_files": ["rules.yaml"],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [{"series": s, "values": v} for s, v in SERIES],
                "alert_rule_test": [one_pool],
            }
        ],
    }
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(test, sort_keys=False), encoding="utf-8")
    assert _promtool("test", "rules", "test.yaml", cwd=tmp_path).returncode != 0
