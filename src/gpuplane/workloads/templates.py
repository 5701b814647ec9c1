"""Building blocks for the kind readers: a pod template at a path, inline pod specs, generic search."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpuplane.workloads.fields import Path, as_dict, as_str, get
from gpuplane.workloads.model import Container, PodTemplate

MAX_GENERIC_DEPTH = 8


def containers_of(spec: dict[str, Any], path: Path) -> list[Container]:
    """Init containers then containers of a pod spec, each with its path."""
    out: list[Container] = []
    for key, init in (("initContainers", True), ("containers", False)):
        items = spec.get(key)
        for i, c in enumerate(items if isinstance(items, list) else []):
            if isinstance(c, dict):
                out.append(Container(c, (*path, key, i), init))
    return out


def template_at(data: dict[str, Any], path: Path, role: str = "") -> PodTemplate | None:
    """The pod template (a mapping with `metadata` and `spec`) at `path`, or None."""
    tmpl = get(data, *path)
    if not isinstance(tmpl, dict):
        return None
    spec = tmpl.get("spec")
    if not isinstance(spec, dict):
        return None
    t = PodTemplate(spec=spec, path=(*path, "spec"), meta=as_dict(tmpl.get("metadata")), role=role)
    t.containers = containers_of(spec, t.path)
    return t


def inline_spec(spec: dict[str, Any], path: Path, meta: dict[str, Any], role: str = "") -> PodTemplate:
    """A pod spec embedded directly (no `template:` wrapper), as KServe and Pods have."""
    t = PodTemplate(spec=spec, path=path, meta=meta, role=role)
    t.containers = containers_of(spec, path)
    return t


def present(*templates: PodTemplate | None) -> list[PodTemplate]:
    """The templates that were found."""
    return [t for t in templates if t is not None]


def generic(data: dict[str, Any], node: Any, path: Path, depth: int = 0) -> Iterator[PodTemplate]:
    """Any `template: {spec: {containers: [...]}}` nested in an unknown kind (and Argo-style steps)."""
    if depth > MAX_GENERIC_DEPTH or not isinstance(node, dict):
        return
    for key in sorted(node):
        child = node[key]
        if (
            key == "template"
            and isinstance(child, dict)
            and isinstance(get(child, "spec", "containers"), list)
        ):
            t = template_at(data, (*path, key))
            if t:
                yield t
        elif key in ("container", "script") and isinstance(child, dict) and "image" in child:
            # Argo Workflows-style step: one container next to pod-level fields.
            t = PodTemplate(
                spec=node, path=path, meta=as_dict(node.get("metadata")), role=as_str(node.get("name"))
            )
            t.containers = [Container(child, (*path, key))]
            yield t
        elif isinstance(child, dict):
            yield from generic(data, child, (*path, key), depth + 1)
        elif isinstance(child, list):
            for i, item in enumerate(child[:64]):
                yield from generic(data, item, (*path, key, i), depth + 1)
