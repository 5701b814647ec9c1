"""One duration grammar (`gpuplane.durations`) and what each caller makes of it.

Expected seconds are worked out by hand: m = 60, h = 3600, d = 86400, w = 604800.
"""

from __future__ import annotations

import pytest

from gpuplane.account.window import parse_duration
from gpuplane.durations import format_duration, parse_seconds
from gpuplane.errors import UsageError
from gpuplane.kube.runtime import runtime_hint, runtime_seconds


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90.0),
        ("45m", 2_700.0),
        ("1h30m", 5_400.0),
        ("30m1h", 5_400.0),  # any order (Prometheus wants largest first; we do not)
        ("1.5h", 5_400.0),
        ("2d", 172_800.0),
        ("1d12h", 129_600.0),
        ("2w", 1_209_600.0),
        ("1w1d1h1m1s", 694_861.0),
        (" 15m\n", 900.0),
        ("0s", 0.0),
        ("999999999999999s", 999_999_999_999_999.0),  # 15 digits
        ("0.000000001s", 1e-9),  # 9 decimals
    ],
)
def test_durations_parse_to_seconds(text: str, seconds: float) -> None:
    assert parse_seconds(text) == seconds


@pytest.mark.parametrize(
    "text",
    [
        "",
        "90",  # a unit is needed unless the caller takes bare seconds
        "7 days",
        "1h 30m",
        "-1h",
        "+1h",
        "1e9s",
        "1y",  # Prometheus' year and millisecond are not taken
        "100ms",
        "1H",
        ".5h",
        "1.h",
        "h",
        "1" * 16 + "s",  # 16 digits: no text overflows a float
        "1" * 400 + "s",
        "0.0000000001s",  # 10 decimals
    ],
)
def test_what_is_not_a_duration(text: str) -> None:
    assert parse_seconds(text) is None


def test_bare_seconds_only_where_the_caller_takes_them() -> None:
    assert parse_seconds("90", bare_seconds=True) == 90.0
    assert parse_seconds("2.5", bare_seconds=True) == 2.5
    assert parse_seconds("2h", bare_seconds=True) == 7_200.0
    assert parse_seconds("1" * 16, bare_seconds=True) is None


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0s"),
        (20.4, "20s"),
        (59.6, "1m"),
        (2_700, "45m"),
        (5_400, "1h30m"),
        (7_200, "2h"),
        (90_061, "1d1h"),
    ],
)
def test_durations_format_in_at_most_two_units(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("7 days", "'7 days' is not a duration (e.g. 30s, 15m, 6h, 7d, 2w)"),
        ("90", "'90' is not a duration (e.g. 30s, 15m, 6h, 7d, 2w)"),
        ("0s", "the duration must be positive"),
        ("5300w", "'5300w' is longer than the limit of 100 years"),
    ],
)
def test_account_options_refuse_with_the_option_named(text: str, message: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_duration(text, "--step")
    assert info.value.option == "--step"
    assert message in str(info.value)


def test_account_takes_up_to_one_hundred_years() -> None:
    assert parse_duration("5200w", "--since") == 5_200 * 604_800  # 99.7 years
    assert parse_duration("36500d", "--since") == 100 * 365 * 86_400


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("45m", 2_700.0), ("90", 90.0), ("1h30m", 5_400.0), ("0s", None), ("0", None), ("soon", None)],
)
def test_a_runtime_is_a_positive_duration_or_bare_seconds(text: str, seconds: float | None) -> None:
    assert runtime_seconds(text) == seconds


def test_a_workload_runtime_comes_from_the_annotation_else_the_kueue_limit() -> None:
    annotated = {"annotations": {"gpuplane.io/expected-runtime": "1h30m"}}
    assert runtime_hint(annotated, {"maximumExecutionTimeSeconds": 60}) == (
        5_400.0,
        "gpuplane.io/expected-runtime 1h30m",
    )
    unreadable = {"annotations": {"gpuplane.io/expected-runtime": "a while"}}
    assert runtime_hint(unreadable, {"maximumExecutionTimeSeconds": 60}) == (
        60.0,
        "maximumExecutionTimeSeconds 60",
    )
    assert runtime_hint({}, {}) is None
