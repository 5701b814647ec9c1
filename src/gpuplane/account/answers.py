"""Checking what a Prometheus server answered, before anything uses it.

The HTTP API's answer (prometheus/web/api/v1/api.go, `response` and `QueryData`) is JSON:
`{"status": "success", "data": {"resultType": "vector"|"matrix"|"scalar"|"string", "result": ...}}`,
sample values as strings (`"1.5"`, `"NaN"`, `"+Inf"`) and timestamps as numbers. Anything else is
a `BadAnswer` whose reason says what was wrong; the client adds which query it was.

NaN samples mean "no value" (0/0, or an absent operand) and are dropped; a vector element whose
only sample is NaN disappears. Infinite samples are refused: none of gpuplane's queries can
produce one from exporter data, so an infinity means the data or the server is broken.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

Labels = dict[str, str]
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INFINITY = re.compile(r"[+-]?Inf")


class BadAnswer(Exception):
    """An answer that is not what the Prometheus HTTP API returns (the reason, without the query)."""


@dataclass
class Series:
    """One time series of a query result: its labels and (unix seconds, value) samples."""

    labels: Labels
    samples: list[tuple[float, float]] = field(default_factory=list)

    @property
    def key(self) -> tuple[tuple[str, str], ...]:
        """The series' labels, sorted: one key per series."""
        return tuple(sorted(self.labels.items()))

    @property
    def value(self) -> float:
        """The last sample's value (every series the parser returns has at least one)."""
        return self.samples[-1][1]


def decode(body: bytes) -> dict[str, Any]:
    """The JSON object of an answer body; `BadAnswer` for non-JSON, deep nesting or a non-object."""
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadAnswer(f"the answer is not JSON ({exc.__class__.__name__} at byte {_pos(exc)})") from None
    except RecursionError:
        raise BadAnswer("the answer's JSON is nested too deeply to be a Prometheus answer") from None
    if not isinstance(data, dict):
        raise BadAnswer(f"the answer is a JSON {type(data).__name__}, not an object")
    return data


def _pos(exc: Exception) -> int:
    return int(getattr(exc, "pos", getattr(exc, "start", 0)))


def _value(text: Any) -> float:
    if not isinstance(text, str):
        raise BadAnswer(f"a sample value is {type(text).__name__} {text!r:.40}, not a string")
    if text == "NaN":
        return math.nan
    if _INFINITY.fullmatch(text) or (_NUMBER.fullmatch(text) and math.isinf(float(text))):
        raise BadAnswer(f"a sample value is {text[:40]} (not finite)")
    if not _NUMBER.fullmatch(text):
        raise BadAnswer(f"a sample value is {text[:40]!r}, not a number")
    return float(text)


def _time(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadAnswer(f"a sample time is {value!r:.40}, not a finite number")
    return float(value)


def _sample(pair: Any) -> tuple[float, float]:
    if not isinstance(pair, list) or len(pair) != 2:
        raise BadAnswer(f"a sample is {type(pair).__name__} {pair!r:.60}, not [time, value]")
    return _time(pair[0]), _value(pair[1])


def _labels(item: dict[str, Any]) -> Labels:
    metric = item.get("metric", {})
    if not isinstance(metric, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in metric.items()
    ):
        raise BadAnswer("a series' `metric` is not a map of label names to strings")
    return dict(metric)


def _element(item: Any, kind: str) -> Series:
    if not isinstance(item, dict):
        raise BadAnswer(f"a {kind} element is {type(item).__name__}, not an object")
    labels = _labels(item)
    if kind == "matrix":
        values = item.get("values")
        if not isinstance(values, list):
            raise BadAnswer("a matrix series has no `values` list")
        samples = [_sample(pair) for pair in values]
    else:
        samples = [_sample(item.get("value"))]
    return Series(labels, [(t, v) for t, v in samples if not math.isnan(v)])


def result_series(body: dict[str, Any]) -> list[Series]:
    """The series of a successful query answer (`data.result`), checked; NaN samples dropped."""
    data = body.get("data")
    if not isinstance(data, dict):
        raise BadAnswer("the answer has no `data` object")
    kind, result = data.get("resultType"), data.get("result")
    if kind == "scalar":
        t, v = _sample(result)
        return [] if math.isnan(v) else [Series({}, [(t, v)])]
    if kind not in ("vector", "matrix"):
        raise BadAnswer(f"unexpected resultType {kind!r:.40} (expected vector, matrix or scalar)")
    if not isinstance(result, list):
        raise BadAnswer(f"the {kind} result is {type(result).__name__}, not a list")
    series = [_element(item, kind) for item in result]
    return [s for s in series if s.samples]


def error_text(body: dict[str, Any]) -> str:
    """`errorType: error` of a failed answer, shortened, for the message."""
    kind, detail = body.get("errorType", ""), body.get("error", "")
    text = f"{kind}: {detail}" if kind and detail else str(kind or detail or "no error given")
    return text[:300]
