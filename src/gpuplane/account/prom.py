"""A small client for the Prometheus HTTP API (`/api/v1/query`, `/api/v1/query_range`).

Errors become `PromError` (an `InputError`, so the CLI prints them and exits 2) with the server
URL shown *without* credentials: user:password in the URL and bearer tokens are never printed.
Long range queries are split into pages that stay under Prometheus's 11,000-points-per-series
limit and merged back per label set.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from gpuplane.errors import InputError, Problem

#: Prometheus refuses range queries with more than 11,000 points per series (api.go); stay below.
MAX_POINTS_PER_QUERY = 10_000
#: Resolutions tried by `choose_step`, smallest first (seconds).
STEPS = (15, 30, 60, 120, 300, 600, 900, 1800, 3600)

Labels = dict[str, str]


class PromError(InputError):
    """Prometheus could not be reached or refused a query."""


def redact_url(url: str) -> str:
    """The URL with any user:password removed, safe to print."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, f"***@{host}", parts.path, parts.query, parts.fragment))


def choose_step(window_s: float, max_points: int = 21_000, minimum: float = 30.0) -> float:
    """A round resolution giving at most `max_points` samples over the window (>= `minimum`)."""
    for step in STEPS:
        if step >= minimum and window_s / step <= max_points:
            return float(step)
    return float(max(STEPS[-1], math.ceil(window_s / max_points)))


@dataclass
class Series:
    """One time series of a query result: its labels and (unix seconds, value) samples."""

    labels: Labels
    samples: list[tuple[float, float]] = field(default_factory=list)

    @property
    def key(self) -> tuple[tuple[str, str], ...]:
        return tuple(sorted(self.labels.items()))


class PromClient:
    """Read-only access to one Prometheus server."""

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = 120.0,
        bearer_token: str | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.shown_url = redact_url(self.url)
        headers = {"Authorization": f"Bearer {bearer_token}"} if bearer_token else {}
        self._http = httpx.Client(timeout=timeout_s, headers=headers, transport=transport)
        self.queries = 0

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> PromClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _error(self, message: str, query: str = "") -> PromError:
        path = f"query {query}" if query else ""
        return PromError([Problem(file=self.shown_url, line=None, column=None, path=path, message=message)])

    def _get(self, endpoint: str, params: Mapping[str, str]) -> Any:
        """GET an API endpoint and return `data`; every failure becomes a PromError."""
        self.queries += 1
        query = params.get("query", "")
        try:
            target = f"{self.url}/api/v1/{endpoint}"
            response = self._http.post(target, data=dict(params)) if params else self._http.get(target)
        except httpx.TimeoutException:
            raise self._error("Prometheus did not answer in time (timeout)", query) from None
        except httpx.HTTPError as exc:
            reason = type(exc).__name__
            raise self._error(f"cannot reach Prometheus ({reason}); check --prometheus", query) from None
        try:
            body = response.json()
        except ValueError:
            raise self._error(
                f"HTTP {response.status_code}: the answer is not Prometheus API JSON", query
            ) from None
        if not isinstance(body, dict) or body.get("status") != "success":
            detail = body.get("error", "") if isinstance(body, dict) else ""
            kind = body.get("errorType", "") if isinstance(body, dict) else ""
            raise self._error(
                f"query failed (HTTP {response.status_code} {kind}): {detail}".rstrip(": "), query
            )
        return body.get("data", {})

    def instant(self, query: str, at: float) -> list[Series]:
        """Evaluate `query` at one time; vector results become one-sample series."""
        data = self._get("query", {"query": query, "time": _fmt(at)})
        return _parse_result(data)

    def range(self, query: str, start: float, end: float, step: float) -> list[Series]:
        """Evaluate `query` from start to end every `step` seconds, paging long windows."""
        if end < start:
            raise self._error("the window ends before it starts", query)
        merged: dict[tuple[tuple[str, str], ...], Series] = {}
        page = step * MAX_POINTS_PER_QUERY
        page_start = start
        while page_start <= end:
            page_end = min(end, page_start + page - step)
            params = {"query": query, "start": _fmt(page_start), "end": _fmt(page_end), "step": _fmt(step)}
            for series in _parse_result(self._get("query_range", params)):
                target = merged.setdefault(series.key, Series(series.labels))
                target.samples.extend(series.samples)
            page_start = page_end + step
        return [merged[k] for k in sorted(merged)]

    def build_info(self) -> dict[str, str]:
        """The server's build information (used to check it is reachable and speaks the API)."""
        data = self._get("status/buildinfo", {})
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _fmt(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _parse_result(data: Any) -> list[Series]:
    """Turn `data` of a query answer (vector, matrix or scalar) into series; NaN samples are dropped."""
    kind = data.get("resultType") if isinstance(data, dict) else None
    result = data.get("result", []) if isinstance(data, dict) else []
    out: list[Series] = []
    if kind == "scalar":
        return [Series({}, [(float(result[0]), float(result[1]))])]
    for item in result:
        labels = {str(k): str(v) for k, v in item.get("metric", {}).items()}
        if kind == "matrix":
            samples = [(float(t), float(v)) for t, v in item.get("values", [])]
        else:
            t, v = item.get("value", (0, "NaN"))
            samples = [(float(t), float(v))]
        out.append(Series(labels, [(t, v) for t, v in samples if not math.isnan(v)]))
    return out
