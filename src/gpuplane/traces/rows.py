"""Shared plumbing of the CSV readers: numbered rows, typed cells, and bad-row reporting.

A bad row is never changed: it is skipped with a located warning, or, in strict mode, the first
one raises `InputError` with the file, the line and the column name.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from gpuplane.errors import InputError, Problem
from gpuplane.inputs import locate_decode_error, open_text


class BadRow(Exception):
    """Raised inside a row parser; `column` names the offending CSV column."""

    def __init__(self, column: str, message: str) -> None:
        super().__init__(message)
        self.column = column
        self.message = message


MAX_WARNINGS = 1000  # detailed warnings kept per read; the rest are counted in one summary


class Issues:
    """Collects the warnings of one read, or raises on the first bad row when strict.

    At most `MAX_WARNINGS` bad rows are kept one by one (a broken million-row file must not fill
    memory with messages); the rest are counted in a final summary warning.
    """

    def __init__(self, file: str, strict: bool) -> None:
        self.file = file
        self.strict = strict
        self._warnings: list[Problem] = []
        self._more_bad_rows = 0

    @property
    def warnings(self) -> list[Problem]:
        """The warnings so far, with a summary of the bad rows beyond `MAX_WARNINGS`."""
        if not self._more_bad_rows:
            return list(self._warnings)
        summary = Problem(
            self.file,
            None,
            None,
            "",
            f"{self._more_bad_rows} more bad rows skipped (only the first {MAX_WARNINGS} are listed)",
            "warning",
        )
        return [*self._warnings, summary]

    def reset(self) -> None:
        """Forget the warnings (a stream that is read again reports again)."""
        self._warnings.clear()
        self._more_bad_rows = 0

    def bad_row(self, line: int, column: str, message: str) -> None:
        """Report one bad row: raise when strict, else keep a warning and let the caller skip."""
        if self.strict:
            raise InputError([Problem(self.file, line, None, column, message)])
        if len(self._warnings) >= MAX_WARNINGS:
            self._more_bad_rows += 1
            return
        self._warnings.append(Problem(self.file, line, None, column, f"{message}; row skipped", "warning"))

    def note(self, line: int | None, column: str, message: str) -> None:
        """A warning about the file that is not a bad row (never fatal, always kept)."""
        self._warnings.append(Problem(self.file, line, None, column, message, "warning"))


def open_csv(path: Path) -> IO[str]:
    """Open a CSV for one streaming pass (UTF-8, a BOM tolerated, universal newlines handled by
    csv). A pipe, process substitution or `-` works too: it is copied once (`gpuplane.inputs`)."""
    return open_text(path, encoding="utf-8-sig")


def numbered_rows(
    stream: IO[str], file: str, issues: Issues | None = None
) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """The header and an iterator of (line number, cells) for the rows after it.

    Blank lines are skipped. A row the csv module cannot parse is a bad row of `issues` (or an
    InputError without them). No header, or text that is not UTF-8, is an InputError.
    """
    reader = csv.reader(stream)
    try:
        header = next(reader)
    except StopIteration:
        raise InputError.single(file, "the workload file is empty (no header row)", line=1) from None
    except (csv.Error, UnicodeDecodeError) as exc:
        raise _unreadable(file, reader.line_num + 1, exc) from exc
    header = [h.strip() for h in header]

    def rows() -> Iterator[tuple[int, list[str]]]:
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                if issues is None:
                    raise _unreadable(file, reader.line_num, exc) from exc
                issues.bad_row(reader.line_num, "", f"malformed CSV: {exc}")
                continue
            except UnicodeDecodeError as exc:
                raise _unreadable(file, reader.line_num + 1, exc) from exc
            if row:
                yield reader.line_num, row

    return header, rows()


def _unreadable(file: str, line: int, exc: Exception) -> InputError:
    if isinstance(exc, UnicodeDecodeError):
        located = locate_decode_error(file)  # one more pass over the bytes finds the offset
        if located.problems[0].line is not None:
            return located
        return InputError.single(file, f"not UTF-8 text (from about line {line}): {exc.reason}", line=line)
    return InputError.single(file, f"malformed CSV: {exc}", line=line)


def column_index(header: list[str], required: tuple[str, ...], file: str) -> dict[str, int]:
    """Map column names to positions; a missing required column is an error of the whole file."""
    index = {name: i for i, name in enumerate(header)}
    missing = [c for c in required if c not in index]
    if missing:
        raise InputError.single(
            file, f"missing column(s) {', '.join(missing)} in the header", line=1, path=missing[0]
        )
    return index


def cell(row: list[str], index: dict[str, int], column: str) -> str:
    """The stripped text of one cell ('' when the row is short or the column absent)."""
    i = index.get(column)
    if i is None or i >= len(row):
        return ""
    return row[i].strip()


def to_float(text: str, column: str, *, minimum: float | None = None, positive: bool = False) -> float:
    """A finite number, or BadRow naming the column."""
    try:
        value = float(text)
    except ValueError:
        raise BadRow(column, f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise BadRow(column, f"{text!r} is not a finite number")
    if positive and value <= 0:
        raise BadRow(column, f"{text} must be > 0")
    if minimum is not None and value < minimum:
        raise BadRow(column, f"{text} must be >= {minimum:g}")
    return value


def to_int(text: str, column: str, *, minimum: int | None = None) -> int:
    """A whole number written as an integer ('8'; '8.0' is refused rather than rounded)."""
    try:
        value = int(text)
    except ValueError:
        raise BadRow(column, f"{text!r} is not a whole number") from None
    if minimum is not None and value < minimum:
        raise BadRow(column, f"{value} must be >= {minimum}")
    return value


def optional_float(
    text: str, column: str, *, minimum: float | None = None, positive: bool = False
) -> float | None:
    """None for an empty cell, else `to_float`."""
    return None if text == "" else to_float(text, column, minimum=minimum, positive=positive)
