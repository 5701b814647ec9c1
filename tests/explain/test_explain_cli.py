"""`gpuplane explain` end to end: YAML scenarios, JSON shape, table output, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from gpuplane.cli import app

HERE = Path(__file__).parent
SCENARIOS = sorted(p for p in (HERE / "scenarios").glob("*.yaml") if not p.name.endswith(".expected.yaml"))
GPUPLANE = Path(sys.executable).parent / "gpuplane"


def _explain(*args: str, stdin: str | None = None) -> Any:
    result = CliRunner().invoke(app, ["explain", *args, "-o", "json"], input=stdin)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _summary(cycle: dict[str, Any]) -> dict[str, Any]:
    return {
        "admitted": {
            a["workload"]: {p["name"]: p["flavors"] for p in a["podSets"]} for a in cycle["admitted"]
        },
        "preempted": {p["workload"]: p["reason"] for p in cycle["preempted"]},
        "pending": {p["workload"]: p["queue"] for p in cycle["pending"]},
    }


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_matches_expected_decisions(scenario: Path) -> None:
    expected = yaml.safe_load(scenario.with_suffix(".expected.yaml").read_text())
    out = _explain("-f", str(scenario), *expected.get("args", []))
    assert [_summary(c) for c in out["cycles"]] == expected["cycles"]
    reasons = {p["workload"]: p["reason"] for p in out["cycles"][0]["pending"]}
    for key, fragment in expected.get("reasons", {}).items():
        assert fragment in reasons[key], reasons[key]
    for fragment in expected.get("notes", []):
        assert any(fragment in note for note in out["notes"]), out["notes"]


def test_json_has_the_documented_shape() -> None:
    out = _explain("-f", str(HERE / "scenarios" / "reclaim_basic.yaml"))
    cycle = out["cycles"][0]
    assert set(cycle) >= {"admitted", "preempted", "pending"}
    assert set(cycle["preempted"][0]) >= {"workload", "preemptor", "reason"}
    assert set(cycle["pending"][0]) >= {"workload", "clusterQueue", "queue", "reason"}
    assert "would preempt b/b-big (priority 100, borrowing 4" in cycle["pending"][0]["reason"]


def test_reads_directories_and_stdin_alike() -> None:
    text = (HERE / "scenarios" / "reclaim_basic.yaml").read_text()
    assert (
        _explain("-f", "-", stdin=text)["cycles"]
        == _explain("-f", str(HERE / "scenarios" / "reclaim_basic.yaml"))["cycles"]
    )


def test_fair_sharing_flag_turns_fair_sharing_on() -> None:
    assert (
        _explain("-f", str(HERE / "scenarios" / "reclaim_basic.yaml"), "--fair-sharing")["fairSharing"]
        is True
    )
    assert _explain("-f", str(HERE / "scenarios" / "reclaim_basic.yaml"))["fairSharing"] is False


def test_output_is_byte_identical_across_runs() -> None:
    args = ["explain", "-f", str(HERE / "scenarios"), "-o", "json", "--cycles", "3"]
    first = CliRunner().invoke(app, args).stdout
    assert first == CliRunner().invoke(app, args).stdout


def test_table_output_names_reasons() -> None:
    result = CliRunner().invoke(
        app, ["explain", "-f", str(HERE / "scenarios" / "misconfigured.yaml")], terminal_width=200
    )
    assert result.exit_code == 0
    assert "team/no-lq" in result.stdout and "LocalQueue" in result.stdout
    assert "admitted" in result.stdout and "team/fine" in result.stdout
    assert "Job team/not-kueue" in result.stdout and "not managed by Kueue" in result.stdout


def test_malformed_yaml_exits_2_with_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: x\n")
    proc = subprocess.run(
        [str(GPUPLANE), "explain", "-f", str(bad)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2
    assert f"{bad}:" in proc.stderr and "malformed YAML" in proc.stderr


def test_invalid_quota_quantity_exits_2_pointing_at_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "cq.yaml"
    bad.write_text(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: x}\nspec:\n"
        "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"
        "      resources:\n      - name: cpu\n        nominalQuota: ten\n"
    )
    proc = subprocess.run(
        [str(GPUPLANE), "explain", "-f", str(bad)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2
    assert f"{bad}:11:" in proc.stderr and "nominalQuota" in proc.stderr


def test_missing_input_is_a_usage_error() -> None:
    proc = subprocess.run([str(GPUPLANE), "explain"], capture_output=True, text=True, check=False)
    assert proc.returncode == 2
