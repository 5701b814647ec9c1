"""Prometheus client, window paging and option parsing (no server needed)."""

from __future__ import annotations

import json

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuplane.account.collect import Window
from gpuplane.account.engine import parse_duration, parse_time, resolve_window
from gpuplane.account.prom import MAX_POINTS_PER_QUERY, PromClient, PromError, choose_step, redact_url
from gpuplane.errors import InputError


def test_redact_url_hides_user_and_password() -> None:
    assert redact_url("https://bob:pw@prom.example:9090/x") == "https://***@prom.example:9090/x"
    assert redact_url("http://prom:9090") == "http://prom:9090"


def test_choose_step_is_30s_up_to_a_week_and_coarser_beyond() -> None:
    assert choose_step(7 * 86400) == 30
    assert choose_step(30 * 86400) == 300
    assert choose_step(3600) == 30


@given(st.integers(min_value=1, max_value=40 * 2880), st.integers(min_value=0, max_value=10_000))
def test_chunks_cover_every_step_once(steps: int, offset: int) -> None:
    w = Window.make(1_700_000_000 + offset * 30, 1_700_000_000 + (offset + steps) * 30, 30, chunk_steps=2880)
    covered = 0
    previous_end = w.start - 30
    for at, span in w.chunks():
        length = int(span.removesuffix("ms")) / 1000
        first = at - length + 15  # ranges reach back half a step before the chunk's first step
        assert first == previous_end + 30  # no gap, no overlap
        covered += round((at - first) / 30) + 1
        previous_end = at
    assert covered == round((w.end - w.start) / 30)


def _client(handler: object) -> PromClient:
    return PromClient("http://user:secret@prom.test", transport=httpx.MockTransport(handler))  # type: ignore[arg-type]


def test_query_errors_become_prom_errors_without_credentials() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        body = {"status": "error", "errorType": "bad_data", "error": "parse error at char 3"}
        return httpx.Response(400, content=json.dumps(body))

    with pytest.raises(PromError) as info:
        _client(handler).instant("sum(", 0)
    text = str(info.value)
    assert "parse error at char 3" in text and "bad_data" in text
    assert "secret" not in text and "user" not in text


def test_non_json_answers_are_reported() -> None:
    with pytest.raises(PromError, match="not Prometheus API JSON"):
        _client(lambda r: httpx.Response(502, content=b"<html>bad gateway</html>")).instant("up", 0)


def test_long_range_queries_are_paged_and_merged() -> None:
    pages: list[tuple[float, float]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        form = dict(x.split("=", 1) for x in request.content.decode().split("&"))
        start, end, step = float(form["start"]), float(form["end"]), float(form["step"])
        pages.append((start, end))
        values = [[start + i * step, "1"] for i in range(int((end - start) / step) + 1)]
        data = {"resultType": "matrix", "result": [{"metric": {"a": "b"}, "values": values}]}
        return httpx.Response(200, content=json.dumps({"status": "success", "data": data}))

    series = _client(handler).range("up", 0, 30 * 25_000, 30)
    assert len(pages) == 3
    assert all((end - start) / 30 < MAX_POINTS_PER_QUERY for start, end in pages)
    times = [t for t, _ in series[0].samples]
    assert times == [i * 30.0 for i in range(25_001)]


def test_durations_and_times_parse() -> None:
    assert parse_duration("1d12h") == 129_600
    assert parse_duration("90s") == 90
    assert parse_time("2026-01-05T00:00:00Z", "--start") == 1767571200
    assert parse_time("2026-01-05", "--start") == 1767571200
    assert parse_time("1767571200", "--start") == 1767571200
    for bad in ("7 days", "", "-1h"):
        with pytest.raises(InputError):
            parse_duration(bad)


def test_window_defaults_to_the_last_seven_days() -> None:
    w = resolve_window(None, None, None, None, now=1_767_571_200 + 7 * 86400)
    assert (w.start, w.end, w.step) == (1_767_571_200, 1_767_571_200 + 7 * 86400, 30)
    with pytest.raises(InputError):
        resolve_window("1d", "2026-01-01", None, None)
