"""The one exception family of gpuplane, its rendering and its exit codes.

    GpuplaneError              base: `lines()` to print, `exit_code` to exit with
    ├── UsageError             a bad command line: "gpuplane CMD: error: message"          exit 2
    ├── InputError             bad input, one or more located `Problem`s:
    │   │                      "file:line:col: error: field.path: message"                  exit 2
    │   └── OutputError        an output that cannot or must not be written (the path is the
    │                          "file"): read-only, full disk, not ours to replace              exit 2
    └── UpstreamError          a service gpuplane reads (Prometheus, the Kubernetes API) is
                               unreachable, too slow, or answers what cannot be used         exit 3

Exit codes every command keeps (`EXIT_CODES`; README "Guarantees" and `gpuplane --help` show the
same table, and a test keeps them equal):

    0    success
    1    the command ran and its answer is "no": findings at or above --fail-on, drift under
         --check, a MIG layout that does not fit, a failed acceptance step
    2    bad usage or bad input (nothing was written)
    3    an upstream service could not be used
    70   an internal error: a bug in gpuplane (the traceback is printed; please report it)
    130  interrupted (Ctrl-C); 143 and 129 for SIGTERM and SIGHUP (128 + the signal), after
         removing temporary files
    141  stdout was closed by its reader (`| head`): gpuplane stops quietly, as on SIGPIPE

Anything else that escapes a command is a bug by definition: engines raise only this family
for conditions a user can cause, and the CLI never turns an arbitrary exception into exit 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "EXIT_CODES",
    "EXIT_FAILED",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_STDOUT_CLOSED",
    "EXIT_TERMINATED",
    "EXIT_UPSTREAM",
    "EXIT_USAGE",
    "GpuplaneError",
    "InputError",
    "OutputError",
    "Problem",
    "UpstreamError",
    "UsageError",
    "exit_codes_help",
    "exit_codes_markdown",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UPSTREAM = 3
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143
EXIT_STDOUT_CLOSED = 141

#: (code, meaning) of every exit code, in the order `--help` and the README show them.
EXIT_CODES: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "ok"),
    (EXIT_FAILED, "findings, drift or a failed check"),
    (EXIT_USAGE, "bad usage or input (nothing written)"),
    (EXIT_UPSTREAM, "an upstream service (Prometheus, Kubernetes API) could not be used"),
    (EXIT_INTERNAL, "internal error (a bug)"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
    (EXIT_STDOUT_CLOSED, "stdout closed by its reader"),
    (EXIT_TERMINATED, "terminated (SIGTERM; SIGHUP gives 129)"),
)


def exit_codes_help() -> str:
    """The one-line exit-code summary of `gpuplane --help`."""
    return "Exit codes: " + "; ".join(f"{code} {meaning}" for code, meaning in EXIT_CODES) + "."


class GpuplaneError(Exception):
    """Base of every error a user can cause; the CLI prints `lines()` and exits `exit_code`."""

    exit_code = EXIT_USAGE

    def lines(self, command: str = "gpuplane") -> list[str]:
        """The message as the CLI prints it, one line per problem."""
        return [f"{command}: error: {self}"]


class UsageError(GpuplaneError):
    """A command line that cannot be run: a missing or contradictory option, a bad value."""

    def __init__(self, message: str, *, option: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.option = option

    def __str__(self) -> str:
        return f"{self.option}: {self.message}" if self.option else self.message


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
class InputError(GpuplaneError):
    """Bad input: one or more located problems. Exit code 2."""

    problems: list[Problem] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)

    def lines(self, command: str = "gpuplane") -> list[str]:
        """One `file:line:col: error: path: message` line per problem."""
        return [str(p) for p in self.problems]

    @classmethod
    def single(
        cls, file: str, message: str, *, line: int | None = None, column: int | None = None, path: str = ""
    ) -> InputError:
        """An error with one problem."""
        return cls([Problem(file=file, line=line, column=column, path=path, message=message)])


class OutputError(InputError):
    """An output that cannot be written, or that gpuplane refuses to replace. Exit code 2."""

    @classmethod
    def at(cls, path: str, message: str) -> OutputError:
        """An output error about one path."""
        return cls([Problem(file=path, line=None, column=None, path="", message=message)])


class UpstreamError(GpuplaneError):
    """A service gpuplane reads is unreachable, too slow, or answers garbage. Exit code 3.

    `service` names it with credentials already redacted (e.g. "Prometheus http://***@host:9090").
    """

    exit_code = EXIT_UPSTREAM

    def __init__(self, service: str, message: str) -> None:
        super().__init__(f"{service}: {message}")
        self.service = service
        self.message = message


def exit_codes_markdown() -> str:
    """The exit codes as the README "Guarantees" section shows them (a test keeps the two equal)."""
    return "| exit code | meaning |\n|---|---|\n" + "".join(f"| {c} | {m} |\n" for c, m in EXIT_CODES)
