"""docs/spec.md is generated from the models and committed up to date; the JSON Schema covers
every field the examples use."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from typer.testing import CliRunner

from gpuplane.cli import app
from gpuplane.spec.docs import generate_markdown

REPO = Path(__file__).resolve().parents[2]


def test_committed_spec_reference_is_up_to_date() -> None:
    committed = (REPO / "docs" / "spec.md").read_text(encoding="utf-8")
    assert committed == generate_markdown(), "run: .venv/bin/python -m gpuplane.spec.docs > docs/spec.md"


def test_reference_documents_every_nested_model() -> None:
    text = generate_markdown()
    for heading in (
        "### PlatformSpec",
        "### NodePool",
        "### Sharing",
        "### Quota",
        "### Preemption",
        "### Costs",
    ):
        assert heading in text
    assert "| `borrowingLimit` |" in text


@pytest.mark.parametrize("example", sorted((REPO / "examples").glob("*.yaml")), ids=lambda p: p.stem)
def test_examples_validate_against_exported_json_schema(example: Path) -> None:
    result = CliRunner().invoke(app, ["spec", "schema"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    jsonschema.validate(yaml.safe_load(example.read_text()), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"cluster": {"name": "x", "provider": "azure"}, "nodePools": []}, schema)
