"""The registry of workload file formats: how each one's header is recognised and its rows read.

Detection tries the formats in registration order and takes the first whose header test
matches; a header that matches none, or a format name nobody registered, is an `InputError`
that lists what is known (never a guess with some other reader). To add a format, write a
reader module (rows in, `Workload`s out, bad rows through `Issues`) and register it:

    register_format(TraceFormat("slurm", "JobID,Submit,...", is_slurm_header, read_slurm))

docs/contributing.md ("Adding a trace format") has the checklist; tests/traces/test_formats.py
runs every registered format through detection and the bad-row rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from gpuplane.errors import InputError
from gpuplane.registry import Registry
from gpuplane.traces.csvformat import is_gpuplane_header, read_gpuplane_rows
from gpuplane.traces.model import Workload
from gpuplane.traces.openb import is_openb_header, read_openb
from gpuplane.traces.philly import DIRLAB_COLUMNS, POLLUX_COLUMNS, philly_origin, read_dirlab, read_pollux
from gpuplane.traces.rows import Issues

Rows = Iterator[tuple[int, list[str]]]
#: A reader: (the file, its header, its numbered rows, where bad rows go) -> workloads, streamed.
Reader = Callable[[Path, list[str], Rows, Issues], Iterator[Workload]]


@dataclass(frozen=True)
class TraceFormat:
    """One format: its name (and aliases), its header as people know it, the header test, the reader."""

    name: str
    header: str
    matches: Callable[[list[str]], bool]
    read: Reader
    aliases: tuple[str, ...] = ()


_FORMATS: Registry[TraceFormat] = Registry("trace format")
_ALIASES: dict[str, str] = {}


def register_format(fmt: TraceFormat) -> TraceFormat:
    """Add a format (detected after those registered before it); a name taken twice is a bug."""
    for name in (fmt.name, *fmt.aliases):
        if name in _FORMATS or name in _ALIASES or name == "auto":
            raise ValueError(f"trace format {name!r} is registered twice")
    _FORMATS.add(fmt.name, fmt)
    _ALIASES.update(dict.fromkeys(fmt.aliases, fmt.name))
    return fmt


def trace_formats() -> list[TraceFormat]:
    """Every registered format, in detection order."""
    return _FORMATS.values()


def format_names() -> tuple[str, ...]:
    """What `--format` accepts: `auto`, then every registered format's name."""
    return ("auto", *_FORMATS.names())


def resolve_name(name: str, file: str) -> str:
    """The registered name a `--format` value means (`auto` stays), or a UsageError listing them
    (`file`: the trace the format was asked for; the error is about the option)."""
    resolved = _ALIASES.get(name, name)
    if resolved != "auto":
        _FORMATS.get(resolved, option="--format", also=("auto",))  # a UsageError naming them
    return resolved


def detect_format(header: list[str], file: str) -> str:
    """The name of the first registered format whose header test matches, or InputError."""
    for fmt in _FORMATS.values():
        if fmt.matches(header):
            return fmt.name
    known = "; ".join(f"{f.name} ({f.header})" for f in _FORMATS.values())
    raise InputError.single(file, f"unknown workload format: the header matches none of {known}", line=1)


def format_named(name: str) -> TraceFormat:
    """A registered format by its name (after `resolve_name`/`detect_format`)."""
    return _FORMATS.get(name, option="--format")


def _read_pollux(path: Path, header: list[str], rows: Rows, issues: Issues) -> Iterator[Workload]:
    return read_pollux(header, rows, issues, philly_origin(path))


def _read_dirlab(path: Path, header: list[str], rows: Rows, issues: Issues) -> Iterator[Workload]:
    return read_dirlab(header, rows, issues)


def _read_gpuplane(path: Path, header: list[str], rows: Rows, issues: Issues) -> Iterator[Workload]:
    return read_gpuplane_rows(header, rows, issues)


def _read_openb(path: Path, header: list[str], rows: Rows, issues: Issues) -> Iterator[Workload]:
    return read_openb(header, rows, issues)


register_format(
    TraceFormat(
        "gpuplane", "id, class, submit_s, pod_sets, ...", is_gpuplane_header, _read_gpuplane, aliases=("csv",)
    )
)
register_format(
    TraceFormat(
        "philly-pollux",
        ",".join(POLLUX_COLUMNS),
        lambda header: tuple(header) == POLLUX_COLUMNS,
        _read_pollux,
        aliases=("philly", "pollux"),
    )
)
register_format(
    TraceFormat(
        "dirlab",
        ",".join(DIRLAB_COLUMNS[:3]) + ",...",
        lambda header: all(c in header for c in DIRLAB_COLUMNS),
        _read_dirlab,
        aliases=("helios",),
    )
)
register_format(
    TraceFormat("openb", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,...", is_openb_header, _read_openb)
)
