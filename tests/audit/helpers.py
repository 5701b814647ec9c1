"""Shared helpers for the audit tests: run the engine on fixture files or texts."""

from __future__ import annotations

from pathlib import Path

from gpuplane.audit import AuditConfig, Finding, audit, read_inputs, read_text

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RULE_FIXTURES = FIXTURES / "rules"


def audit_files(
    *paths: Path | str, spec: Path | None = None, config: AuditConfig | None = None
) -> list[Finding]:
    inputs = read_inputs([str(p) for p in paths], spec=str(spec) if spec else None)
    return audit(inputs, config)


def audit_yaml(text: str, config: AuditConfig | None = None, file: str = "test.yaml") -> list[Finding]:
    return audit(read_text(text, file), config)


def rule_ids(findings: list[Finding]) -> set[str]:
    return {f.rule for f in findings}


def line_at(lines: list[str], line: int | None) -> str:
    """The 1-based `line` of `lines` that a finding or position points at (it must point at one)."""
    assert line is not None, "no line"
    return lines[line - 1]
