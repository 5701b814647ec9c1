"""plan never changes a guarantee silently (issue 21, Deliver 7): quotas are part of a design only
when the design space says so (`quotas: scale`, the default, or `keep`), and every quota change of
the winner is listed with the teams it affects in the terminal, plan.json and the report."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from gpuplane.plan.design import Design, Invalid, build_design
from gpuplane.plan.quotas import QuotaChange, quota_changes, summary, teams_of
from gpuplane.plan.space import current_choice
from gpuplane.spec import load_spec

REPO = Path(__file__).resolve().parents[2]
GPUPLANE = Path(sys.executable).with_name("gpuplane")
# A layout without 3g.40gb, on which two teams hold quota (examples/aks-platform.yaml).
NO_3G = ("2g.20gb", "2g.20gb", "2g.20gb", "1g.10gb")


def _mig_design(scale: bool) -> tuple[Design | Invalid, object]:
    spec = load_spec(REPO / "examples" / "aks-platform.yaml")
    pool = next(p for p in spec.node_pools if p.name == "a100-mig")
    own = current_choice(pool)
    choice = replace(own, sharing=replace(own.sharing, layout=NO_3G))
    return build_design(spec, [("a100-mig", choice)], scale_quotas=scale), spec


def test_a_mig_layout_change_lists_every_removed_guarantee_and_dropped_limit() -> None:
    built, spec = _mig_design(scale=True)
    assert isinstance(built, Design)
    changes = quota_changes(spec, built.spec)  # type: ignore[arg-type]
    removed = {(c.team, c.resource, c.field): (c.before, c.after) for c in changes if c.after is None}
    # By hand from the example: vision and serving each had 2 x 3g.40gb; serving lent at most 1.
    assert removed[("vision", "nvidia.com/mig-3g.40gb", "nominal")] == (2, None)
    assert removed[("serving", "nvidia.com/mig-3g.40gb", "nominal")] == (2, None)
    assert removed[("serving", "nvidia.com/mig-3g.40gb", "lendingLimit")] == (1, None)
    assert {c.team for c in changes if c.guarantee_removed} == {"vision", "serving"}
    assert all(c.pool == "a100-mig" for c in changes)  # no other pool was searched
    assert set(teams_of(changes)) >= {"vision", "serving"}
    lines = summary("scale", changes)
    assert "guarantees removed" in lines[0] and len(lines) == len(changes) + 1
    assert "  vision: a100-mig nvidia.com/mig-3g.40gb nominal 2 -> (none) (guarantee removed)" in lines


def test_with_quotas_keep_a_design_that_cannot_hold_them_is_not_valid() -> None:
    built, _ = _mig_design(scale=False)
    assert isinstance(built, Invalid)
    assert "mig-3g.40gb" in built.reason


def test_the_spec_as_given_has_no_quota_change() -> None:
    spec = load_spec(REPO / "examples" / "aks-platform.yaml")
    built = build_design(spec, [(p.name, current_choice(p)) for p in spec.node_pools if p.is_gpu])
    assert isinstance(built, Design)
    assert quota_changes(spec, built.spec) == []
    assert summary("scale", []) == [
        "quotas: scaled with each pool's capacity (plan.yaml quotas: keep fixes them); "
        "the winner keeps every team's quota as given"
    ]


def test_change_text() -> None:
    lend = QuotaChange("serving", "a100-mig", "nvidia.com/mig-3g.40gb", "lendingLimit", 1, None)
    assert lend.text() == "serving: a100-mig nvidia.com/mig-3g.40gb lendingLimit 1 -> (no limit)"
    assert not lend.guarantee_removed
    cut = QuotaChange("vision", "a100-mig", "nvidia.com/mig-3g.40gb", "nominal", 2, 0)
    assert cut.text().endswith("nominal 2 -> 0 (guarantee removed)")


def _plan(inputs: tuple[Path, Path, Path], space: Path, out: Path) -> subprocess.CompletedProcess[str]:
    trace, spec, _ = inputs
    args = [str(spec), "-w", str(trace), "--space", str(space), "--seeds", "1", "--goal", "p90-wait<=1d"]
    return subprocess.run(
        [str(GPUPLANE), "plan", *args, "--node-failure-rate", "0", "--no-ray", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.parametrize("mode", ["scale", "keep"])
def test_the_winners_quota_changes_are_in_the_terminal_json_and_report(
    mmc_tiny: tuple[Path, Path, Path], tmp_path: Path, mode: str
) -> None:
    _, _, space = mmc_tiny
    # The tiny space: the one pool at 10 or 11 one-GPU nodes (the spec: 11, team solo's quota 11).
    # A day's p90 wait is met by both, so the winner is the cheaper 10-node design.
    refined = tmp_path / "plan.yaml"
    refined.write_text(space.read_text(encoding="utf-8") + f"quotas: {mode}\n", encoding="utf-8")
    out = tmp_path / "out"
    done = _plan(mmc_tiny, refined, out)
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "plan.json").read_text(encoding="utf-8"))
    assert data["winner"]["choices"]["gpu"]["max_nodes"] == 10
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "Quota changes" in report
    if mode == "scale":
        line = "solo: gpu nvidia.com/gpu nominal 11 -> 10"
        assert f"  {line}" in done.stdout.splitlines()
        assert data["quotas"] == {
            "mode": "scale",
            "changes": [
                {
                    "team": "solo",
                    "pool": "gpu",
                    "resource": "nvidia.com/gpu",
                    "field": "nominal",
                    "before": 11,
                    "after": 10,
                    "guarantee_removed": False,
                }
            ],
            "teams_affected": ["solo"],
        }
        assert line.replace(">", "&gt;") in report and "<td>solo</td>" in report
        assert "nominal: 10" in (out / "winner.yaml").read_text(encoding="utf-8")
    else:
        assert "the winner keeps every team's quota as given" in done.stdout
        assert data["quotas"] == {"mode": "keep", "changes": [], "teams_affected": []}
        assert "nominal: 11" in (out / "winner.yaml").read_text(encoding="utf-8")
