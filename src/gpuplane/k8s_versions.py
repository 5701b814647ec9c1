"""Kubernetes version strings compared as numbers (`"1.34" >= "1.9"`; GKE patch suffixes ignored)."""

from __future__ import annotations


def minor_tuple(version: str) -> tuple[int, ...]:
    """`"1.27.7-gke.1088000"` -> `(1, 27)`: major and minor only."""
    return tuple(int(p) for p in version.lstrip("v").split("-", 1)[0].split(".")[:2])


def version_at_least(version: str, minimum: str) -> bool:
    """Whether Kubernetes `version` is at least `minimum`, by major and minor."""
    return minor_tuple(version) >= minor_tuple(minimum)
