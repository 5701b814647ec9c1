"""Containers that remember where each value came from: `LocDict` and `LocList`.

Plain dict/list subclasses that also carry the 1-based line and column of the node and of each
key and item, packed into one `bytes` per container, so that every error or finding can point at
the exact line of the offending field. `gpuplane.yamlio` builds them.
"""

from __future__ import annotations

from array import array
from typing import Any

__all__ = ["LocDict", "LocList", "Pos", "pack", "unpack"]

Pos = tuple[int, int]


_SHIFT = 32
_LOW = (1 << _SHIFT) - 1
_EMPTY = array("Q", [0]).tobytes()


def pack(line: int, column: int) -> int:
    """A (line, column) position packed into one integer."""
    return (line << _SHIFT) | column


def unpack(packed: int) -> Pos:
    """The (line, column) position `pack` packed."""
    return (packed >> _SHIFT, packed & _LOW)


def _words(marks: bytes) -> memoryview:
    return memoryview(marks).cast("Q")


def _shifted(marks: bytes, offset: int) -> bytes:
    return array("Q", [m + (offset << _SHIFT) for m in _words(marks)]).tobytes()


class LocDict(dict[str, Any]):
    """A mapping from YAML with positions: `pos` of the mapping, `key_at(k)`, `value_at(k)`.

    Positions are packed into one `bytes` per mapping (its own position, then the key's and the
    value's for each key in insertion order), not kept in dictionaries of tuples: a 50 MB input
    holds about a million mappings (issue 9's memory goal). `key_pos` and `value_pos` are
    read-only snapshots. Deleting a key keeps the other positions aligned; a key added after
    loading has none.
    """

    __slots__ = ("_marks",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._marks = _EMPTY

    @property
    def pos(self) -> Pos:
        """Line and column of the mapping itself."""
        return unpack(_words(self._marks)[0])

    def _index(self, key: object) -> int:
        loaded = (len(self._marks) // 8 - 1) // 2
        for index, name in enumerate(self):
            if name == key:
                return index if index < loaded else -1
        return -1

    def key_at(self, key: str) -> Pos | None:
        """Line and column of `key`, or None (a key added after loading has none)."""
        index = self._index(key)
        return unpack(_words(self._marks)[1 + 2 * index]) if index >= 0 else None

    def value_at(self, key: str) -> Pos | None:
        """Line and column of the value of `key`, or None."""
        index = self._index(key)
        return unpack(_words(self._marks)[2 + 2 * index]) if index >= 0 else None

    @property
    def key_pos(self) -> dict[str, Pos]:
        """Every loaded key's position (a snapshot)."""
        return {k: p for k in self if (p := self.key_at(k)) is not None}

    @property
    def value_pos(self) -> dict[str, Pos]:
        """Every loaded key's value position (a snapshot)."""
        return {k: p for k in self if (p := self.value_at(k)) is not None}

    def shift_lines(self, offset: int) -> None:
        """Move this mapping's own positions down by `offset` lines (not its children's)."""
        self._marks = _shifted(self._marks, offset)

    def _forget(self, key: object) -> None:
        index = self._index(key)
        if index >= 0:
            self._marks = self._marks[: 8 * (1 + 2 * index)] + self._marks[8 * (3 + 2 * index) :]

    def __delitem__(self, key: str) -> None:
        self._forget(key)
        super().__delitem__(key)

    def pop(self, key: str, *default: Any) -> Any:
        """dict.pop, keeping the remaining positions aligned."""
        self._forget(key)
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, Any]:
        """dict.popitem, keeping the remaining positions aligned."""
        key = next(reversed(self))
        self._forget(key)
        return key, super().pop(key)

    def clear(self) -> None:
        """dict.clear, and the positions with it."""
        super().clear()
        self._marks = self._marks[:8]

    def __reduce__(self) -> Any:  # copies and pickles keep the positions
        return (_rebuild_dict, (dict(self), self._marks))


def _rebuild_dict(items: dict[str, Any], marks: bytes) -> LocDict:
    result = LocDict(items)
    result._marks = marks
    return result


class LocList(list[Any]):
    """A sequence from YAML with the position of the sequence and of each item (packed)."""

    __slots__ = ("_marks",)

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._marks = _EMPTY

    @property
    def pos(self) -> Pos:
        """Line and column of the sequence itself."""
        return unpack(_words(self._marks)[0])

    def item_at(self, index: int) -> Pos | None:
        """Line and column of item `index`, or None (an item added after loading has none)."""
        words = _words(self._marks)
        return unpack(words[1 + index]) if 0 <= index < len(words) - 1 else None

    def shift_lines(self, offset: int) -> None:
        """Move this sequence's own positions down by `offset` lines (not its children's)."""
        self._marks = _shifted(self._marks, offset)

    def __reduce__(self) -> Any:  # copies and pickles keep the positions
        return (_rebuild_list, (list(self), self._marks))


def _rebuild_list(items: list[Any], marks: bytes) -> LocList:
    result = LocList(items)
    result._marks = marks
    return result
