"""The `account` CLI end to end against the real Prometheus, and its answers to bad input."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from pathlib import Path

import pytest
import yaml

from gpuplane.account.promserver import Cluster, free_port
from gpuplane.traces import load_workload

GPUPLANE = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "gpuplane")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GPUPLANE, *args], capture_output=True, text=True, timeout=120)


def _window(cluster: Cluster) -> list[str]:
    return ["--start", str(int(cluster.week.start)), "--end", "2026-01-12T00:00:00Z", "--step", "30s"]


def test_json_output_is_complete_and_deterministic(cluster: Cluster) -> None:
    args = [
        "account",
        "--prometheus",
        cluster.url,
        "--spec",
        str(cluster.spec_file),
        *_window(cluster),
        "-o",
        "json",
    ]
    first, second = _run(*args), _run(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    data = json.loads(first.stdout)
    assert data["window"] == {
        "start": "2026-01-05T00:00:00Z",
        "end": "2026-01-12T00:00:00Z",
        "step_seconds": 30.0,
        "hours": 168.0,
    }
    assert {t["name"] for t in data["financial"]["teams"]} == {
        "vision",
        "nlp",
        "serving",
        "unassigned",
        "(unallocated)",
    }
    assert data["summary"]["accepted_units"] == 6
    assert data["summary"]["failed_gpu_hours"] == pytest.approx(36.0, rel=0.005)


def test_csv_output_has_one_row_per_group_of_every_dimension(cluster: Cluster) -> None:
    done = _run(
        "account",
        "--prometheus",
        cluster.url,
        "--spec",
        str(cluster.spec_file),
        *_window(cluster),
        "-o",
        "csv",
    )
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    pods = [r for r in rows if r["dimension"] == "pod"]
    assert len(pods) == 11
    pools = {r["name"]: r for r in rows if r["dimension"] == "pool"}
    assert float(pools["t4"]["provisioned_gpu_hours"]) == pytest.approx(168.0, rel=0.005)


def test_table_report_and_workload_export(cluster: Cluster, tmp_path: Path) -> None:
    report, workload = tmp_path / "account.html", tmp_path / "observed.csv"
    done = _run(
        "account",
        "--prometheus",
        cluster.url,
        "--spec",
        str(cluster.spec_file),
        *_window(cluster),
        "--report",
        str(report),
        "--export-workload",
        str(workload),
    )
    assert done.returncode == 0, done.stderr
    assert "Pools" in done.stdout and "train" in done.stdout
    assert report.read_text(encoding="utf-8").count("<svg") >= 5
    observed = load_workload(workload)
    assert len(observed) == 11 and not observed.warnings
    by_id = {w.id: w for w in observed}
    assert by_id["nlp-llm-ft-0"].final_status == "failed"
    assert by_id["vision-resnet-0"].work_gpu_seconds == pytest.approx(72 * 3600 * 2, rel=0.001)
    assert by_id["serving-llm-serve"].pod_sets[0].mig_profile == "3g.40gb"
    assert by_id["vision-ts-dev-a"].pod_sets[0].gpus_per_pod == pytest.approx(0.25)


def test_unreachable_prometheus_is_a_clear_error_without_credentials(cluster: Cluster) -> None:
    url = f"http://admin:s3cret@127.0.0.1:{free_port()}"
    done = _run("account", "--prometheus", url, "--spec", str(cluster.spec_file), "--since", "1h")
    assert done.returncode == 2
    assert "cannot reach Prometheus" in done.stderr
    assert "s3cret" not in done.stderr + done.stdout and "admin" not in done.stderr
    assert "Traceback" not in done.stderr


def test_bad_window_options_name_the_option(cluster: Cluster) -> None:
    done = _run("account", "--prometheus", cluster.url, "--spec", str(cluster.spec_file), "--since", "soon")
    assert done.returncode == 2 and "--since" in done.stderr and "duration" in done.stderr
    done = _run(
        "account",
        "--prometheus",
        cluster.url,
        "--spec",
        str(cluster.spec_file),
        "--start",
        "2026-01-06",
        "--end",
        "2026-01-05",
    )
    assert done.returncode == 2 and "--end" in done.stderr


def test_empty_window_says_no_gpu_pod_ran(cluster: Cluster) -> None:
    done = _run(
        "account",
        "--prometheus",
        cluster.url,
        "--spec",
        str(cluster.spec_file),
        "--start",
        "2025-06-01T00:00:00Z",
        "--end",
        "2025-06-02T00:00:00Z",
        "-o",
        "json",
    )
    assert done.returncode == 0, done.stderr
    notes = " ".join(json.loads(done.stdout)["notes"])
    assert "No GPU pod was running" in notes and "kube_node_labels" in notes


def test_spec_whose_pools_match_no_node_gets_a_note(cluster: Cluster, tmp_path: Path) -> None:
    data = yaml.safe_load(cluster.spec_file.read_text(encoding="utf-8"))
    for pool in data["nodePools"]:
        pool["name"] = "x" + pool["name"]
    for team in data["teams"]:
        for quota in team.get("quotas", []):
            quota["pool"] = "x" + quota["pool"]
    data["costs"]["pools"] = {"x" + k: v for k, v in data["costs"]["pools"].items()}
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(data), encoding="utf-8")
    done = _run("account", "--prometheus", cluster.url, "--spec", str(other), *_window(cluster), "-o", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert any("No node in Prometheus matches a pool of the spec" in n for n in data["notes"])


def test_bad_spec_is_located(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: gpuplane.io/v1alpha1\nkind: Platform\nnodePools: nope\n", encoding="utf-8")
    done = _run("account", "--prometheus", "http://127.0.0.1:1", "--spec", str(bad), "--since", "1h")
    assert done.returncode == 2 and "bad.yaml" in done.stderr
