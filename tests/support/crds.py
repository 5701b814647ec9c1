"""Validate objects against the CRDs in ../shared/crds with plain JSON Schema, made strict.

The schema of each served version is `spec.versions[].schema.openAPIV3Schema`; objects with
declared properties reject unknown fields (as the API server's strict field validation does),
`x-kubernetes-int-or-string` drops `type` (SOURCES.md), metadata is left to the API server.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import jsonschema
import yaml


def strict(schema: Any) -> Any:
    """A copy of a CRD schema where objects with declared properties reject unknown fields."""
    if isinstance(schema, dict):
        out = {k: strict(v) for k, v in schema.items()}
        if out.get("x-kubernetes-int-or-string"):
            out.pop("type", None)
        if (
            out.get("type") == "object"
            and "properties" in out
            and "additionalProperties" not in out
            and not out.get("x-kubernetes-preserve-unknown-fields")
        ):
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [strict(v) for v in schema]
    return schema


@functools.cache
def crd_schemas(crd_file: str) -> dict[tuple[str, str], dict[str, Any]]:
    """(kind, apiVersion) -> strict schema for every version a CRD file serves."""
    crd = yaml.safe_load(Path(crd_file).read_text(encoding="utf-8"))
    group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
    out = {}
    for version in crd["spec"]["versions"]:
        schema = copy.deepcopy(version["schema"]["openAPIV3Schema"])
        schema["properties"]["metadata"] = {"type": "object"}
        out[(kind, f"{group}/{version['name']}")] = strict(schema)
    return out


def validate_crd_object(obj: dict[str, Any], crd_file: Path) -> None:
    """Raise jsonschema.ValidationError unless `obj` matches its CRD's strict schema."""
    schemas = crd_schemas(str(crd_file))
    key = (obj["kind"], obj["apiVersion"])
    assert key in schemas, f"{crd_file.name} serves {sorted(schemas)}, not {key}"
    jsonschema.validate(obj, schemas[key])
