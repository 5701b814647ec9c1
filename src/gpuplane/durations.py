"""Durations as people write them: '90s', '45m', '2h', '1d12h', '1.5h'. One grammar for every
option and annotation that takes a duration (account's --since/--step/--timeout..., explain's
--assume-runtime, the expected-runtime annotation).

The units are Prometheus' s, m, h, d and w, with its meanings (a day is 24 h, a week 7 d:
prometheus/common model/time.go `ParseDuration` @06628cd7). Unlike Prometheus, a part may carry
a fraction ('1.5h') and parts may come in any order; `y` and `ms` are not taken. A number has at
most 15 digits before the point and 9 after, so no text overflows a float. What a caller does
with a value that is not a duration, zero or too long is its own (a usage error naming the option
in account, an annotation ignored in explain).
"""

from __future__ import annotations

import re

#: Seconds per unit.
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_NUMBER = r"\d{1,15}(?:\.\d{1,9})?"
_WHOLE = re.compile(rf"(?:{_NUMBER}[smhdw])+")
_PART = re.compile(rf"({_NUMBER})([smhdw])")
_BARE = re.compile(_NUMBER)


def parse_seconds(text: str, *, bare_seconds: bool = False) -> float | None:
    """The seconds `text` spells (surrounding blanks ignored), or None when it is not a duration.

    `bare_seconds`: a number without a unit is seconds ('90'); otherwise every number needs its
    unit. Zero ('0s') is a duration: whether it is allowed is the caller's decision.
    """
    value = text.strip()
    if bare_seconds and _BARE.fullmatch(value):
        return float(value)
    if not _WHOLE.fullmatch(value):
        return None
    return sum(float(n) * UNITS[u] for n, u in _PART.findall(value))


def format_duration(seconds: float) -> str:
    """'2h', '1h30m', '45m', '20s': the largest units, at most two of them (whole seconds)."""
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    parts = []
    for unit in ("d", "h", "m"):
        size = UNITS[unit]
        if s >= size:
            parts.append(f"{s // size}{unit}")
            s %= size
        if len(parts) == 2:
            break
    return "".join(parts)
