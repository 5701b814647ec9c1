"""Atomic directory moves for `gpuplane.outputs`: exchange two paths, or move one in place
without replacing anything, and keep signals from landing between two steps.

On Linux, `renameat2(2)` with RENAME_EXCHANGE swaps two directories in one step, so the target
is never missing, whatever signal arrives (SIGKILL included). Where the call or the filesystem
does not support it, the fallback is two renames with SIGINT/SIGTERM/SIGHUP held until both are
done (only SIGKILL or a crash can then leave the target missing; the old tree is kept beside it).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import signal
from collections.abc import Iterator
from functools import cache
from typing import Any

__all__ = ["SIGNALS", "Terminated", "deferred_signals", "exchange", "move_new", "terminating_raises"]

AT_FDCWD = -100
RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2
SIGNALS: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_UNSUPPORTED = (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP)


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived (raised like KeyboardInterrupt, so cleanup code runs)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated by signal {signum}")
        self.signum = signum


@cache
def _renameat2() -> Any:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        func = libc.renameat2  # glibc >= 2.28
    except (OSError, AttributeError):
        return None
    func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    func.restype = ctypes.c_int
    return func


def _rename2(src: str, dst: str, flags: int) -> bool:
    """renameat2(src, dst, flags): True when done, False when unsupported here; OSError otherwise."""
    func = _renameat2()
    if func is None:
        return False
    if func(AT_FDCWD, os.fsencode(src), AT_FDCWD, os.fsencode(dst), flags) == 0:
        return True
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), dst)


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    """Hold SIGINT/SIGTERM/SIGHUP inside the block; they take effect (as they would have) after it.

    The Python-level handlers are swapped for ones that only record the signal, which works
    whichever thread the kernel delivers it to. Off the main thread this is a no-op.
    """
    pending: list[int] = []
    previous: dict[int, Any] = {}
    try:
        for signum in SIGNALS:
            previous[signum] = signal.signal(signum, lambda n, _frame: pending.append(n))
    except ValueError:  # not the main thread: signals are not ours to handle here
        for held, handler in previous.items():
            signal.signal(held, handler)
        yield
        return
    try:
        yield
    finally:
        for held, handler in previous.items():
            signal.signal(held, handler)
        for arrived in pending:
            signal.raise_signal(arrived)


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated(signum)


@contextlib.contextmanager
def terminating_raises() -> Iterator[None]:
    """Inside the block, SIGTERM and SIGHUP raise `Terminated` (where they would kill the process
    outright), so `except BaseException` cleanup runs as it does for Ctrl-C."""
    changed = {}
    try:
        for signum in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(signum) == signal.SIG_DFL:
                changed[signum] = signal.signal(signum, _raise_terminated)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for signum, handler in changed.items():
            signal.signal(signum, handler)


def exchange(new: str, target: str) -> bool:
    """Swap directory `new` with existing `target`: afterwards `target` is the new tree and `new`
    holds the old one. True when done in one atomic step; False after the two-rename fallback."""
    if _rename2(new, target, RENAME_EXCHANGE):
        return True
    parked = new + ".old"
    with deferred_signals():
        os.rename(target, parked)
        try:
            os.rename(new, target)
        except BaseException:
            os.rename(parked, target)
            raise
        os.rename(parked, new)
    return False


def move_new(new: str, target: str) -> None:
    """Move `new` to `target`, which must not exist (FileExistsError if it appeared meanwhile)."""
    if _rename2(new, target, RENAME_NOREPLACE):
        return
    if os.path.lexists(target):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), target)
    os.rename(new, target)
