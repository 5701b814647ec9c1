"""One registry shape for every extension point: trace formats, providers, admitters, audit
readers, audit rules and workload kinds.

A `Registry[T]` keeps entries by name in registration order, with one rule for a name given twice
(refused: a `ValueError`, a bug in gpuplane or a plugin, exit 70) and one error for a name nobody
registered (`UsageError` listing the known names, exit 2). Imports nothing above `errors`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

from gpuplane.errors import UsageError

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Generic[T]):
    """Entries of one kind by name. `what` names the kind in messages ("admitter", "trace format")."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._entries: dict[str, T] = {}

    def add(self, name: str, entry: T) -> T:
        """Register `entry` as `name`; a name already taken is refused (ValueError)."""
        if name in self._entries:
            raise ValueError(f"{self.what} {name!r} is registered twice")
        self._entries[name] = entry
        return entry

    def get(self, name: str, option: str = "", also: tuple[str, ...] = ()) -> T:
        """The entry registered as `name`, or a UsageError listing the known names (after `also`:
        other values the option takes, such as `auto`)."""
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join((*also, *self._entries)) or "none"
            raise UsageError(f"unknown {self.what} {name!r} (known: {known})", option=option) from None

    def find(self, name: str) -> T | None:
        """The entry registered as `name`, or None."""
        return self._entries.get(name)

    def names(self) -> tuple[str, ...]:
        """Every registered name, in registration order."""
        return tuple(self._entries)

    def values(self) -> list[T]:
        """Every entry, in registration order."""
        return list(self._entries.values())

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)
