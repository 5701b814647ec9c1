"""A deterministic measure of work: how many Python lines and calls a function executes.

Tests that guard an algorithm's cost compare these counts between a small and a large input
instead of timing anything (`sys.settrace`: one count per function call and per line event,
loops included, since a backward jump starts a new line event).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any


def python_steps(fn: Callable[[], object]) -> int:
    """Run `fn()` and return the Python calls plus line events it executed (its callees included)."""
    steps = 0

    def local(frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        nonlocal steps
        steps += 1
        return local

    def on_call(frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        nonlocal steps
        steps += 1
        return local

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        fn()
    finally:
        sys.settrace(previous)
    return steps
