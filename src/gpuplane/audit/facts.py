"""Loaders for the audit's data files (CVE table, CUDA driver table, defaults), cached.

The facts live in `gpuplane/audit/data/` with their sources, so updating them is a data change.
"""

from __future__ import annotations

import csv
import functools
import io
import re
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

import yaml


def _text(name: str) -> str:
    return files("gpuplane.audit.data").joinpath(name).read_text(encoding="utf-8")


@functools.cache
def defaults() -> dict[str, Any]:
    """The defaults file as a plain mapping."""
    data = yaml.safe_load(_text("defaults.yaml"))
    assert isinstance(data, dict)
    return data


@dataclass(frozen=True)
class Cve:
    """One CVE with the first fixed version of each component it affects."""

    id: str
    cvss: float
    summary: str
    source: str
    fixed: dict[str, tuple[int, ...]]


def version_tuple(text: str) -> tuple[int, ...] | None:
    """Leading dotted number of a version or image tag: 'v1.17.3-ubuntu20.04' -> (1, 17, 3)."""
    m = re.match(r"^v?(\d+(?:\.\d+)*)", text.strip())
    if not m:
        return None
    return tuple(int(p) for p in m.group(1).split("."))


@functools.cache
def cves() -> tuple[Cve, ...]:
    """Known CVEs of the NVIDIA Container Toolkit and GPU Operator."""
    data = yaml.safe_load(_text("cves.yaml"))
    out = []
    for row in data["cves"]:
        fixed = {k: version_tuple(str(v)) or () for k, v in row["fixed"].items()}
        out.append(Cve(row["id"], float(row["cvss"]), row["summary"], row["source"], fixed))
    return tuple(out)


def affected(component: str, version: tuple[int, ...]) -> list[Cve]:
    """CVEs whose fix for `component` is newer than `version`."""
    return [c for c in cves() if component in c.fixed and version < c.fixed[component]]


@functools.cache
def cuda_min_driver() -> dict[tuple[int, int], tuple[int, ...]]:
    """Minimum Linux driver per CUDA major.minor (the GA row of NVIDIA's Table 3)."""
    lines = [ln for ln in _text("cuda_driver.csv").splitlines() if ln and not ln.startswith("#")]
    table: dict[tuple[int, int], tuple[int, ...]] = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        m = re.match(r"CUDA (\d+)\.(\d+)", row["cuda_toolkit"])
        driver = version_tuple(row["linux_x86_64_min_driver"])
        if not m or driver is None:
            continue
        key = (int(m.group(1)), int(m.group(2)))
        # The smallest driver listed for a major.minor is the GA one.
        if key not in table or driver < table[key]:
            table[key] = driver
    return table


def driver_for_cuda(cuda: tuple[int, int]) -> tuple[int, ...] | None:
    """The minimum driver for a CUDA version; for versions newer than the table, None."""
    return cuda_min_driver().get(cuda)


@functools.cache
def minor_version_min_drivers() -> dict[int, tuple[int, ...]]:
    """The oldest driver each CUDA major runs on through minor-version compatibility."""
    data = yaml.safe_load(_text("cuda_compat.yaml"))
    return {int(k): version_tuple(str(v)) or () for k, v in data["minor_version_min_driver"].items()}


def driver_cuda(driver: tuple[int, ...]) -> tuple[int, int] | None:
    """The newest CUDA major.minor whose toolkit driver (Table 3) is at most `driver`: what the
    driver reports as its CUDA version. None for a driver older than the table."""
    fits = [cuda for cuda, need in cuda_min_driver().items() if need <= driver]
    return max(fits) if fits else None


@dataclass(frozen=True)
class NgcImage:
    """One NGC image release: its CUDA version and where that was read."""

    repository: str
    release: str
    variant: str
    cuda: tuple[int, ...]
    source: str


@functools.cache
def ngc_images() -> tuple[NgcImage, ...]:
    """NGC framework and inference image releases with their CUDA versions (`ngc_images.csv`)."""
    lines = [ln for ln in _text("ngc_images.csv").splitlines() if ln and not ln.startswith("#")]
    return tuple(
        NgcImage(
            row["repository"], row["release"], row["variant"], version_tuple(row["cuda"]) or (), row["source"]
        )
        for row in csv.DictReader(io.StringIO("\n".join(lines)))
    )


_NGC_TAG = re.compile(r"^(\d{2}\.\d{2})(?:-(.+))?$")


def ngc_cuda(repository: str, tag: str) -> NgcImage | None:
    """The listed NGC release an image reference names (`24.05-py3`), or None."""
    m = _NGC_TAG.match(tag)
    if not m:
        return None
    release, variant = m.group(1), m.group(2) or ""
    for image in ngc_images():
        if image.repository == repository and image.release == release and image.variant in ("*", variant):
            return image
    return None
