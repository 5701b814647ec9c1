"""Reading half-written Kubernetes objects safely: nested lookups, scalar coercion, counts.

Manifests in the wild are often incomplete or mistyped; every reader in gpuplane goes through
these helpers instead of indexing dicts directly, so a missing or wrong field is "absent".
"""

from __future__ import annotations

from typing import Any

from gpuplane.limits import limits

Path = tuple[str | int, ...]
"""A field path inside an object: mapping keys and list indexes."""


def get(data: Any, *path: str | int, default: Any = None) -> Any:
    """Safe nested lookup in dicts and lists; `default` when any step is missing or mistyped."""
    node = data
    for part in path:
        if isinstance(part, str) and isinstance(node, dict):
            if part not in node:
                return default
            node = node[part]
        elif isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node):
            node = node[part]
        else:
            return default
    return node


def as_dict(value: Any) -> dict[str, Any]:
    """`value` if it is a mapping, else an empty one (manifests are often half-written)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """`value` if it is a list, else an empty one."""
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    """A scalar as text (YAML may hand us ints and bools); '' for missing or non-scalars."""
    if value is None or isinstance(value, dict | list):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def as_int(value: Any, default: int) -> int:
    """An integer field (YAML int or digit string); `default` when absent or unreadable."""
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    text = as_str(value).strip()
    try:
        return int(text)
    except ValueError:
        return default


class FieldError(Exception):
    """A field an API server would refuse, at `path` of its object (explain makes it a located error)."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


#: int32, the type of every count field of the workload APIs (Job parallelism/completions, replicas).
INT32_MAX = 2**31 - 1


def count(value: Any, path: Path, default: int) -> int:
    """A count field (replicas, parallelism, completions, size) as the API server validates it:
    absent -> `default`; otherwise an integer (not a string, bool or float: the API's JSON decoder
    refuses them for an int32 field) that is not negative (apimachinery ValidateNonnegativeField)
    and at most `limits().pods_per_workload` (a larger count is refused before any list is built).
    Raises FieldError at `path`."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError(path, f"must be an integer, got {as_str(value)!r}"[:200])
    if value < 0:
        raise FieldError(path, f"must be greater than or equal to 0, got {value}")
    cap = min(limits().pods_per_workload, INT32_MAX)
    if value > cap:
        raise FieldError(path, f"{value} is more than the {cap:,} pods a workload may have (limits.yaml)")
    return value


def api_group(data: Any) -> str:
    """The API group of an object ('' for the core group)."""
    api = as_str(as_dict(data).get("apiVersion"))
    return api.split("/", 1)[0] if "/" in api else ""
