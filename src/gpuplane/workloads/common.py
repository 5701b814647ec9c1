"""Helpers the kind modules share: object metadata, one-Workload-per-object naming, conditions."""

from __future__ import annotations

from typing import Any

from gpuplane.workloads.fields import as_dict, as_list, as_str, get
from gpuplane.workloads.model import PodSetSpec, WorkloadSpec
from gpuplane.workloads.names import workload_name

GENERATED = "<generated>"
"""Stands for the random suffix the API server appends to a `generateName`."""


def object_name(data: dict[str, Any]) -> str:
    """`metadata.name`, or `<generateName><generated>` for objects named by the API server."""
    meta = as_dict(data.get("metadata"))
    name = as_str(meta.get("name"))
    if name:
        return name
    generate = as_str(meta.get("generateName"))
    return f"{generate}{GENERATED}" if generate else ""


def uid(data: dict[str, Any]) -> str:
    """The object's metadata.uid ('' when it has none: not yet created)."""
    return as_str(get(data, "metadata", "uid"))


def one_workload(
    data: dict[str, Any], kind: str, group: str, pod_sets: list[PodSetSpec]
) -> list[WorkloadSpec]:
    """The single Workload most integrations create, named `<kind>-<name>-<hash>`."""
    name = object_name(data)
    note = ""
    if GENERATED in name:
        note = "the object is named by the API server (generateName); the Workload name follows it"
    elif not uid(data):
        note = "the hash suffix depends on the UID the API server assigns when the object is created"
    return [WorkloadSpec(workload_name(name, uid(data), kind, group), pod_sets, note)]


def condition_true(data: dict[str, Any], *types: str) -> bool:
    """Whether `status.conditions` has one of `types` with status True."""
    for c in as_list(get(data, "status", "conditions")):
        if isinstance(c, dict) and as_str(c.get("type")) in types and as_str(c.get("status")) == "True":
            return True
    return False


def flag(value: Any) -> bool:
    """A YAML boolean field that is true (`true` or the string "true")."""
    return value is True or as_str(value).lower() == "true"
