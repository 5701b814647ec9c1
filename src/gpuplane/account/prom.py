"""A small, careful client for the Prometheus HTTP API (`/api/v1/query`, `/api/v1/query_range`).

- Every failure is a `PromError` (an `UpstreamError`: exit 3) that names the server with its
  credentials hidden and the query it was running.
- One overall deadline per client (`deadline_s`): each request gets what is left of it, and a
  body still arriving when it passes is abandoned.
- Answers larger than `max_answer_bytes` are refused while they stream in, before they are parsed.
- Long range queries are split into pages under Prometheus's 11,000-points-per-series limit
  (web/api/v1/api.go) and merged back per label set.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from gpuplane.account.answers import BadAnswer, Series, decode, error_text, result_series
from gpuplane.account.promurl import check_url, redact_text, redact_url
from gpuplane.errors import UpstreamError

#: Prometheus refuses range queries with more than 11,000 points per series (api.go); stay below.
MAX_POINTS_PER_QUERY = 10_000
#: Resolutions tried by `choose_step`, smallest first (seconds).
STEPS = (15, 30, 60, 120, 300, 600, 900, 1800, 3600)
#: The largest answer read: a week of a 1,000-GPU cluster needs under 16 MiB per query, and a
#: parsed answer takes about ten times its size in memory.
MAX_ANSWER_BYTES = 64 * 1024 * 1024
_QUERY_SHOWN = 160


class PromError(UpstreamError):
    """Prometheus could not be reached, took too long, refused a query or answered garbage."""


def choose_step(window_s: float, max_points: int = 21_000, minimum: float = 30.0) -> float:
    """A round resolution giving at most `max_points` samples over the window (>= `minimum`)."""
    for step in STEPS:
        if step >= minimum and window_s / step <= max_points:
            return float(step)
    return float(max(STEPS[-1], math.ceil(window_s / max_points)))


def _shorten(query: str) -> str:
    text = " ".join(query.split())
    return text if len(text) <= _QUERY_SHOWN else text[: _QUERY_SHOWN - 1] + "…"


class PromClient:
    """Read-only access to one Prometheus server within one deadline."""

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = 60.0,
        deadline_s: float | None = None,
        bearer_token: str | None = None,
        transport: httpx.BaseTransport | None = None,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.url = check_url(url)
        self.shown_url = redact_url(self.url)
        self.timeout_s = timeout_s
        self.deadline_s = deadline_s
        self._clock = clock
        self.deadline = clock() + deadline_s if deadline_s is not None else math.inf
        self.max_answer_bytes = max_answer_bytes
        self._secrets = (self.url, bearer_token or "")
        headers = {"Authorization": f"Bearer {bearer_token}"} if bearer_token else {}
        self._http = httpx.Client(timeout=timeout_s, headers=headers, transport=transport)
        self.queries = 0

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    def __enter__(self) -> PromClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def error(self, message: str, query: str = "") -> PromError:
        """A PromError naming this server (redacted) and, when given, the query."""
        where = f"query {_shorten(query)}: " if query else ""
        return PromError(f"Prometheus {self.shown_url}", redact_text(where + message, self._secrets))

    def _remaining(self, query: str) -> float:
        left = self.deadline - self._clock()
        if left <= 0:
            raise self.error(
                f"the run's deadline of {self.deadline_s:g} s passed after {self.queries} queries "
                "(raise --timeout or shorten the window)",
                query,
            )
        return left

    def _read(self, response: httpx.Response, query: str) -> bytes:
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.max_answer_bytes:
                raise self.error(
                    f"the answer is larger than {self.max_answer_bytes // (1024 * 1024)} MiB; "
                    "shorten the window or coarsen --step",
                    query,
                )
            chunks.append(chunk)
            self._remaining(query)
        return b"".join(chunks)

    def _send(self, endpoint: str, params: Mapping[str, str]) -> tuple[int, bytes]:
        query = params.get("query", "")
        timeout = min(self.timeout_s, self._remaining(query))
        target = f"{self.url}/api/v1/{endpoint}"
        self.queries += 1
        try:
            method = "POST" if params else "GET"
            with self._http.stream(method, target, data=dict(params) or None, timeout=timeout) as response:
                return response.status_code, self._read(response, query)
        except httpx.TimeoutException:
            raise self.error(f"no answer within {timeout:.3g} s (timeout)", query) from None
        except httpx.HTTPError as exc:
            raise self.error(
                f"cannot reach Prometheus ({type(exc).__name__}); check --prometheus", query
            ) from None

    def _get(self, endpoint: str, params: Mapping[str, str]) -> dict[str, Any]:
        """GET/POST an API endpoint and return the checked answer object."""
        query = params.get("query", "")
        status, body = self._send(endpoint, params)
        if status in (401, 403):
            raise self.error(
                f"HTTP {status}: Prometheus refused the credentials (URL userinfo or GPUPLANE_PROMETHEUS_TOKEN)",
                query,
            )
        try:
            answer = decode(body)
        except BadAnswer as exc:
            raise self.error(f"HTTP {status}: {exc}", query) from None
        if answer.get("status") != "success":
            raise self.error(f"query failed (HTTP {status}): {error_text(answer)}", query)
        return answer

    def _series(self, endpoint: str, params: Mapping[str, str]) -> list[Series]:
        query = params.get("query", "")
        try:
            return result_series(self._get(endpoint, params))
        except BadAnswer as exc:
            raise self.error(f"malformed answer: {exc}", query) from None

    def instant(self, query: str, at: float) -> list[Series]:
        """Evaluate `query` at one time; every returned series has exactly one (finite) sample."""
        return self._series("query", {"query": query, "time": _fmt(at)})

    def range(self, query: str, start: float, end: float, step: float) -> list[Series]:
        """Evaluate `query` from start to end every `step` seconds, paging long windows."""
        if end < start:
            raise self.error("the window ends before it starts", query)
        merged: dict[tuple[tuple[str, str], ...], Series] = {}
        page = step * MAX_POINTS_PER_QUERY
        page_start = start
        while page_start <= end:
            page_end = min(end, page_start + page - step)
            params = {"query": query, "start": _fmt(page_start), "end": _fmt(page_end), "step": _fmt(step)}
            for series in self._series("query_range", params):
                target = merged.setdefault(series.key, Series(series.labels))
                target.samples.extend(series.samples)
            page_start = page_end + step
        return [merged[k] for k in sorted(merged)]

    def build_info(self) -> dict[str, str]:
        """The server's build information (checks that it is reachable and speaks the API)."""
        data = self._get("status/buildinfo", {}).get("data")
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _fmt(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")
