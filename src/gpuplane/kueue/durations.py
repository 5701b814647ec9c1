"""Durations as people write them: '90s', '45m', '2h', '1d12h', '1.5h' (or plain seconds)."""

from __future__ import annotations

import re

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
