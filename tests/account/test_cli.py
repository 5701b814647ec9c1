"""The `account` and `exporter` commands end to end, and their answers to bad input and bad servers."""

from __future__ import annotations

import csv
import io
import json
import socket
import subprocess
from pathlib import Path

import pytest
import yaml

from gpuplane.traces import load_workload
from tests.account.conftest import Day
from tests.support.promserver import free_port

GPUPLANE = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "gpuplane")
WINDOW = ["--start", "2026-01-05T00:00:00Z", "--end", "2026-01-06T00:00:00Z", "--step", "30s"]


def _run(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GPUPLANE, *args], capture_output=True, text=True, timeout=timeout)


def _account(day: Day, *args: str) -> subprocess.CompletedProcess[str]:
    return _run("account", "--prometheus", day.url, "--spec", str(day.spec_file), *WINDOW, *args)


def _one_line_error(done: subprocess.CompletedProcess[str], code: int) -> str:
    assert done.returncode == code, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and done.stdout == ""
    return done.stderr


def test_json_output_is_complete_and_deterministic(day: Day) -> None:
    first, second = _account(day, "-o", "json"), _account(day, "-o", "json")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    data = json.loads(first.stdout)
    assert data["window"] == {
        "start": "2026-01-05T00:00:00Z",
        "end": "2026-01-06T00:00:00Z",
        "step_seconds": 30.0,
        "hours": 24.0,
    }
    assert {t["name"] for t in data["financial"]["teams"]} == {"vision", "nlp", "serving", "(unallocated)"}
    summary = data["summary"]
    assert summary["accepted_units"] == 5
    assert summary["unmeasured_gpu_hours"] == pytest.approx(24 * 3 / 7 + 12 * 2 / 7 + 24 / 7, rel=1e-3)
    assert summary["failed_gpu_hours"] == pytest.approx(2 * (7 - 65 / 60), rel=1e-3)
    queues = {q["cluster_queue"]: q for q in data["workload"]["kueue"]}
    assert queues["serving"]["mean_admission_wait_seconds"] is None


def test_csv_output_has_one_row_per_group_of_every_dimension(day: Day) -> None:
    done = _account(day, "-o", "csv")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert len([r for r in rows if r["dimension"] == "pod"]) == 10
    pools = {r["name"]: r for r in rows if r["dimension"] == "pool"}
    assert float(pools["mig"]["unmeasured_gpu_hours"]) == pytest.approx(
        24 * 3 / 7 + 12 * 2 / 7 + 24 / 7, rel=1e-3
    )
    assert float(pools["mig"]["cost_unmeasured"]) == pytest.approx(
        3.5 * (24 * 3 / 7 + 12 * 2 / 7 + 24 / 7), rel=1e-3
    )
    assert float(pools["t4"]["provisioned_gpu_hours"]) == pytest.approx(24.0)


def test_table_report_and_workload_export(day: Day, tmp_path: Path) -> None:
    report, workload = tmp_path / "account.html", tmp_path / "observed.csv"
    done = _account(day, "--report", str(report), "--export-workload", str(workload))
    assert done.returncode == 0, done.stderr
    assert "Pools" in done.stdout and "unmeasured" in done.stdout
    assert report.read_text(encoding="utf-8").count("<svg") >= 5
    observed = load_workload(workload)
    assert len(observed) == 10 and not observed.warnings
    by_id = {w.id: w for w in observed}
    assert by_id["nlp-llm-ft-0"].final_status == "failed"
    assert by_id["serving-llm-serve"].pod_sets[0].mig_profile == "3g.40gb"
    assert by_id["vision-ts-a"].pod_sets[0].gpus_per_pod == pytest.approx(0.25)


def test_unreachable_prometheus_exits_3_without_credentials(day: Day) -> None:
    url = f"http://admin:s3cret@127.0.0.1:{free_port()}/?token=t0ken"
    done = _run("account", "--prometheus", url, "--spec", str(day.spec_file), "--since", "1h")
    err = _one_line_error(done, 3)
    assert "cannot reach Prometheus" in err
    assert "s3cret" not in err and "admin" not in err and "t0ken" not in err


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:99999", "http://127.0.0.1:abc", "http://[::1", "alice:SECRETPW@host:9", "ftp://h"],
)
def test_malformed_prometheus_urls_are_one_line_usage_errors(day: Day, url: str) -> None:
    done = _run("account", "--prometheus", url, "--spec", str(day.spec_file), "--since", "1h")
    err = _one_line_error(done, 2)
    assert "--prometheus" in err and "SECRETPW" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--since", "99999999999w"], "--since"),
        (["--since", "soon"], "--since"),
        (["--start", "2026-01-06", "--end", "2026-01-05"], "--end"),
        (["--end", "99999999999999999"], "--end"),
        (["--since", "1h", "--timeout", "fast"], "--timeout"),
        (["--since", "1h", "-o", "yaml"], "--output"),
    ],
)
def test_bad_window_options_are_one_line_errors_naming_the_option(
    day: Day, args: list[str], option: str
) -> None:
    done = _run("account", "--prometheus", day.url, "--spec", str(day.spec_file), *args)
    err = _one_line_error(done, 2)
    assert option in err and len(err.strip().splitlines()) == 1


def test_empty_window_is_not_an_error_and_says_no_gpu_pod_ran(day: Day) -> None:
    done = _run(
        "account", "--prometheus", day.url, "--spec", str(day.spec_file),
        "--start", "2025-06-01T00:00:00Z", "--end", "2025-06-02T00:00:00Z", "-o", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    notes = " ".join(json.loads(done.stdout)["notes"])
    assert "No GPU pod was running" in notes and "kube_node_info" in notes


def test_spec_whose_pools_match_no_node_gets_a_note(day: Day, tmp_path: Path) -> None:
    data = yaml.safe_load(day.spec_file.read_text(encoding="utf-8"))
    for pool in data["nodePools"]:
        pool["name"] = "x" + pool["name"]
    for team in data["teams"]:
        for quota in team.get("quotas", []):
            quota["pool"] = "x" + quota["pool"]
    data["costs"]["pools"] = {"x" + k: v for k, v in data["costs"]["pools"].items()}
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(data), encoding="utf-8")
    done = _run("account", "--prometheus", day.url, "--spec", str(other), *WINDOW, "-o", "json")
    assert done.returncode == 0, done.stderr
    notes = json.loads(done.stdout)["notes"]
    assert any("No GPU node in Prometheus matches a pool of the spec" in n for n in notes)


def test_bad_spec_is_located(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: gpuplane.io/v1alpha1\nkind: Platform\nnodePools: nope\n", encoding="utf-8")
    done = _run("account", "--prometheus", "http://127.0.0.1:1", "--spec", str(bad), "--since", "1h")
    assert done.returncode == 2 and "bad.yaml" in done.stderr


# -- exporter -------------------------------------------------------------------------------------


def test_exporter_once_writes_the_exposition_or_exits_3(day: Day, tmp_path: Path) -> None:
    out = tmp_path / "metrics.txt"
    done = _run("exporter", "--prometheus", day.url, "--spec", str(day.spec_file), "--once", str(out))
    assert done.returncode == 0, done.stderr
    assert "gpuplane_exporter_up 1.0" in out.read_text(encoding="utf-8")
    url = f"http://u:s3cret@127.0.0.1:{free_port()}"
    done = _run(
        "exporter", "--prometheus", url, "--spec", str(day.spec_file), "--once", str(tmp_path / "x.txt")
    )
    assert "s3cret" not in _one_line_error(done, 3) and not (tmp_path / "x.txt").exists()


def test_exporter_start_up_errors_are_one_line_usage_errors(day: Day) -> None:
    base = ["exporter", "--prometheus", day.url, "--spec", str(day.spec_file)]
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = str(busy.getsockname()[1])
        err = _one_line_error(_run(*base, "--port", taken), 2)
        assert "--port" in err and "in use" in err
    assert "--port" in _one_line_error(_run(*base, "--port", "99999"), 2)
    assert "--address" in _one_line_error(_run(*base, "--address", "999.1.1.1", "--port", "0"), 2)
    assert "--address" in _one_line_error(_run(*base, "--address", "203.0.113.7", "--port", "0"), 2)


def test_exporter_help_says_where_it_listens() -> None:
    done = _run("exporter", "--help")
    assert done.returncode == 0 and "127.0.0.1" in done.stdout and "--timeout" in done.stdout
