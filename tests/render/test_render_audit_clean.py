"""gpuplane's own output passes gpuplane's own audit: each example spec and everything render
writes for it raise no finding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplane.cli import app

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yaml"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_and_its_rendered_manifests_audit_clean(example: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    rendered = runner.invoke(app, ["render", str(example), "-o", str(tmp_path / "out")])
    assert rendered.exit_code == 0, rendered.output
    result = runner.invoke(app, ["audit", "-f", str(tmp_path / "out"), "--spec", str(example), "-o", "json"])
    findings = json.loads(result.stdout)["findings"]
    assert findings == [], findings
    assert result.exit_code == 0
