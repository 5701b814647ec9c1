"""Reporters: a plain table for people, JSON for scripts, SARIF 2.1.0 for GitHub code scanning."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gpuplane import __version__
from gpuplane.audit.model import Finding, Rule

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}
SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0", "info": "1.0"}


def to_json(findings: list[Finding]) -> str:
    """`{"findings": [...], "summary": {...}}`, stable key order, one trailing newline."""
    return "".join(iter_json(findings))


def iter_json(findings: list[Finding]) -> Iterator[str]:
    """`to_json` in pieces, one finding at a time: the same text as `json.dumps(doc, indent=2)`
    without building every finding's dict first (80,000 findings of a 50 MB input)."""
    summary: dict[str, int] = {}
    for f in findings:
        summary[f.severity] = summary.get(f.severity, 0) + 1
    if not findings:
        yield '{\n  "findings": [],\n'
    else:
        yield '{\n  "findings": [\n'
        for index, f in enumerate(findings):
            text = textwrap.indent(json.dumps(f.as_dict(), indent=2), "    ")
            yield text + (",\n" if index < len(findings) - 1 else "\n")
        yield "  ],\n"
    tail = json.dumps({"summary": {"total": len(findings), **dict(sorted(summary.items()))}}, indent=2)
    yield tail[2:] + "\n"


def to_table(findings: list[Finding]) -> str:
    """One line per finding (`file:line:col  SEVERITY  RULE  object  message`) and a summary."""
    if not findings:
        return "no findings\n"
    rows = []
    for f in findings:
        where = (
            f.file
            + (f":{f.line}" if f.line is not None else "")
            + (f":{f.column}" if f.column is not None else "")
        )
        obj = f"{f.kind} {f.namespace + '/' if f.namespace else ''}{f.name}".strip()
        rows.append((where, f.severity.upper(), f.rule, obj, f.message))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(r)).rstrip() for r in rows
    ]
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.severity] = counts.get(f.severity, 0) + 1
    order = ("critical", "high", "medium", "low", "info")
    lines.append(
        f"{len(findings)} finding(s): " + ", ".join(f"{counts[s]} {s}" for s in order if s in counts)
    )
    return "\n".join(lines) + "\n"


def _uri(file: str) -> str:
    """Repository-relative URI when possible (GitHub resolves those against the checkout)."""
    if file.startswith("<"):
        return file.strip("<>")
    path = Path(file)
    if path.is_absolute():
        try:
            path = path.relative_to(Path.cwd())
        except ValueError:
            return path.as_uri()
    return path.as_posix()


def _sarif_rule(r: Rule) -> dict[str, Any]:
    props: dict[str, Any] = {"tags": list(r.tags), "precision": "high", "severity": r.severity}
    if r.security:
        props["security-severity"] = SECURITY_SEVERITY[r.severity]
    return {
        "id": r.id,
        "name": r.name,
        "shortDescription": {"text": r.title},
        "fullDescription": {"text": r.why},
        "help": {
            "text": f"{r.why}\n\nHow to fix: {r.fix}",
            "markdown": f"**Why:** {r.why}\n\n**How to fix:** {r.fix}",
        },
        "defaultConfiguration": {"level": SARIF_LEVEL[r.severity]},
        "properties": props,
    }


def _sarif_result(f: Finding, index: dict[str, int]) -> dict[str, Any]:
    region: dict[str, int] = {"startLine": f.line or 1}
    if f.column:
        region["startColumn"] = f.column
    result: dict[str, Any] = {
        "ruleId": f.rule,
        "level": SARIF_LEVEL.get(f.severity, "warning"),
        "message": {"text": f.message},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(f.file)}, "region": region}}],
        "properties": {"severity": f.severity},
    }
    if f.rule in index:
        result["ruleIndex"] = index[f.rule]
    if f.kind or f.name:
        fq = "/".join(p for p in (f.kind, f.namespace, f.name) if p)
        result["locations"][0]["logicalLocations"] = [
            {"name": f.name or f.kind, "fullyQualifiedName": fq, "kind": "resource"}
        ]
    return result


def to_sarif(findings: list[Finding], rules: list[Rule]) -> str:
    """A SARIF 2.1.0 log with one run, every rule described, and field-level regions."""
    index = {r.id: i for i, r in enumerate(rules)}
    run = {
        "tool": {
            "driver": {
                "name": "gpuplane-audit",
                "version": __version__,
                "rules": [_sarif_rule(r) for r in rules],
            }
        },
        "results": [_sarif_result(f, index) for f in findings],
        "columnKind": "unicodeCodePoints",
    }
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"
