"""`gpuplane simulate` end to end: the built-in example, outputs, what-if, bad input (exit 2)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplane.cli import app
from gpuplane.sim.output import CSV_COLUMNS

GPUPLANE = Path(sys.executable).with_name("gpuplane")
SMALL_SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: tiny, provider: generic}
nodePools:
  - {name: gpu, accelerator: A100-80GB, gpusPerNode: 8, minNodes: 0, maxNodes: NODES,
     workloadClasses: [training, batch, inference]}
teams:
  - {name: team-a, namespaces: [team-a], quotas: [{pool: gpu, nominal: 16}]}
costs:
  pools: {gpu: {onDemandHourly: 20.0}}
"""
WORKLOAD = """\
id,team,class,submit_s,pod_sets,work_gpu_s
j1,team-a,training,0,main:1x8,28800
j2,team-a,training,60,main:2x4,14400
j3,team-a,batch,120,main:1x1,600
"""


@pytest.fixture(scope="module")
def builtin_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`gpuplane simulate` with no arguments, run once in an empty directory."""
    where = tmp_path_factory.mktemp("builtin")
    proc = subprocess.run(
        [str(GPUPLANE), "simulate", "--json", "m.json"],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return where


def test_no_arguments_runs_the_builtin_example_and_writes_report_html(builtin_run: Path) -> None:
    report = builtin_run / "report.html"
    assert report.exists() and "<svg" in report.read_text()
    metrics = json.loads((builtin_run / "m.json").read_text())
    assert metrics["workload"] == "built-in synthetic week"
    assert set(metrics["teams"]) == {"team-a", "team-b", "team-c"}
    assert metrics["workloads"]["total"] > 1000 and metrics["cost_per_accepted_unit"] > 0


def _write(tmp_path: Path, nodes: int = 2, name: str = "p.yaml") -> Path:
    spec = tmp_path / name
    spec.write_text(SMALL_SPEC.replace("NODES", str(nodes)))
    return spec


def test_csv_has_the_documented_columns_and_one_row_per_workload(tmp_path: Path) -> None:
    spec = _write(tmp_path)
    (tmp_path / "w.csv").write_text(WORKLOAD)
    result = CliRunner().invoke(
        app,
        ["simulate", str(spec), "-w", str(tmp_path / "w.csv"), "--csv", str(tmp_path / "out.csv"), "--quiet"],
    )
    assert result.exit_code == 0, result.output
    rows = list(csv.reader((tmp_path / "out.csv").open()))
    assert tuple(rows[0]) == CSV_COLUMNS
    by_id = {r[0]: dict(zip(CSV_COLUMNS, r, strict=True)) for r in rows[1:]}
    assert set(by_id) == {"j1", "j2", "j3"}
    # j1 (1x8) and j2 (2x4) fill the 16-GPU quota; each triggers one node from zero, ready after
    # the default 600 s. j3 gets quota when j2 (1800 s on 8 GPUs) ends.
    assert (by_id["j1"]["start_s"], by_id["j1"]["end_s"]) == ("600", str(600 + 3600))
    assert (by_id["j2"]["start_s"], by_id["j2"]["end_s"]) == ("660", str(660 + 1800))
    assert by_id["j3"]["quota_wait_s"] == str(660 + 1800 - 120)
    assert by_id["j2"]["capacity_wait_s"] == "600" and by_id["j2"]["pool"] == "gpu"


def test_what_if_runs_each_platform_on_the_same_workload(tmp_path: Path) -> None:
    small, big = _write(tmp_path, 1, "small.yaml"), _write(tmp_path, 2, "big.yaml")
    (tmp_path / "w.csv").write_text(WORKLOAD)
    out = tmp_path / "m.json"
    result = CliRunner().invoke(
        app,
        [
            "simulate",
            str(small),
            str(big),
            "-w",
            str(tmp_path / "w.csv"),
            "--json",
            str(out),
            "--report",
            str(tmp_path / "r.html"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "small.yaml" in result.output and "big.yaml" in result.output
    platforms = json.loads(out.read_text())["platforms"]
    assert [p["platform"] for p in platforms] == [str(small), str(big)]
    waits = [p["teams"]["team-a"]["queue_wait"]["mean_s"] for p in platforms]
    assert waits[0] > waits[1]  # one node makes the gangs queue behind each other
    assert "What-if comparison" in (tmp_path / "r.html").read_text()


def test_same_inputs_and_seed_give_byte_identical_outputs(tmp_path: Path) -> None:
    spec = _write(tmp_path)
    (tmp_path / "w.csv").write_text(WORKLOAD)
    texts = []
    for i in range(2):
        args = [
            "simulate",
            str(spec),
            "-w",
            str(tmp_path / "w.csv"),
            "--seed",
            "7",
            "--spot-eviction-rate",
            "0.3",
            "--json",
            str(tmp_path / f"m{i}.json"),
            "--csv",
            str(tmp_path / f"c{i}.csv"),
            "--report",
            str(tmp_path / f"r{i}.html"),
            "--quiet",
        ]
        assert CliRunner().invoke(app, args).exit_code == 0
        texts.append(
            [(tmp_path / f"{k}{i}.{e}").read_bytes() for k, e in (("m", "json"), ("c", "csv"), ("r", "html"))]
        )
    assert texts[0] == texts[1]


def test_bad_spec_exits_2_with_its_location_and_writes_nothing(tmp_path: Path) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(SMALL_SPEC.replace("NODES", "2").replace("minNodes: 0", "minNodes: -1"))
    proc = subprocess.run(
        [str(GPUPLANE), "simulate", str(spec), "--report", "r.html"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "bad.yaml:" in proc.stderr and "minNodes" in proc.stderr
    assert not (tmp_path / "r.html").exists()


def test_bad_unit_weight_is_a_usage_error(tmp_path: Path) -> None:
    spec = _write(tmp_path)
    proc = subprocess.run(
        [str(GPUPLANE), "simulate", str(spec), "--unit", "gpu=3"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "--unit" in proc.stderr


def test_strict_fails_on_a_bad_trace_row(tmp_path: Path) -> None:
    spec = _write(tmp_path)
    (tmp_path / "w.csv").write_text(WORKLOAD + "j4,team-a,training,-5,main:1x1,60\n")
    ok = subprocess.run(
        [str(GPUPLANE), "simulate", str(spec), "-w", "w.csv", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ok.returncode == 0 and "1 bad trace rows were skipped" in ok.stderr + ok.stdout
    strict = subprocess.run(
        [str(GPUPLANE), "simulate", str(spec), "-w", "w.csv", "--strict"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert strict.returncode == 2 and "w.csv:5" in strict.stderr
