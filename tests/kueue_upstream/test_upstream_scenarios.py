"""Kueue's own scheduler unit tests, transcribed to YAML, run through `gpuplane explain -o json`.

Each directory under `scenarios/` holds `objects.yaml` (real Kueue objects), `expected.json` (one
cycle in the shape of `explain -o json`) and `source.txt` (upstream file, test, case, commit).
One cycle is run, as Kueue's TestSchedule runs exactly one `schedule()`. Compared: the admitted set
(with podset counts and flavors), the preempted set (victim, preemptor, reason) and the pending
queues (heap vs inadmissible, per ClusterQueue). Human-readable reasons are not compared.
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuplane.cli import app

HERE = Path(__file__).resolve().parent
SCENARIOS = sorted(p for p in (HERE / "scenarios").iterdir() if (p / "expected.json").is_file())
GPUPLANE = Path(sys.executable).parent / "gpuplane"

Admission = tuple[str, str, tuple[tuple[str, int, tuple[tuple[str, str], ...]], ...]]


def _wants_fair_sharing(scenario: Path, expected: dict[str, Any]) -> bool:
    """Fair sharing is on when expected.json says so or the objects hold a Kueue Configuration."""
    text = (scenario / "objects.yaml").read_text(encoding="utf-8")
    return bool(expected.get("fairSharing")) or "kind: Configuration" in text


def _expected(scenario: Path) -> dict[str, Any]:
    out: dict[str, Any] = json.loads((scenario / "expected.json").read_text(encoding="utf-8"))
    return out


def _explain_args(scenario: Path) -> list[str]:
    args = ["explain", "-f", str(scenario / "objects.yaml"), "-o", "json"]
    if _wants_fair_sharing(scenario, _expected(scenario)):
        args.append("--fair-sharing")
    return args


@cache
def _all_runs() -> dict[Path, tuple[int, str, str]]:
    """All scenarios run once, in this process through the real CLI app (fast: one import).

    `test_cli_process_matches_in_process_run` checks that the installed `gpuplane` executable gives
    the same JSON, so the in-process runs stand for the command line.
    """
    runner = CliRunner()
    runs: dict[Path, tuple[int, str, str]] = {}
    for scenario in SCENARIOS:
        result = runner.invoke(app, _explain_args(scenario))
        runs[scenario] = (result.exit_code, result.stdout, result.stderr)
    return runs


def run_explain(scenario: Path) -> dict[str, Any]:
    """The parsed JSON of the scenario's explain run."""
    code, stdout, stderr = _all_runs()[scenario]
    assert code == 0, f"explain failed ({code}): {stderr[-2000:]}"
    out: dict[str, Any] = json.loads(stdout)
    return out


@pytest.mark.parametrize("scenario", SCENARIOS[:: max(1, len(SCENARIOS) // 6)], ids=lambda p: p.name)
def test_cli_process_matches_in_process_run(scenario: Path) -> None:
    proc = subprocess.run(
        [str(GPUPLANE), *_explain_args(scenario)], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout) == run_explain(scenario)


def admissions(cycle: dict[str, Any]) -> set[Admission]:
    """Admitted workloads as comparable tuples (podset order-independent, flavors sorted)."""
    return {
        (
            e["workload"],
            e["clusterQueue"],
            tuple(
                sorted(
                    (p["name"], int(p["count"]), tuple(sorted(p["flavors"].items())))
                    for p in e.get("podSets", [])
                )
            ),
        )
        for e in cycle.get("admitted", [])
    }


def preemptions(cycle: dict[str, Any]) -> set[tuple[str, str, str]]:
    """Victims with their preemptor and reason."""
    return {(e["workload"], e["preemptor"], e["reason"]) for e in cycle.get("preempted", [])}


def pending(cycle: dict[str, Any]) -> set[tuple[str, str, str]]:
    """Pending workloads with their ClusterQueue and queue (heap or inadmissible)."""
    return {(e["workload"], e["clusterQueue"], e["queue"]) for e in cycle.get("pending", [])}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_upstream_scenario_matches_kueue(scenario: Path) -> None:
    expected = _expected(scenario)
    got = run_explain(scenario)
    want_cycle, got_cycle = expected["cycles"][0], got["cycles"][0]
    source = (scenario / "source.txt").read_text(encoding="utf-8").splitlines()[2]
    problems = []
    for label, fn in (("admitted", admissions), ("preempted", preemptions), ("pending", pending)):
        want, have = fn(want_cycle), fn(got_cycle)
        if want != have:
            problems.append(f"{label}: missing {sorted(want - have)}; unexpected {sorted(have - want)}")
    assert not problems, f"{source}\n" + "\n".join(problems)


def test_every_scenario_names_its_upstream_source() -> None:
    for scenario in SCENARIOS:
        lines = (scenario / "source.txt").read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("kubernetes-sigs/kueue "), scenario.name
        assert any(line.startswith("commit: ") for line in lines), scenario.name
        assert (scenario / "objects.yaml").is_file(), scenario.name


def test_corpus_is_large_enough_to_mean_something() -> None:
    assert len(SCENARIOS) >= 40
