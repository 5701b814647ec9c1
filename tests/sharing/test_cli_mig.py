"""`gpuplane mig ...`: exit codes scripts can trust (0 fits, 1 does not, 2 bad input) and output
that names the start slot of every instance."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplane.catalog import load_catalog
from gpuplane.cli import app
from gpuplane.sharing import mig

runner = CliRunner()
GPUPLANE = Path(sys.executable).parent / "gpuplane"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(GPUPLANE), *args], capture_output=True, text=True, check=False)


def test_check_fitting_layout_exits_0_and_prints_each_start_slot() -> None:
    result = runner.invoke(
        app, ["mig", "check", "--gpu", "H100-80GB", "3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]
    )
    assert result.exit_code == 0, result.output
    acc = load_catalog().accelerator("H100-80GB")
    assert acc is not None
    expected = mig.check_layout(acc, ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]).placements
    rows = [line.split() for line in result.output.splitlines() if line.strip()[:1].isdigit()]
    assert [(r[1], int(r[2])) for r in rows] == expected


def test_check_json_output_lists_profile_and_start() -> None:
    result = runner.invoke(app, ["mig", "check", "-g", "a100", "-o", "json", "3g.20gb", "2g.10gb"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["gpu"] == "A100-40GB" and data["fits"] is True
    assert [p["profile"] for p in data["placements"]] == ["3g.20gb", "2g.10gb"]
    assert all(isinstance(p["start"], int) for p in data["placements"])


def test_check_layout_that_does_not_fit_exits_1_with_the_reason() -> None:
    result = _run("mig", "check", "--gpu", "H100-80GB", "4g.40gb", "4g.40gb")
    assert result.returncode == 1
    assert "does not fit" in result.stderr and "at most 1" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--gpu", "X100", "1g.5gb"], "unknown GPU 'X100'"),
        (["--gpu", "A100-40GB", "1g.99gb"], "1g.99gb: not a MIG profile of A100-40GB"),
        (["--gpu", "T4", "1g.5gb"], "T4 does not support MIG"),
    ],
)
def test_unknown_gpu_or_profile_exits_2(args: list[str], message: str) -> None:
    result = _run("mig", "check", *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_layouts_lists_every_maximal_layout() -> None:
    result = runner.invoke(app, ["mig", "layouts", "--gpu", "A100-40GB", "-o", "json"])
    assert result.exit_code == 0
    acc = load_catalog().accelerator("A100-40GB")
    assert acc is not None
    assert json.loads(result.output)["layouts"] == mig.maximal_layouts(acc)


def test_layouts_table_has_one_line_per_layout() -> None:
    result = runner.invoke(app, ["mig", "layouts", "--gpu", "A30"])
    assert result.exit_code == 0
    acc = load_catalog().accelerator("A30")
    assert acc is not None
    body = [line for line in result.output.splitlines() if "compute" in line]
    assert len(body) == len(mig.maximal_layouts(acc))


def test_profiles_and_configs_commands_show_catalog_facts() -> None:
    profiles = runner.invoke(app, ["mig", "profiles", "--gpu", "h100", "-o", "json"])
    assert profiles.exit_code == 0
    rows = {r["profile"]: r for r in json.loads(profiles.output)["profiles"]}
    assert rows["3g.40gb"]["placements"] == [0, 4]
    configs = runner.invoke(app, ["mig", "configs", "--gpu", "h100", "-o", "json"])
    assert configs.exit_code == 0
    assert sorted(json.loads(configs.output)["configs"]["all-balanced"]) == [
        "1g.10gb",
        "1g.10gb",
        "2g.20gb",
        "3g.40gb",
    ]
