"""Kubernetes resource quantities as exact integers in milli-units: the one quantity grammar.

Every engine reads quantities here (kueue, explain, audit, workloads, render), so a request `1`
and a limit `1000m` are one value everywhere. The grammar is apimachinery's `resource.Quantity`
(kubernetes/apimachinery pkg/api/resource/quantity.go and suffix.go, release-1.33):

    <quantity> ::= <signedNumber><suffix>
    <number>   ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
    <suffix>   ::= <binarySI> (Ki Mi Gi Ti Pi Ei) | <decimalExponent> (e/E and an integer)
                 | <decimalSI> (n u m "" k M G T P E)

A YAML/JSON number (`1`, `1.5`, `1e3`) is read as its decimal text, as the API server's JSON
decoder does.

`500m` -> 500, `2` -> 2000, `16Gi` -> 16 * 2**30 * 1000. Like `resource.Quantity.MilliValue()`
in apimachinery, fractions below one milli-unit round up. Python integers are unbounded, so
sums never overflow. A quantity is at most 2^63-1 units (apimachinery's quantity.go: "no quantity
may represent a number greater than 2^63-1 in magnitude"; `limits().quantity_max`), so every
value also converts to a float without overflow.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_CEILING, Decimal, DecimalException, InvalidOperation

from gpuplane.limits import limits

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal(10**3),
    "M": Decimal(10**6),
    "G": Decimal(10**9),
    "T": Decimal(10**12),
    "P": Decimal(10**15),
    "E": Decimal(10**18),
}
_PATTERN = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$")


_MAX_MILLI = limits().quantity_max * 1000


class QuantityError(ValueError):
    """A text that is not a Kubernetes quantity."""


class QuantityRangeError(QuantityError):
    """A quantity that reads as a number but is not finite or exceeds 2^63-1 (`limits().quantity_max`)."""


def parse_quantity(value: object) -> int:
    """Parse a quantity (`"500m"`, `"16Gi"`, `1.5`, `2`) into milli-units; raise QuantityError."""
    if isinstance(value, bool) or value is None:
        raise QuantityError(f"invalid quantity {value!r}")
    if isinstance(value, int):
        if not 0 <= value <= _MAX_MILLI // 1000:
            error = QuantityRangeError if value > 0 else QuantityError
            raise error(f"quantity {value!r} is out of range (0 to 2^63-1)")
        return value * 1000
    if isinstance(value, float) and value in (math.inf, -math.inf):
        raise QuantityRangeError(f"{value!r} is larger than a Kubernetes quantity can be (2^63-1)")
    text = str(value).strip()
    match = _PATTERN.match(text)
    if match is None:
        raise QuantityError(f"invalid quantity {value!r}")
    number, suffix = match.group(1), match.group(2) or ""
    try:
        base = Decimal(number)
    except InvalidOperation as exc:  # pragma: no cover - the pattern already checked it
        raise QuantityError(f"invalid quantity {value!r}") from exc
    try:
        if suffix in _BINARY:
            scaled = base * _BINARY[suffix]
        elif suffix in _DECIMAL:
            scaled = base * _DECIMAL[suffix]
        else:
            scaled = base * (Decimal(10) ** int(suffix[1:]))
        milli = (scaled * 1000).to_integral_value(rounding=ROUND_CEILING)
    except DecimalException as exc:  # an exponent beyond what Decimal represents
        raise QuantityRangeError(f"quantity {value!r} is out of range (0 to 2^63-1)") from exc
    if milli < 0:
        raise QuantityError(f"negative quantity {value!r}")
    if milli > _MAX_MILLI:
        raise QuantityRangeError(f"quantity {value!r} is larger than a Kubernetes quantity can be (2^63-1)")
    return int(milli)


def quantity_value(value: object) -> float | None:
    """A quantity as a number of units (`"500m"` -> 0.5), or None when it is not a non-negative
    quantity; raises QuantityRangeError past 2^63-1 (a value no API server would store)."""
    try:
        return parse_quantity(value) / 1000
    except QuantityRangeError:
        raise
    except QuantityError:
        return None


def format_quantity(milli: int) -> str:
    """Render milli-units the way people write them: `500m`, `8`, `16Gi`, `1.5`."""
    if milli % 1000:
        if milli % 100 == 0 and abs(milli) < 10**6:
            return str(Decimal(milli) / 1000)
        return f"{milli}m"
    units = milli // 1000
    if units and units % 2**30 == 0:
        return f"{units // 2**30}Gi"
    if units >= 2**20 and units % 2**20 == 0:
        return f"{units // 2**20}Mi"
    return str(units)
