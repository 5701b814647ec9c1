"""`gpuplane spec schema|validate` without typer: the spec's front door.

`schema()` is the platform spec's JSON Schema as editors and CI read it; `validate(file)` loads a
spec with its prices resolved and returns what `spec validate` reports. `cli/spec.py` parses,
calls one of these and prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuplane.errors import Problem
from gpuplane.spec.loader import load_spec_with_warnings
from gpuplane.spec.models import PlatformSpec
from gpuplane.vocab import SPEC_SCHEMA_ID

__all__ = ["Validated", "schema", "validate"]


def schema() -> dict[str, Any]:
    """The platform spec's JSON Schema (draft 2020-12, with gpuplane's `$id`)."""
    document = PlatformSpec.model_json_schema(by_alias=True)
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    document["$id"] = SPEC_SCHEMA_ID
    return document


@dataclass(frozen=True)
class Validated:
    """A valid spec and its warnings, with the figures `spec validate` reports."""

    spec: PlatformSpec
    warnings: list[Problem]

    @property
    def gpus(self) -> int:
        """GPUs of every pool at its maximum size."""
        return sum(p.gpus * p.max_nodes for p in self.spec.node_pools)


def validate(file: Path) -> Validated:
    """Load and check a spec with prices resolved (InputError, exit 2, on the first bad input)."""
    spec, warnings = load_spec_with_warnings(file, priced=True)
    return Validated(spec, list(warnings))
