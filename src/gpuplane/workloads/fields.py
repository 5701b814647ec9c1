"""Reading half-written Kubernetes objects safely: nested lookups and scalar coercion.

Manifests in the wild are often incomplete or mistyped; every reader in gpuplane goes through
these helpers instead of indexing dicts directly, so a missing or wrong field is "absent".
"""

from __future__ import annotations

from typing import Any

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


def api_group(data: Any) -> str:
    """The API group of an object ('' for the core group)."""
    api = as_str(as_dict(data).get("apiVersion"))
    return api.split("/", 1)[0] if "/" in api else ""
