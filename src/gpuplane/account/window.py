"""The accounted window: parsed from `--since`/`--start`/`--end`/`--step`, aligned, and cut into chunks.

Bad option values are usage errors naming the option. Durations and times have stated limits
(`MAX_DURATION_S`, `TIME_RANGE`) so that an absurd value is an error, not an overflow.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from gpuplane.account.prom import choose_step
from gpuplane.durations import parse_seconds
from gpuplane.errors import UsageError

#: The longest duration an option takes: 100 years (Prometheus keeps nothing older anyway).
MAX_DURATION_S = 100 * 365 * 86400
#: Times an option takes: 1970-01-01 to 9999-12-31 (what ISO 8601 and Python's datetime can spell).
TIME_RANGE = (0.0, 253_402_300_799.0)


def parse_duration(text: str, option: str = "--since") -> float:
    """'90s', '15m', '6h', '7d', '2w' or combinations like '1d12h' -> seconds (`gpuplane.durations`;
    every number needs its unit, the value must be positive and at most `MAX_DURATION_S`)."""
    total = parse_seconds(text)
    if total is None:
        raise UsageError(f"{text!r} is not a duration (e.g. 30s, 15m, 6h, 7d, 2w)", option=option)
    if total <= 0:
        raise UsageError("the duration must be positive", option=option)
    if total > MAX_DURATION_S:
        raise UsageError(f"{text!r} is longer than the limit of 100 years", option=option)
    return total


def parse_time(text: str, option: str) -> float:
    """Unix seconds or an ISO 8601 time (a missing zone means UTC) -> Unix seconds."""
    value = text.strip()
    if re.fullmatch(r"\d{1,15}(\.\d{1,9})?", value):
        seconds = float(value)
    else:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:  # fromisoformat's one error: the text is not ISO 8601
            raise UsageError(
                f"{text!r} is neither Unix seconds nor an ISO 8601 time", option=option
            ) from None
        seconds = (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()
    if not TIME_RANGE[0] <= seconds <= TIME_RANGE[1]:
        raise UsageError(f"{text!r} is outside 1970-01-01 .. 9999-12-31", option=option)
    return seconds


@dataclass(frozen=True)
class Window:
    """The accounted interval [start, end), its resolution and the chunk size of one query."""

    start: float
    end: float
    step: float
    chunk: float

    @classmethod
    def make(cls, start: float, end: float, step: float, chunk_steps: int = 2880) -> Window:
        """Align start and end to the step (Prometheus aligns subquery steps to multiples of it)."""
        s = math.floor(start / step) * step
        e = max(math.floor(end / step) * step, s + step)
        return cls(s, e, step, step * chunk_steps)

    @property
    def hours(self) -> float:
        """Length of the window in hours."""
        return (self.end - self.start) / 3600

    @property
    def last(self) -> float:
        """The last step of the window (where "at the end" figures are read)."""
        return self.end - self.step

    def chunks(self) -> Iterator[tuple[float, str]]:
        """(evaluation time, range) per chunk; together they cover every step exactly once.

        A chunk [lo, hi) is evaluated at hi - step with a range reaching back to lo - step/2, so
        no step sits on the range's edge and it does not matter whether the server treats
        ranges as closed (Prometheus 2) or left-open (Prometheus 3).
        """
        lo = self.start
        while lo < self.end:
            hi = min(lo + self.chunk, self.end)
            yield hi - self.step, f"{round((hi - lo - self.step / 2) * 1000)}ms"
            lo = hi


def resolve_window(
    since: str | None, start: str | None, end: str | None, step: str | None, now: float | None = None
) -> Window:
    """The window from `--since` or `--start/--end` (default: the last 7 days) and its step."""
    stop = parse_time(end, "--end") if end else (time.time() if now is None else now)
    if start and since:
        raise UsageError("give either --since or --start, not both", option="--start")
    begin = parse_time(start, "--start") if start else stop - parse_duration(since or "7d")
    if begin < TIME_RANGE[0]:
        raise UsageError(f"{since!r} reaches back before 1970", option="--since")
    if stop <= begin:
        raise UsageError("the window is empty: --end must be after --start", option="--end")
    resolution = parse_duration(step, "--step") if step else choose_step(stop - begin)
    if resolution > stop - begin:
        raise UsageError(f"{step!r} is longer than the window", option="--step")
    return Window.make(begin, stop, resolution)
