"""Errors that point at the input: file, line, column and field path.

The CLI turns any `InputError` into a one-line message per problem on stderr and exit code 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one input, located as precisely as we can."""

    file: str
    line: int | None
    column: int | None
    path: str
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        field_part = f" {self.path}:" if self.path else ""
        return f"{where}: {self.severity}:{field_part} {self.message}"


@dataclass
class InputError(Exception):
    """Bad input: one or more located problems. Exit code 2."""

    problems: list[Problem] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)

    @classmethod
    def single(
        cls, file: str, message: str, *, line: int | None = None, column: int | None = None, path: str = ""
    ) -> InputError:
        return cls([Problem(file=file, line=line, column=column, path=path, message=message)])
