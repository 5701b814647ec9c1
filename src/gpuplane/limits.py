"""The limits gpuplane enforces on what it reads, loaded from `limits.yaml` (values with reasons).

Each limit bounds memory or time an input could otherwise drive without end. They are checked at
load time and exceeding one is a located `InputError`; `gpuplane --help`, the README "Guarantees"
section and docs state them. Code reads them as `limits().yaml_depth` etc., never as literals.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache
from importlib import resources
from typing import Any

import yaml

__all__ = ["Limit", "Limits", "describe", "limits", "markdown_table"]


@dataclass(frozen=True)
class Limit:
    """One limit as written in the data file: value, unit, what it applies to and why."""

    name: str
    value: int
    unit: str
    applies_to: str
    why: str


@dataclass(frozen=True)
class Limits:
    """Every limit's value (see `limits.yaml` for the reasons)."""

    input_bytes: int
    piped_trace_bytes: int
    yaml_depth: int
    yaml_nodes_per_input: int
    documents_per_input: int
    int_digits: int
    quantity_max: int
    sharing_replicas: int
    nodes_per_pool: int
    pods_per_workload: int
    gpus_per_trace_row: int
    simulated_time_s: int
    job_run_s: int
    node_losses_per_node_hour: int
    interference_factor: int
    plan_designs: int
    plan_seeds: int
    ray_num_cpus: int
    api_connect_timeout: int
    api_read_timeout: int
    api_deadline: int


def _raw() -> dict[str, Any]:
    text = resources.files("gpuplane").joinpath("limits.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


@cache
def describe() -> tuple[Limit, ...]:
    """Every limit with its unit and reason, in the order of the data file."""
    out = []
    for name, entry in _raw().items():
        out.append(
            Limit(name, int(entry["value"]), str(entry["unit"]), str(entry["applies_to"]), str(entry["why"]))
        )
    return tuple(out)


@cache
def limits() -> Limits:
    """The limit values; a data file that lacks one or has an extra one is a packaging bug."""
    values = {limit.name: limit.value for limit in describe()}
    expected = {f.name for f in fields(Limits)}
    if set(values) != expected:
        raise RuntimeError(f"limits.yaml does not match Limits: {sorted(set(values) ^ expected)}")
    return Limits(**values)


def _shown(limit: Limit) -> str:
    if limit.unit == "bytes":
        return f"{limit.value // 2**30} GiB" if limit.value >= 2**30 else f"{limit.value // 2**20} MiB"
    if limit.value == 2**63 - 1:
        return "2^63-1"
    return f"{limit.value:,}"


def markdown_table() -> str:
    """The limits as the README "Guarantees" section shows them (a test keeps the two equal)."""
    rows = ["| limit | value | applies to |", "|---|---|---|"]
    for limit in describe():
        rows.append(
            f"| `{limit.name}` | {_shown(limit)} {limit.unit if limit.unit != 'bytes' else ''}".rstrip()
            + f" | {limit.applies_to} |"
        )
    return "\n".join(rows) + "\n"
