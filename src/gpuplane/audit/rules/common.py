"""Helpers shared by the rule modules: building located findings."""

from __future__ import annotations

from gpuplane.audit.bundle import Bundle, Workload
from gpuplane.audit.model import Finding
from gpuplane.audit.objects import K8sObject, Path
from gpuplane.audit.pools import Pool


def at(rule: str, b: Bundle, obj: K8sObject, path: Path, message: str, *, key: bool = True) -> Finding:
    """A finding about `obj`, located at the field `path` (severity is filled in by the engine)."""
    line, column = obj.pos(path, key=key)
    return Finding(rule, "", obj.kind, b.ns_of(obj), obj.name, obj.file, line, column, message, subject=obj)


def at_workload(rule: str, b: Bundle, w: Workload, path: Path, message: str, *, key: bool = True) -> Finding:
    return at(rule, b, w.obj, path, message, key=key)


def at_pool(rule: str, pool: Pool, field: str, message: str, *, key: bool = True) -> Finding:
    """A finding about a node pool, located at one of its named fields."""
    line, column = pool.pos(field, key=key)
    return Finding(rule, "", pool.kind, "", pool.name, pool.file, line, column, message, subject=pool)
