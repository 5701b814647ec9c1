"""Window options: durations, times, their limits, and chunks that cover every step once."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuplane.account.window import Window, parse_duration, parse_time, resolve_window
from gpuplane.errors import UsageError


def test_durations_and_times_parse() -> None:
    assert parse_duration("1d12h") == 129_600
    assert parse_duration("90s") == 90
    assert parse_time("2026-01-05T00:00:00Z", "--start") == 1767571200
    assert parse_time("2026-01-05", "--start") == 1767571200
    assert parse_time("1767571200", "--start") == 1767571200


@pytest.mark.parametrize("text", ["7 days", "", "-1h", "0s", "99999999999w", "1" * 400 + "s", "1e9s"])
def test_bad_durations_are_usage_errors_naming_the_option(text: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_duration(text, "--since")
    assert info.value.option == "--since"


@pytest.mark.parametrize("text", ["yesterday", "99999999999999", "10000-01-01", "1" * 5000])
def test_bad_times_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_time(text, "--end")
    assert info.value.option == "--end"


def test_window_defaults_to_the_last_seven_days_and_refuses_contradictions() -> None:
    w = resolve_window(None, None, None, None, now=1_767_571_200 + 7 * 86400)
    assert (w.start, w.end, w.step) == (1_767_571_200, 1_767_571_200 + 7 * 86400, 30)
    with pytest.raises(UsageError, match="either --since or --start"):
        resolve_window("1d", "2026-01-01", None, None)
    with pytest.raises(UsageError, match="before 1970"):
        resolve_window("600w", None, "1980-01-01", None)
    with pytest.raises(UsageError, match="--end must be after --start"):
        resolve_window(None, "2026-01-06", "2026-01-05", None)
    with pytest.raises(UsageError, match="longer than the window"):
        resolve_window("1h", None, None, "2h", now=1_767_571_200)


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
