"""Load a platform spec from YAML: types first (pydantic), then catalog resolution and semantic
checks. Every problem is reported with file:line:column and the field path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gpuplane.errors import InputError, Problem
from gpuplane.inputs import display_name, read_text
from gpuplane.spec.checks import check_spec
from gpuplane.spec.models import PlatformSpec
from gpuplane.spec.pricing import cpu_price_warnings, declared_cost_problems, price_problems
from gpuplane.spec.purchase import purchase_problems
from gpuplane.spec.resolve import resolve_spec
from gpuplane.yamlio import key_position, load_one, locate

PathParts = tuple[str | int, ...]


def format_path(parts: PathParts) -> str:
    """`("nodePools", 2, "sharing", "layout")` -> `nodePools[2].sharing.layout`."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


def problem_at(
    file: str, raw: Any, parts: PathParts, message: str, *, severity: str = "error", at_key: bool = False
) -> Problem:
    """A Problem located at the YAML node of `parts` (or its key, or the nearest existing parent)."""
    pos = key_position(raw, parts) if at_key else locate(raw, parts)
    line, column = pos if pos else (None, None)
    return Problem(
        file=file, line=line, column=column, path=format_path(parts), message=message, severity=severity
    )


def _validation_problems(file: str, raw: Any, exc: ValidationError) -> list[Problem]:
    problems = []
    for err in exc.errors():
        parts: PathParts = tuple(p for p in err["loc"] if isinstance(p, str | int))
        extra = err["type"] == "extra_forbidden"
        message = "unknown field" if extra else err["msg"]
        if err["type"] == "missing":
            message = "required field is missing"
        elif err["type"] == "literal_error":
            message = f"{err['msg']} (got {err.get('input')!r})"
        elif err["type"] == "value_error" and "error" in err.get("ctx", {}):
            message = str(err["ctx"]["error"])  # our validators' own sentence, without "Value error, "
        problems.append(problem_at(file, raw, parts, message, at_key=extra))
    return problems


def parse_spec(text: str, file: str, *, priced: bool = False) -> tuple[PlatformSpec, list[Problem]]:
    """Parse, type-check, resolve against the catalog and check a spec text.

    With `priced` (the commands that cost: `spec validate`, `simulate`, `plan`, `account`), every
    GPU pool must have a price (`gpuplane.spec.pricing`). Returns the spec and its warnings;
    raises InputError with every error found.
    """
    raw = load_one(text, file)
    if not isinstance(raw, dict):
        raise InputError.single(file, "a platform spec is a YAML mapping", line=1, column=1)
    try:
        spec = PlatformSpec.model_validate(raw)
    except ValidationError as exc:
        raise InputError(_validation_problems(file, raw, exc)) from None
    problems = resolve_spec(spec, lambda parts, msg: problem_at(file, raw, parts, msg))
    problems += check_spec(spec, lambda parts, msg, sev: problem_at(file, raw, parts, msg, severity=sev))
    problems += purchase_problems(spec, lambda parts, msg: problem_at(file, raw, parts, msg), priced=priced)
    if priced and not [p for p in problems if p.severity == "error"]:
        problems += price_problems(spec, lambda parts, msg: problem_at(file, raw, parts, msg))
        problems += declared_cost_problems(spec, lambda parts, msg: problem_at(file, raw, parts, msg))
        problems += cpu_price_warnings(
            spec, lambda parts, msg: problem_at(file, raw, parts, msg, severity="warning")
        )
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise InputError(errors)
    return spec, [p for p in problems if p.severity != "error"]


def load_spec_with_warnings(path: Path, *, priced: bool = False) -> tuple[PlatformSpec, list[Problem]]:
    """Load a spec file; returns the spec and warnings (errors raise InputError)."""
    return parse_spec(read_text(path), display_name(path), priced=priced)


def load_spec(path: Path, *, priced: bool = False) -> PlatformSpec:
    """Load and check a platform spec file. Raises InputError (exit code 2) on bad input; with
    `priced`, also when a GPU pool has no price."""
    return load_spec_with_warnings(path, priced=priced)[0]
