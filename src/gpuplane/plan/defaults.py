"""The planner's defaults (`defaults.yaml`: design choices, each with why)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

import yaml


@lru_cache(maxsize=1)
def _defaults() -> dict[str, Any]:
    text = resources.files("gpuplane.plan").joinpath("defaults.yaml").read_text(encoding="utf-8")
    raw: dict[str, Any] = yaml.safe_load(text)
    return {name: entry["value"] for name, entry in raw.items()}


def default(name: str) -> Any:
    """A planner default from `defaults.yaml`."""
    return _defaults()[name]
