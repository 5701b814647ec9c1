"""An unpriced pool stops every command that costs, with file:line:col and the fix (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplane.cli import app

SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: c, provider: gke, region: us-central1}
nodePools:
  - name: mega
    accelerator: H100-80GB
    vmSize: a3-megagpu-8g
    maxNodes: 2
teams:
  - {name: t, namespaces: [t], quotas: [{pool: mega, nominal: 16}]}
"""

COMMANDS = {
    "spec validate": ["spec", "validate", "{spec}"],
    "simulate": ["simulate", "{spec}", "--json", "{out}"],
    "plan": ["plan", "{spec}", "-o", "{out}"],
    "account": ["account", "--prometheus", "http://127.0.0.1:9", "--spec", "{spec}", "--since", "1h"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_unpriced_pool_is_a_located_error(command: str, tmp_path: Path) -> None:
    spec = tmp_path / "p.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    out = tmp_path / "out"
    args = [a.format(spec=spec, out=out) for a in COMMANDS[command]]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "p.yaml:7:13: error: nodePools[0].vmSize: no price for pool 'mega'" in result.output
    assert "costs.pools.mega.onDemandHourly" in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


def test_pricing_the_pool_in_the_spec_lets_it_through(tmp_path: Path) -> None:
    spec = tmp_path / "p.yaml"
    spec.write_text(SPEC + "costs:\n  pools: {mega: {onDemandHourly: 88.5}}\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["spec", "validate", str(spec)])
    assert result.exit_code == 0, result.output
