"""Kueue's TAS scheduler cases (`tas_scenarios/`, see `transcribe_tas.py`) run through `gpuplane explain -o json`.

Compared per scenario: the admitted workloads with each pod set's count, flavors and
`topologyAssignment` (levels and domains, exactly), the pending workloads with their queue
(heap or inadmissible), and that each pending reason carries Kueue's own event message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuplane.cli import app

HERE = Path(__file__).resolve().parent
SCENARIOS = sorted(p for p in (HERE / "tas_scenarios").iterdir() if (p / "expected.json").is_file())


def _run(scenario: Path) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["explain", "-f", str(scenario / "objects.yaml"), "-o", "json"])
    assert result.exit_code == 0, result.stderr[-2000:]
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def _admitted(cycle: dict[str, Any]) -> list[tuple[str, str, list[tuple[Any, ...]]]]:
    return sorted(
        (
            a["workload"],
            a["clusterQueue"],
            sorted(
                (p["name"], p["count"], sorted(p["flavors"].items()), json.dumps(p.get("topologyAssignment")))
                for p in a["podSets"]
            ),
        )
        for a in cycle["admitted"]
    )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_tas_scenario_matches_kueue(scenario: Path) -> None:
    want = json.loads((scenario / "expected.json").read_text(encoding="utf-8"))["cycles"][0]
    got = _run(scenario)["cycles"][0]
    source = (scenario / "source.txt").read_text(encoding="utf-8")
    assert _admitted(got) == _admitted(want), source
    victims = sorted((p["workload"], p["preemptor"], p["reason"]) for p in got["preempted"])
    assert victims == sorted((p["workload"], p["preemptor"], p["reason"]) for p in want["preempted"]), source
    have = {(p["workload"], p["clusterQueue"], p["queue"]): p["reason"] for p in got["pending"]}
    for p in want["pending"]:
        key = (p["workload"], p["clusterQueue"], p["queue"])
        assert key in have, f"{source}\npending {key} not in {sorted(have)}"
        if p["message"] is not None:
            assert p["message"] in have[key], f"{source}\n{have[key]!r} lacks Kueue's {p['message']!r}"
    assert len(have) == len(want["pending"]), source


def test_tas_corpus_covers_the_modes() -> None:
    text = "".join((s / "objects.yaml").read_text(encoding="utf-8") for s in SCENARIOS)
    for word in (
        "required:",
        "preferred:",
        "unconstrained: true",
        "podSetSliceSize",
        "kind: Pod\n",
        "taints",
    ):
        assert word in text, word
    assert len(SCENARIOS) >= 25


def test_the_table_names_the_domains_of_an_admitted_pod_set() -> None:
    scenario = next(s for s in SCENARIOS if s.name == "two_podsets_succeed")
    result = CliRunner().invoke(app, ["explain", "-f", str(scenario / "objects.yaml")])
    assert result.exit_code == 0, result.stderr[-2000:]
    text = " ".join(result.stdout.replace("│", " ").split())
    assert "x15: cpu=tas-default on x1:7, y1:8" in text
