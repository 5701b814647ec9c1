"""Typer parsers for numeric options: one per `gpuplane.bounds.Range`, so every command checks a
number the same way (finite, in range, the limit named) before any work starts.

    seconds: Annotated[float | None, typer.Option("--x", parser=number(bounds.seconds()))] = None

A bad value is click's usage error for that option: `gpuplane CMD: error: Invalid value for
'--x': nan is not a finite number`, exit 2.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic_core import PydanticCustomError

from gpuplane.bounds import Range
from gpuplane.errors import UsageError


def number(bounds: Range, metavar: str = "") -> Callable[[object], float]:
    """A typer `parser` for one numeric option within `bounds`."""

    def parse(value: object) -> float:
        try:
            if isinstance(value, str):
                return bounds.parse(value, "")
            return bounds.check(value, "")  # type: ignore[arg-type]  # a default typer passes as is
        except UsageError as exc:
            # typer validates through pydantic: a custom error is shown as the option's usage error, verbatim
            raise PydanticCustomError(
                "gpuplane_number", exc.message.replace("{", "{{").replace("}", "}}")
            ) from None

    parse.__name__ = metavar or ("INTEGER" if bounds.integer else "FLOAT")
    return parse
