"""Durations as people write them: '90s', '45m', '2h', '1d12h', '1.5h' (or plain seconds)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gpuplane.vocab import ANNOTATION_EXPECTED_RUNTIME

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_WHOLE = re.compile(r"(?:\d+(?:\.\d+)?[smhdw])+")
_PART = re.compile(r"(\d+(?:\.\d+)?)([smhdw])")


def parse_duration(text: str) -> float | None:
    """Seconds, or None when `text` is not a positive duration."""
    value = text.strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", value):
        seconds = float(value)
    elif _WHOLE.fullmatch(value):
        seconds = sum(float(n) * UNITS[u] for n, u in _PART.findall(value))
    else:
        return None
    return seconds if seconds > 0 else None


def format_duration(seconds: float) -> str:
    """'2h', '1h30m', '45m', '20s': the largest units, at most two of them."""
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if s >= size:
            parts.append(f"{s // size}{unit}")
            s %= size
        if len(parts) == 2:
            break
    return "".join(parts)


def runtime_hint(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> tuple[float, str] | None:
    """A Workload's declared runtime: gpuplane's expected-runtime annotation, else Kueue's
    `spec.maximumExecutionTimeSeconds`; (seconds, where it comes from) or None."""
    annotations = meta.get("annotations")
    text = str(annotations.get(ANNOTATION_EXPECTED_RUNTIME) or "") if isinstance(annotations, Mapping) else ""
    seconds = parse_duration(text) if text else None
    if seconds is not None:
        return seconds, f"{ANNOTATION_EXPECTED_RUNTIME} {text}"
    limit = spec.get("maximumExecutionTimeSeconds")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        return float(limit), f"maximumExecutionTimeSeconds {limit}"
    return None
