"""The committed rule reference is generated from the rule objects and is up to date."""

from __future__ import annotations

from pathlib import Path

from gpuplane.audit import render_docs, rules


def test_committed_rule_reference_is_up_to_date(repo_dir: Path) -> None:
    committed = (repo_dir / "docs" / "audit-rules.md").read_text(encoding="utf-8")
    assert committed == render_docs(rules()), "run: gpuplane audit docs -o docs/audit-rules.md"


def test_every_rule_has_why_and_fix_text() -> None:
    for r in rules():
        assert r.id.startswith("GPU") and len(r.id) == 6
        assert len(r.why) > 40 and len(r.fix) > 20, r.id
        assert r.severity in ("info", "low", "medium", "high", "critical")
        assert f"## {r.id}" in render_docs(rules())


def test_config_example_in_the_docs_loads(tmp_path: Path) -> None:
    from gpuplane.audit import load_config

    text = render_docs(rules())
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "audit.yaml"
    path.write_text(block)
    cfg = load_config(path)
    assert cfg.ignore == ["GPU014"] and cfg.severity == {"GPU024": "medium"}


def test_contributing_audit_checklists_name_tests_that_exist(repo_dir: Path) -> None:
    import re

    text = (repo_dir / "docs" / "contributing.md").read_text(encoding="utf-8")
    sections = [
        s for s in text.split("\n## ") if s.startswith(("Adding an audit rule", "Adding an audit reader"))
    ]
    assert len(sections) == 2
    named = re.findall(r"(tests/[\w/]+\.py)(?:::(\w+))?", " ".join(" ".join(s.split()) for s in sections))
    assert len(named) >= 6
    for path, test in named:
        source = (repo_dir / path).read_text(encoding="utf-8")
        assert not test or f"def {test}(" in source, f"{path}::{test} does not exist"
    for name in re.findall(r"`(test_\w+)`", " ".join(sections)):
        assert any(f"def {name}(" in (repo_dir / p).read_text(encoding="utf-8") for p, _ in named), name
