"""Every rule has a failing and a passing fixture: the failing ones raise it, the passing ones don't."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplane.audit import rules
from tests.audit.helpers import FIXTURES, RULE_FIXTURES, audit_files, line_at, rule_ids

RULE_IDS = [r.id for r in rules()]
CASES = sorted(p for p in RULE_FIXTURES.glob("GPU*/*") if p.is_file())


def test_every_rule_has_a_failing_and_a_passing_fixture() -> None:
    for rule_id in RULE_IDS:
        names = [p.name for p in (RULE_FIXTURES / rule_id).glob("*")]
        assert any(n.startswith("fail") for n in names), f"{rule_id} has no failing fixture"
        assert any(n.startswith("pass") for n in names), f"{rule_id} has no passing fixture"


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_raises_its_rule_exactly_when_failing(path: Path) -> None:
    rule_id = path.parent.name
    found = rule_ids(audit_files(path))
    if path.name.startswith("fail"):
        assert rule_id in found, f"{path.name} should raise {rule_id}, got {sorted(found)}"
    else:
        assert rule_id not in found, f"{path.name} must not raise {rule_id}"


def test_platform_spec_pools_raise_pool_rules_with_spec_positions() -> None:
    spec = FIXTURES / "specs" / "bad-platform.yaml"
    findings = audit_files(FIXTURES / "specs" / "workloads-on-bad-platform.yaml", spec=spec)
    by_rule = {f.rule: f for f in findings}
    assert {"GPU008", "GPU016", "GPU018", "GPU023", "GPU021", "GPU022", "GPU025"} <= set(by_rule)
    lines = spec.read_text().splitlines()
    # GPU016 points at the batch pool's minNodes line, GPU018 at the single-zone list.
    assert "minNodes: 1" in line_at(lines, by_rule["GPU016"].line)
    assert "zones:" in line_at(lines, by_rule["GPU018"].line)
    assert by_rule["GPU016"].file == str(spec)


def test_good_platform_spec_has_no_pool_findings(tmp_path: Path) -> None:
    text = (FIXTURES / "specs" / "bad-platform.yaml").read_text()
    text = text.replace("minNodes: 1                       # GPU016", "minNodes: 0")
    text = text.replace(
        "minNodes: 2                       # GPU016 only once classes are training-only", "minNodes: 0"
    )
    text = text.replace('zones: ["1"]                      # GPU018', 'zones: ["1", "2"]')
    text = text.replace("workloadClasses: [training, inference]", "workloadClasses: [training]")
    text = text.replace("sharing: {mode: time-slicing, replicas: 4}", "sharing: {mode: exclusive}")
    spec = tmp_path / "good.yaml"
    spec.write_text(text)
    assert audit_files(spec=spec) == []


def test_lone_workload_is_not_judged_for_namespace_wide_rules() -> None:
    # Nothing in the input says anything about team-c: quota and network policy are not judged.
    text = (RULE_FIXTURES / "GPU001" / "pass.yaml").read_text().replace("team-a", "team-c")
    from tests.audit.helpers import audit_yaml

    assert not {"GPU006", "GPU011", "GPU012"} & rule_ids(audit_yaml(text))
