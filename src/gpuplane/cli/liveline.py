"""One progress line on a terminal for long runs (`simulate`, `plan`), rewritten in place on stderr.

Nothing is shown for the first `delay` seconds (a short run prints nothing), nothing at all when
stderr is not a terminal or with `--quiet`, and at most one redraw per `interval` seconds. The
line is cleared when the run ends, so what the command prints afterwards starts on a clean line.
The clock is injected (`clock`), so tests drive it without waiting.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

DELAY_S = 2.0
INTERVAL_S = 0.5


class LiveLine:
    """A throttled, self-erasing status line."""

    def __init__(
        self,
        stream: TextIO,
        *,
        enabled: bool,
        clock: Callable[[], float] = time.monotonic,
        delay: float = DELAY_S,
        interval: float = INTERVAL_S,
    ) -> None:
        self.stream = stream
        self.enabled = enabled
        self.clock = clock
        self.delay = delay
        self.interval = interval
        self.start = clock()
        self._next = self.start + delay
        self._width = 0

    def due(self) -> bool:
        """Whether a redraw would be shown now (cheap: callers build the text only then)."""
        return self.enabled and self.clock() >= self._next

    def show(self, text: str) -> None:
        """Redraw the line with `text` when due."""
        if not self.due():
            return
        now = self.clock()
        self._next = now + self.interval
        pad = max(0, self._width - len(text))
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._width = len(text)

    def elapsed(self) -> float:
        """Seconds since the line was created (by its clock)."""
        return self.clock() - self.start

    def close(self) -> None:
        """Erase the line if it was ever drawn."""
        if self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0


def for_stderr(stream: TextIO, quiet: bool, clock: Callable[[], float] = time.monotonic) -> LiveLine:
    """A line on `stream`, enabled only when it is a terminal and the run is not `--quiet`."""
    isatty = getattr(stream, "isatty", None)
    return LiveLine(stream, enabled=not quiet and bool(isatty and isatty()), clock=clock)


def simulated(days: float) -> str:
    """'day 12.3' of simulated time."""
    return f"simulated day {days:,.1f}"
