"""Simulated time and work are bounded by stated limits (issue 19): every numeric option of
`simulate` is finite and in range (one located usage error, exit 2, nothing written); trace rows
beyond the simulated-time or job-length limit are located bad rows; a run that would never end
stops at the simulated-time limit and says so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpuplane.limits import limits

GPUPLANE = Path(sys.executable).with_name("gpuplane")
LIM = limits()
HEADER = (
    "id,team,queue,class,submit_s,pod_sets,work_gpu_s,run_time_s,priority,checkpoint_interval_s,"
    "checkpoint_write_s,checkpoint_restore_s,final_status,end_at_fraction,gpu_model,user\n"
)
SPEC = """\
cluster: {name: bounds, provider: generic}
nodePools:
  - name: gpu
    accelerator: A100-80GB
    gpusPerNode: 1
    minNodes: 1
    maxNodes: 1
teams:
  - name: solo
    namespaces: [solo]
    quotas: [{pool: gpu, nominal: 1}]
costs:
  pools: {gpu: {onDemandHourly: 1.0}}
"""


def _row(job: str, submit: str, work: str) -> str:
    return f"{job},solo,solo,training,{submit},worker:1x1,{work},,0,,,,completed,1,,\n"


def _simulate(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GPUPLANE), "simulate", *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    trace = tmp_path / "t.csv"
    trace.write_text(HEADER + _row("a", "0", "3600") + _row("b", "60", "1800"), encoding="utf-8")
    return spec, trace


NUMERIC = [
    ("--spot-eviction-rate", "rate"),
    ("--node-failure-rate", "rate"),
    ("--provisioning-delay", "seconds"),
    ("--scale-down-unneeded", "seconds"),
    ("--preemption-grace", "seconds"),
    ("--checkpoint-write", "seconds"),
    ("--checkpoint-restore", "seconds"),
    ("--checkpoint-interval", "positive"),
    ("--horizon-hours", "positive"),
    ("--time-slicing-interference", "factor"),
    ("--mps-interference", "factor"),
    ("--limit", "rows"),
]
_ABOVE = {
    "rate": str(LIM.node_losses_per_node_hour * 2),
    "seconds": str(LIM.simulated_time_s * 2),
    "positive": str(LIM.simulated_time_s * 2),
    "factor": str(LIM.interference_factor * 2),
}


def _bad_values(kind: str) -> list[tuple[str, str]]:
    if kind == "rows":
        return [("-5", "must be at least 1"), ("0", "must be at least 1"), ("1.5", "not a whole number")]
    out = [
        ("nan", "nan is not a finite number"),
        ("inf", "inf is not a finite number"),
        ("-inf", "-inf is not a finite number"),
        ("1e400", "inf is not a finite number"),
        ("-1", "must be"),
        ("abc", "'abc' is not a number"),
        (_ABOVE[kind], "must be at most"),
    ]
    if kind == "positive":
        out.append(("0", "must be greater than 0"))
    return out


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [(option, value, message) for option, kind in NUMERIC for value, message in _bad_values(kind)],
)
def test_every_numeric_option_is_finite_and_in_range(
    inputs: tuple[Path, Path], tmp_path: Path, option: str, value: str, message: str
) -> None:
    spec, trace = inputs
    done = _simulate(str(spec), "-w", str(trace), "--json", "out.json", option, value, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"gpuplane simulate: error: Invalid value for '{option}': "), done.stderr
    assert message in first and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("value", ["0", "10", "0.5"])
def test_in_range_values_are_accepted(inputs: tuple[Path, Path], tmp_path: Path, value: str) -> None:
    spec, trace = inputs
    done = _simulate(
        str(spec), "-w", str(trace), "-q", "--node-failure-rate", value, "--horizon-hours", "48", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("weight", ["nan", "inf", "-1", "x"])
def test_unit_weights_are_finite(inputs: tuple[Path, Path], tmp_path: Path, weight: str) -> None:
    spec, trace = inputs
    done = _simulate(str(spec), "-w", str(trace), "-q", "--unit", f"training={weight}", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("gpuplane simulate: error: --unit: "), done.stderr


@pytest.mark.parametrize(
    ("row", "column", "message"),
    [
        (_row("far", "1e20", "100"), "submit_s", "beyond the simulated-time limit of 315,360,000 s"),
        (_row("far2", str(LIM.simulated_time_s + 1), "100"), "submit_s", "simulated_time_s"),
        # 31 years of run on one GPU: under the default node failure rate it would restart for ever.
        (_row("long", "0", str(31 * 365 * 86400)), "work_gpu_s", "longer than the job-length limit"),
        (
            "svc,solo,solo,inference,0,server:1x1,,1e12,0,,,,completed,1,,\n",
            "run_time_s",
            "limits: job_run_s",
        ),
    ],
)
def test_trace_rows_beyond_the_time_limits_are_located(
    inputs: tuple[Path, Path], tmp_path: Path, row: str, column: str, message: str
) -> None:
    spec, trace = inputs
    trace.write_text(trace.read_text(encoding="utf-8") + row, encoding="utf-8")
    skipped = _simulate(str(spec), "-w", str(trace), "--json", "out.json", "-q", cwd=tmp_path)
    assert skipped.returncode == 0, skipped.stderr
    # The console wraps long lines at spaces and drops the space it wrapped at: compare without
    # any whitespace.
    flat = "".join(skipped.stderr.split())
    wanted = ("".join(f"{trace}:4: warning: {column}: ".split()), "".join(message.split()))
    assert wanted[0] in flat and wanted[1] in flat, skipped.stderr
    data = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert data["workloads"]["total"] == 2 and data["workloads"]["completed"] == 2
    strict = _simulate(str(spec), "-w", str(trace), "--strict", "-q", cwd=tmp_path)
    assert strict.returncode == 2
    assert strict.stderr.strip().startswith(f"{trace}:4: error: {column}: ") and message in strict.stderr


def test_a_run_that_would_never_end_stops_at_the_simulated_time_limit(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    spec, trace = inputs
    # 300 days of work on the one node, no checkpoint, a failure every 100 node-hours: each attempt
    # survives with probability exp(-72), so the job restarts until the limit ends the run.
    trace.write_text(HEADER + _row("never", "0", str(300 * 86400)), encoding="utf-8")
    done = _simulate(
        str(spec), "-w", str(trace), "-q", "--node-failure-rate", "0.01", "--json", "out.json", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert any("simulated-time limit" in w for w in data["warnings"])
    assert data["window_hours"] == pytest.approx(LIM.simulated_time_s / 3600.0)
    assert data["workloads"]["running"] + data["workloads"]["admitted"] == 1
    assert data["workloads"]["completed"] == 0
