"""`plan` refuses what cannot be right (issue 19): no feasible design exits 1 with no winner and
finite, valid JSON; every numeric option is finite and in range, a located usage error (exit 2)
before anything is written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpuplane.limits import limits

GPUPLANE = Path(sys.executable).with_name("gpuplane")


def _plan(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GPUPLANE), "plan", *args], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )


def _strict_json(text: str) -> object:
    def refuse(name: str) -> object:
        raise AssertionError(f"{name} in JSON")

    return json.loads(text, parse_constant=refuse)


def test_no_design_can_run_a_job_exits_1_without_a_winner(
    mmc_tiny: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    trace, spec, space = mmc_tiny
    # Every job asks for 4 GPUs in one pod; the pool's nodes have 1: no design can run any.
    big = tmp_path / "big.csv"
    big.write_text(trace.read_text(encoding="utf-8").replace("worker:1x1", "worker:1x4"), encoding="utf-8")
    done = _plan(str(spec), "-w", str(big), "--space", str(space), "--no-ray", "-o", "out", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "no design can run the workload" in done.stdout and "winner" not in done.stdout
    out = tmp_path / "out"
    assert not (out / "winner.yaml").exists()
    data = _strict_json((out / "plan.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict) and data["winner"] is None
    assert all(d["feasible"] is False for d in data["evaluated"])
    assert "inf" not in (out / "report.html").read_text(encoding="utf-8").replace("info", "")
    assert "inf" not in (out / "designs.csv").read_text(encoding="utf-8")


LIM = limits()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seeds", "100000000"], f"Invalid value for '--seeds': must be at most {LIM.plan_seeds}"),
        (["--seeds", "10^8"], "Invalid value for '--seeds': '10^8' is not a whole number"),
        (["--designs", str(LIM.plan_designs + 1)], "Invalid value for '--designs': must be at most"),
        (["--finalists", "0"], "Invalid value for '--finalists': must be at least 1"),
        (["--num-cpus", "0"], "Invalid value for '--num-cpus': must be at least 1 (got 0)"),
        (["--num-cpus", "-3"], "Invalid value for '--num-cpus': must be at least 1"),
        (["--num-cpus", str(LIM.ray_num_cpus + 1)], "Invalid value for '--num-cpus': must be at most"),
        (["--limit", "-5"], "Invalid value for '--limit': must be at least 1 (got -5)"),
        (["--limit", "0"], "Invalid value for '--limit': must be at least 1 (got 0)"),
        (
            ["--spot-eviction-rate", "nan"],
            "Invalid value for '--spot-eviction-rate': nan is not a finite number",
        ),
        (
            ["--spot-eviction-rate", "inf"],
            "Invalid value for '--spot-eviction-rate': inf is not a finite number",
        ),
        (["--node-failure-rate", "-1"], "Invalid value for '--node-failure-rate': must be at least 0"),
        (
            ["--node-failure-rate", "1e400"],
            "Invalid value for '--node-failure-rate': inf is not a finite number",
        ),
        (
            ["--node-failure-rate", "11"],
            "must be at most 10 per node-hour (limits.yaml: node_losses_per_node_hour)",
        ),
        (["--unit", "training=nan"], "--unit: nan is not a finite number"),
        (["--unit", "training=abc"], "--unit: 'training=abc': 'abc' is not a number"),
    ],
)
def test_numeric_options_out_of_range_exit_2(
    mmc_tiny: tuple[Path, Path, Path], tmp_path: Path, args: list[str], message: str
) -> None:
    trace, spec, _ = mmc_tiny
    done = _plan(str(spec), "-w", str(trace), "--no-ray", "-o", "out", *args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("gpuplane plan: error: ")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("search", "field"),
    [
        (f"{{seeds: {LIM.plan_seeds + 1}}}", "search.seeds"),
        (f"{{designs: {LIM.plan_designs + 1}}}", "search.designs"),
        ("{finalists: 0}", "search.finalists"),
    ],
)
def test_plan_yaml_budgets_are_capped_at_their_line(
    mmc_tiny: tuple[Path, Path, Path], tmp_path: Path, search: str, field: str
) -> None:
    trace, spec, space = mmc_tiny
    capped = tmp_path / "plan.yaml"
    capped.write_text(space.read_text(encoding="utf-8") + f"search: {search}\n", encoding="utf-8")
    done = _plan(str(spec), "-w", str(trace), "--space", str(capped), "--no-ray", "-o", "out", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip().splitlines()[0]
    assert line.startswith(f"{capped}:") and f"error: {field}:" in line, done.stderr
    assert not (tmp_path / "out").exists()
