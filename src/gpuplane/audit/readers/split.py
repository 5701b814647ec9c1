"""Splitting a multi-document YAML text into its documents' texts, keeping line numbers."""

from __future__ import annotations

from typing import Any

from gpuplane.yamlio import LocDict, LocList


def shift_lines(node: Any, offset: int) -> None:
    """Move every recorded line of a loaded chunk down by `offset`."""
    _shift(node, offset, set())


def _shift(node: Any, offset: int, seen: set[int]) -> None:
    """Move every recorded line of a loaded chunk down by `offset` (aliases are visited once)."""
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, LocDict):
        node.shift_lines(offset)
        for value in node.values():
            _shift(value, offset, seen)
    elif isinstance(node, LocList):
        node.shift_lines(offset)
        for value in node:
            _shift(value, offset, seen)


def chunks(text: str) -> list[tuple[int, str]]:
    """Split a multi-document text at `---` / `...` lines: (0-based first line, chunk text).

    A `---` line starts a chunk (and stays in it, so `--- {a: 1}` parses); `...` ends one.
    """
    out: list[tuple[int, str]] = []
    current: list[str] = []
    first = 0
    for index, line in enumerate(text.splitlines(keepends=True)):
        marker = line.rstrip("\r\n")
        if marker.startswith("---") and (len(marker) == 3 or marker[3] in " \t"):
            out.append((first, "".join(current)))
            current, first = [line], index
        elif marker.startswith("...") and not marker[3:].strip():
            out.append((first, "".join(current)))
            current, first = [], index + 1
        else:
            current.append(line)
    out.append((first, "".join(current)))
    return [(n, c) for n, c in out if c.strip() and c.strip() != "---"]


def chunk_text(text: str, line: int) -> str:
    """The text of the document that starts at 1-based `line` (earlier lines blanked)."""
    best = text
    for offset, chunk in chunks(text):
        if offset < line:
            best = "\n" * offset + chunk
    return best
