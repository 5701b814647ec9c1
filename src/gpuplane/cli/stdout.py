"""stdout as the CLI writes it: a write error is an error of stdout, not a crash.

`guarded()` puts a thin wrapper around `sys.stdout` for the length of one command. A reader that
hangs up (`gpuplane render -o - | head`) raises `StdoutClosed`, which the CLI turns into a quiet
exit; any other write error (a full disk behind `> /dev/full`, EIO) raises `OutputError` for
`<stdout>`. The CLI flushes inside the guard, so nothing fails later at interpreter exit.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

from gpuplane.errors import OutputError

STDOUT_NAME = "<stdout>"


class StdoutClosed(Exception):
    """The reader of stdout went away (EPIPE)."""


def _translate(exc: OSError) -> Exception:
    if isinstance(exc, BrokenPipeError):
        return StdoutClosed()
    return OutputError.at(STDOUT_NAME, f"cannot write: {exc.strerror or exc}")


class _Guarded:
    """Delegates to the real stream; write errors become StdoutClosed or OutputError."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text))
        except OSError as exc:
            raise _translate(exc) from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise _translate(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def silence() -> None:
    """After EPIPE: point fd 1 at /dev/null so the interpreter's last flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ else 1)
        os.close(devnull)


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """Guard `sys.stdout` inside the block and flush it before leaving."""
    real = sys.stdout
    if real is None:
        yield
        return
    sys.stdout = _Guarded(real)
    try:
        try:
            yield
        except SystemExit:  # commands that sys.exit() with their verdict (audit) flush here too
            sys.stdout.flush()
            raise
        sys.stdout.flush()
    finally:
        sys.stdout = real
