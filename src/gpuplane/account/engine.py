"""The account engine: a window and a spec in, an `AccountResult` out (one call for CLI and exporter)."""

from __future__ import annotations

import os
import re
import time
from datetime import UTC, datetime

from gpuplane.account.collect import Window
from gpuplane.account.compute import AccountResult, account
from gpuplane.account.gather import gather
from gpuplane.account.prom import PromClient, choose_step
from gpuplane.errors import InputError
from gpuplane.spec import PlatformSpec

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
TOKEN_ENV = "GPUPLANE_PROMETHEUS_TOKEN"


def parse_duration(text: str, option: str = "--since") -> float:
    """'90s', '15m', '6h', '7d', '2w' or combinations like '1d12h' -> seconds."""
    parts = re.fullmatch(r"(?:\d+(?:\.\d+)?[smhdw])+", text.strip())
    if not parts:
        raise InputError.single(option, f"{text!r} is not a duration (e.g. 30s, 15m, 6h, 7d, 2w)")
    total = sum(float(n) * _UNITS[u] for n, u in re.findall(r"(\d+(?:\.\d+)?)([smhdw])", text))
    if total <= 0:
        raise InputError.single(option, "the duration must be positive")
    return total


def parse_time(text: str, option: str) -> float:
    """Unix seconds or an ISO 8601 time (a missing zone means UTC) -> Unix seconds."""
    value = text.strip()
    if re.fullmatch(r"\d+(\.\d+)?", value):
        return float(value)
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InputError.single(option, f"{text!r} is neither Unix seconds nor an ISO 8601 time") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def resolve_window(
    since: str | None, start: str | None, end: str | None, step: str | None, now: float | None = None
) -> Window:
    """The window from `--since` or `--start/--end` (default: the last 7 days) and its step."""
    stop = parse_time(end, "--end") if end else (time.time() if now is None else now)
    if start and since:
        raise InputError.single("--start", "give either --since or --start, not both")
    begin = parse_time(start, "--start") if start else stop - parse_duration(since or "7d")
    if stop <= begin:
        raise InputError.single("--end", "the window is empty: --end must be after --start")
    resolution = parse_duration(step, "--step") if step else choose_step(stop - begin)
    return Window.make(begin, stop, resolution)


def run(
    url: str, spec: PlatformSpec, window: Window, *, charts: bool = True, timeout_s: float = 120.0
) -> AccountResult:
    """Query Prometheus at `url` over `window` and account GPU time and cost with the spec's prices.

    A bearer token, when needed, is read from the environment variable GPUPLANE_PROMETHEUS_TOKEN so
    that it never appears in a command line or an error message.
    """
    with PromClient(url, timeout_s=timeout_s, bearer_token=os.environ.get(TOKEN_ENV) or None) as client:
        raw = gather(client, window, charts=charts)
    return account(raw, spec)
