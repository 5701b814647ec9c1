"""`gpuplane audit` on the command line: formats, exit codes, stdin, rules/explain/docs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from gpuplane.audit import rules
from gpuplane.cli import app
from tests.audit.helpers import FIXTURES, RULE_FIXTURES

runner = CliRunner()
FAIL = str(RULE_FIXTURES / "GPU001" / "fail.yaml")
CLEAN = str(RULE_FIXTURES / "GPU000" / "pass.yaml")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_findings_exit_1_and_clean_input_exits_0() -> None:
    assert runner.invoke(app, ["audit", "-f", FAIL]).exit_code == 1
    result = runner.invoke(app, ["audit", "-f", CLEAN])
    assert result.exit_code == 0 and "no findings" in result.output


def test_fail_on_threshold_decides_the_exit_code() -> None:
    low_only = str(RULE_FIXTURES / "GPU024" / "pass.yaml")  # only GPU014 (low)
    assert runner.invoke(app, ["audit", "-f", low_only, "--fail-on", "low"]).exit_code == 1
    assert runner.invoke(app, ["audit", "-f", low_only, "--fail-on", "medium"]).exit_code == 0
    assert runner.invoke(app, ["audit", "-f", FAIL, "--fail-on", "never"]).exit_code == 0


def test_usage_errors_exit_2() -> None:
    assert runner.invoke(app, ["audit"]).exit_code == 2
    assert runner.invoke(app, ["audit", "-f", FAIL, "-o", "xml"]).exit_code == 2
    assert runner.invoke(app, ["audit", "-f", FAIL, "--fail-on", "sometimes"]).exit_code == 2
    assert runner.invoke(app, ["audit", "explain", "GPU999"]).exit_code == 2


def test_json_output_and_stdin() -> None:
    text = Path(FAIL).read_text()
    result = runner.invoke(app, ["audit", "-f", "-", "-o", "json"], input=text)
    doc = json.loads(result.output)
    assert {f["rule"] for f in doc["findings"]} == {"GPU001"}
    assert doc["findings"][0]["file"] == "<stdin>"


def test_nodepools_and_spec_flags() -> None:
    result = runner.invoke(
        app, ["audit", "--nodepools", str(RULE_FIXTURES / "GPU018" / "fail.json"), "-o", "json"]
    )
    assert {f["rule"] for f in json.loads(result.output)["findings"]} == {"GPU018"}
    spec = FIXTURES / "specs" / "bad-platform.yaml"
    result = runner.invoke(app, ["audit", "--spec", str(spec), "-o", "json"])
    assert "GPU016" in {f["rule"] for f in json.loads(result.output)["findings"]}


def test_out_file_is_written_whole(tmp_path: Path) -> None:
    target = tmp_path / "report.sarif"
    result = runner.invoke(app, ["audit", "-f", FAIL, "-o", "sarif", "--out", str(target)])
    assert result.exit_code == 1 and result.output == ""
    assert json.loads(target.read_text())["version"] == "2.1.0"
    assert [p.name for p in tmp_path.iterdir()] == ["report.sarif"]


def test_rules_lists_every_rule_and_explain_prints_one() -> None:
    listed = runner.invoke(app, ["audit", "rules"]).output.splitlines()
    assert len(listed) == len(rules()) and listed[7].startswith("GPU007")
    explained = runner.invoke(app, ["audit", "explain", "gpu007"]).output
    assert explained.startswith("GPU007") and "How to fix" in explained and "NoSchedule" in explained


def test_console_script_exit_codes_through_main() -> None:
    exe = [sys.executable, "-c", "from gpuplane.cli import main; main()"]
    assert subprocess.run([*exe, "audit", "-f", FAIL], capture_output=True).returncode == 1
    assert subprocess.run([*exe, "audit", "-f", CLEAN], capture_output=True).returncode == 0
    bad = subprocess.run(
        [*exe, "audit", "--spec", str(RULE_FIXTURES / "GPU001" / "fail.yaml")], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "fail.yaml" in bad.stderr


def test_a_named_file_no_reader_recognises_exits_2_located_and_writes_nothing(tmp_path: Path) -> None:
    chart = tmp_path / "Chart.yaml"
    chart.write_text("apiVersion: v2\nname: serving\nversion: 0.1.0\n")
    out = tmp_path / "report.json"
    result = runner.invoke(app, ["audit", "-f", FAIL, "--nodepools", str(chart), "--out", str(out)])
    assert result.exit_code == 2
    assert f"{chart}:1:1: error: not an audit input: a mapping without `kind`" in result.output
    assert "Traceback" not in result.output and not out.exists()


def test_a_walked_directory_skips_unrecognised_documents_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "Chart.yaml").write_text("apiVersion: v2\nname: serving\nversion: 0.1.0\n")
    (tmp_path / "dashboard.json").write_text('{"panels": [], "schemaVersion": 39}\n')
    (tmp_path / "clean.yaml").write_text(Path(CLEAN).read_text())
    result = runner.invoke(app, ["audit", "-f", str(tmp_path), "-o", "json"])
    assert result.exit_code == 0, result.output
    assert f"{tmp_path / 'Chart.yaml'}:1:1: warning: not an audit input, skipped" in result.stderr
    assert "dashboard.json" not in result.stderr  # a Grafana dashboard: nothing to audit, no warning
    assert json.loads(result.stdout)["findings"] == []


def test_audit_of_render_output_is_quiet(tmp_path: Path) -> None:
    out = tmp_path / "out"
    rendered = runner.invoke(app, ["render", str(EXAMPLES / "aks-platform.yaml"), "-o", str(out)])
    assert rendered.exit_code == 0, rendered.output
    result = runner.invoke(app, ["audit", "-f", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
