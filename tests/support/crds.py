"""Validate objects against the CRDs in ../shared/crds with plain JSON Schema, made strict.

The schema of each served version is `spec.versions[].schema.openAPIV3Schema`; objects with
declared properties reject unknown fields (as the API server's strict field validation does),
`x-kubernetes-int-or-string` drops `type` (SOURCES.md), metadata is left to the API server.
`validate(obj)` finds the CRD of any kind under ../shared/crds by its group (core kinds go to
kubernetes-validate); `validate_crd_object(obj, file)` checks against one given CRD file.
"""

from __future__ import annotations

import copy
import functools
import re
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import yaml

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
CRD_DIR = SHARED / "crds"
KUBERNETES_VERSION = "1.33"


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


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.cache
def _crd_files() -> dict[tuple[str, str], Path]:
    """(group, kind) -> CRD file, read from each file's head only (the files are large)."""
    out: dict[tuple[str, str], Path] = {}
    for path in sorted(CRD_DIR.rglob("*.yaml")):
        if "examples" in path.parts or "helm-templates" in path.parts:
            continue
        head = path.read_text(encoding="utf-8")[:4000]
        group = re.search(r"^  group: (\S+)$", head, re.M)
        kind = re.search(r"^    kind: (\S+)$", head, re.M)
        if group and kind:
            out[(group.group(1), kind.group(1))] = path
    return out


@functools.cache
def crd_schema(api_version: str, kind: str) -> dict[str, Any] | None:
    """The strict openAPIV3Schema of a CRD kind and version under ../shared/crds, or None."""
    group, _, version = api_version.partition("/")
    path = _crd_files().get((group, kind))
    if path is None:
        return None
    crd = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)  # CSafeLoader: a safe loader
    for v in crd["spec"]["versions"]:
        if v["name"] == version:
            schema = copy.deepcopy(v["schema"]["openAPIV3Schema"])
            schema["properties"]["metadata"] = {"type": "object"}
            return dict(strict(schema))
    return None


@functools.cache
def _validator(api_version: str, kind: str) -> jsonschema.protocols.Validator | None:
    schema = crd_schema(api_version, kind)
    if schema is None:
        return None
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)  # the schema is the CRD's own: not re-checked on every call


def validate(obj: dict[str, Any]) -> None:
    """Raise when `obj` does not match its CRD schema, or (core kinds) Kubernetes' own schema."""
    validator = _validator(obj["apiVersion"], obj["kind"])
    if validator is not None:
        validator.validate(obj)
        return
    if "." in obj["apiVersion"].split("/")[0]:
        raise LookupError(f"no CRD for {obj['apiVersion']} {obj['kind']} under {CRD_DIR}")
    kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
