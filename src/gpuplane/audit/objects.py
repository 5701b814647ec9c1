"""Kubernetes objects as the audit sees them: data with source positions and identity.

Positions come from `gpuplane.yamlio` (1-based line and column of every key and value). Objects
read from a live cluster carry no positions; their findings have line and column `None`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuplane.workloads.fields import Path, as_dict, as_list, as_str, get
from gpuplane.yamlio import LocDict, LocList

__all__ = ["K8sObject", "Path", "Pos", "as_dict", "as_list", "as_str", "get", "position"]

Pos = tuple[int | None, int | None]


def position(root: Any, path: Path, *, key: bool = True) -> Pos:
    """Line and column of a field: of its key when `key` (and it is a mapping key), else its value.

    Falls back to the deepest existing ancestor, so a finding about a missing field points at the
    mapping where it should be.
    """
    node = root
    best: tuple[int, int] | None = getattr(root, "pos", None)
    for index, part in enumerate(path):
        last = index == len(path) - 1
        if isinstance(node, LocDict) and isinstance(part, str) and part in node:
            best = (node.key_at(part) if (key and last) else node.value_at(part)) or best
            node = node[part]
        elif isinstance(node, LocList) and isinstance(part, int) and 0 <= part < len(node):
            best = node.item_at(part) or best
            node = node[part]
        else:
            break
    if best is None or best == (0, 0):
        return (None, None)
    return best


@dataclass
class K8sObject:
    """One Kubernetes (or Kubernetes-shaped) object from a file, stdin or the cluster."""

    data: dict[str, Any]
    file: str
    line: int | None = None
    live: bool = False
    kind: str = field(init=False)
    api_version: str = field(init=False)
    name: str = field(init=False)
    namespace: str = field(init=False)

    def __post_init__(self) -> None:
        self.kind = as_str(self.data.get("kind"))
        self.api_version = as_str(self.data.get("apiVersion"))
        meta = as_dict(self.data.get("metadata"))
        self.name = as_str(meta.get("name")) or as_str(meta.get("generateName"))
        self.namespace = as_str(meta.get("namespace"))

    @property
    def group(self) -> str:
        """API group ('' for core)."""
        return self.api_version.split("/", 1)[0] if "/" in self.api_version else ""

    @property
    def labels(self) -> dict[str, str]:
        """The object's labels, values as strings."""
        return {str(k): as_str(v) for k, v in as_dict(get(self.data, "metadata", "labels")).items()}

    @property
    def annotations(self) -> dict[str, str]:
        """The object's annotations, values as strings."""
        return {str(k): as_str(v) for k, v in as_dict(get(self.data, "metadata", "annotations")).items()}

    def pos(self, path: Path, *, key: bool = True) -> Pos:
        """Position of a field of this object (see `position`)."""
        if self.live:
            return (None, None)
        line, column = position(self.data, path, key=key)
        if line is None and self.line is not None:
            return (self.line, 1)
        return (line, column)

    def ident(self) -> str:
        """`Kind namespace/name` for messages."""
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind} {where}"
