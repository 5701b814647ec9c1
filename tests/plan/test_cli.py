"""`gpuplane plan` from the command line: outputs, exit codes, bad input, the HTML report in Chromium."""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.browser import BrowserUnavailable, check_in_chromium, find_chromium

GPUPLANE = Path(sys.executable).with_name("gpuplane")


def _plan(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GPUPLANE), "plan", *args], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.fixture(scope="module")
def planned(
    mmc_small: tuple[Path, Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    trace, spec, space = mmc_small
    out = tmp_path_factory.mktemp("cli") / "plan"
    done = _plan(
        str(spec),
        "-w",
        str(trace),
        "--space",
        str(space),
        "--goal",
        "p90-wait<=10m",
        "--node-failure-rate",
        "0",
        "--api-price",
        "training=0.5",
        "--no-ray",
        "-o",
        str(out),
        cwd=out.parent,
    )
    return out, done


def _rental_per_job(trace: Path) -> float:
    """By hand from the CSV: every job one 1-GPU node at 1.0/h for its work plus 600 s of boot,
    billed in whole seconds (the generic billing rule of baselines.yaml)."""
    with trace.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return sum(math.ceil(float(r["work_gpu_s"]) + 600.0) / 3600.0 for r in rows) / len(rows)


def test_plan_writes_the_winner_table_report_and_json(
    planned: tuple[Path, subprocess.CompletedProcess[str]], mmc_small: tuple[Path, Path, Path]
) -> None:
    out, done = planned
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        ".gpuplane-plan",
        ".gpuplane-plan.lock",
        "cache",
        "designs.csv",
        "plan.json",
        "report.html",
        "winner.yaml",
    ]
    data = json.loads((out / "plan.json").read_text())
    winner = data["winner"]
    assert winner["id"] in done.stdout and "binding constraint: p90-wait<=10m" in done.stdout
    assert data["binding_constraint"] == "p90-wait<=10m"
    assert winner["result"]["api_per_unit"] == 0.5  # every accepted unit is training at 0.5
    # Rental: each job on its own 1-GPU node at 1.0 an hour for its run time plus 600 s of boot.
    assert winner["result"]["rental_per_unit"] == pytest.approx(_rental_per_job(mmc_small[0]), rel=1e-5)
    assert data["pareto"] and set(data["pareto"]) <= {d["id"] for d in data["evaluated"]}
    header = (out / "designs.csv").read_text().splitlines()[0]
    assert header.startswith("rank,design,feasible,cost_per_unit")
    assert "wrote" in done.stderr


def test_winner_is_ready_for_render(
    planned: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    out, _ = planned
    check = subprocess.run(
        [str(GPUPLANE), "spec", "validate", str(out / "winner.yaml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stderr
    render = subprocess.run(
        [str(GPUPLANE), "render", str(out / "winner.yaml"), "-o", str(tmp_path / "manifests")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert render.returncode == 0, render.stderr


def test_unreachable_goal_exits_1_without_a_winner(
    mmc_small: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    trace, spec, space = mmc_small
    out = tmp_path / "plan"
    done = _plan(
        str(spec),
        "-w",
        str(trace),
        "--space",
        str(space),
        "--goal",
        "p99-wait<=0s",
        "--no-ray",
        "--seeds",
        "1",
        "-o",
        str(out),
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr
    assert "no design meets the goal" in done.stdout
    assert not (out / "winner.yaml").exists()
    assert json.loads((out / "plan.json").read_text())["winner"] is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--goal", "p90<=1h"], "gpuplane plan: error: --goal: 'p90<=1h': unknown metric 'p90'"),
        (["--api-price", "gpu=1"], "gpuplane plan: error: --api-price:"),
        (
            ["--designs", "0"],
            "gpuplane plan: error: Invalid value for '--designs': must be at least 1 (got 0)",
        ),
        (["--space", "missing.yaml"], "missing.yaml: error: cannot read"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(
    mmc_small: tuple[Path, Path, Path], tmp_path: Path, args: list[str], message: str
) -> None:
    trace, spec, _ = mmc_small
    done = _plan(str(spec), "-w", str(trace), "--no-ray", "-o", "out", *args, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_report_opens_in_chromium(
    planned: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    try:
        find_chromium()
    except BrowserUnavailable as exc:
        pytest.skip(str(exc))
    out, _ = planned
    artifacts = Path(os.environ.get("GPUPLANE_ARTIFACTS", tmp_path))
    artifacts.mkdir(parents=True, exist_ok=True)
    shot = artifacts / "plan-report.png"
    result = check_in_chromium(out / "report.html", shot, width=1200)
    print(f"screenshot: {shot}")
    assert result.ok, result
    assert result.svg_count == 1  # the Pareto chart
    text = (out / "report.html").read_text()
    assert "<script" not in text and not result.external_requests
    assert "Pareto front" in text and "Binding constraint of the winner: p90-wait&lt;=10m" in text
