"""One entry point for every workload file: detect the format from the header (the registry in
`formats`), stream the records, collect the warnings, and optionally map trace queues to the
spec's teams."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import overload

from gpuplane.errors import InputError, Problem
from gpuplane.inputs import display_name
from gpuplane.limits import limits
from gpuplane.traces.formats import detect_format, format_named, format_names, resolve_name
from gpuplane.traces.model import Workload
from gpuplane.traces.rows import Issues, numbered_rows, open_csv
from gpuplane.traces.teams import TeamMap, iter_map_teams, load_team_map

#: The built-in formats (what `--format` accepts is `formats.format_names()`, registered ones included).
FORMATS: tuple[str, ...] = format_names()


class WorkloadStream:
    """Workloads of one file, read lazily row by row. `warnings` fills while iterating.

    The header is read (and the format detected) when the stream is made, so a wrong file fails
    at once. Each iteration reads the file again from the start.
    """

    def __init__(
        self, path: Path | str, fmt: str = "auto", *, strict: bool = False, limit: int | None = None
    ):
        self.path = Path(path)
        self.file = display_name(path)
        self.strict = strict
        self.limit = limit
        self.issues = Issues(self.file, strict)
        wanted = resolve_name(fmt, self.file)
        with open_csv(self.path) as stream:
            header, _ = numbered_rows(stream, self.file)
        detected = detect_format(header, self.file)
        if wanted not in ("auto", detected):
            raise InputError.single(
                self.file, f"asked for format {wanted!r} but the header is {detected!r}", line=1
            )
        self.format = detected

    @property
    def warnings(self) -> list[Problem]:
        """The warnings of the rows read so far."""
        return self.issues.warnings

    def __iter__(self) -> Iterator[Workload]:
        self.issues.reset()
        reader = format_named(self.format).read
        with open_csv(self.path) as stream:
            header, rows = numbered_rows(stream, self.file, self.issues)
            records = within_limits(reader(self.path, header, rows, self.issues), self.issues)
            yield from (records if self.limit is None else islice(records, self.limit))


def time_limit_problem(w: Workload) -> tuple[str, str] | None:
    """(column, why) when a workload's submit time or run length is beyond the stated limits
    (`limits().simulated_time_s`, `limits().job_run_s`), or None. Simulated time is a float of
    seconds: beyond the limit a step no longer moves the clock, and a job longer than a year
    restarts from scratch after node failures without end."""
    lim = limits()
    if w.submit > lim.simulated_time_s:
        return (
            "submit_s",
            f"submit time {w.submit:g} s is beyond the simulated-time limit of {lim.simulated_time_s:,} s "
            "(10 years; limits: simulated_time_s)",
        )
    gpus = w.total_gpus
    if w.run_time is not None:
        length, column = w.run_time, "run_time_s"
    elif w.work_gpu_seconds is not None and gpus > 0:
        length, column = w.work_gpu_seconds / gpus, "work_gpu_s"
    else:
        return None
    if length > lim.job_run_s:
        return (
            column,
            f"a run of {length:g} s is longer than the job-length limit of {lim.job_run_s:,} s "
            "(1 year; limits: job_run_s)",
        )
    return None


def within_limits(records: Iterable[Workload], issues: Issues) -> Iterator[Workload]:
    """The records, each row beyond a time limit reported as a bad row (skipped, or the error
    under --strict) with its line, as the readers report their own bad rows."""
    for w in records:
        problem = time_limit_problem(w)
        if problem is None:
            yield w
        else:
            issues.bad_row(w.source_line, *problem)


def read_workloads(
    path: Path | str, fmt: str = "auto", *, strict: bool = False, limit: int | None = None
) -> WorkloadStream:
    """A streaming reader for any supported file (see `WorkloadStream`)."""
    return WorkloadStream(path, fmt, strict=strict, limit=limit)


@dataclass
class WorkloadSet(Sequence[Workload]):
    """Workloads read from one file, sorted by submit time (ties keep file order), and the
    warnings about rows that were skipped."""

    workloads: list[Workload]
    warnings: list[Problem] = field(default_factory=list)
    format: str = "gpuplane"
    source: str = ""

    def __len__(self) -> int:
        return len(self.workloads)

    @overload
    def __getitem__(self, i: int) -> Workload: ...
    @overload
    def __getitem__(self, i: slice) -> list[Workload]: ...
    def __getitem__(self, i: int | slice) -> Workload | list[Workload]:
        return self.workloads[i]

    def __iter__(self) -> Iterator[Workload]:
        return iter(self.workloads)

    @property
    def queues(self) -> list[str]:
        """The distinct trace queues, sorted."""
        return sorted({w.queue for w in self.workloads})


def load_workload(
    path: Path | str,
    fmt: str = "auto",
    team_map: TeamMap | Mapping[str, str] | Path | str | None = None,
    strict: bool = False,
    limit: int | None = None,
    teams: Sequence[str] | None = None,
) -> WorkloadSet:
    """Read a workload file whole: format from the header (or `fmt`), bad rows skipped with
    warnings (or the first one raises InputError when `strict`), at most `limit` rows.

    With `teams` (the platform spec's team names), every workload's team becomes one of them via
    `team_map` (a TeamMap, a dict, or the path of a team-map YAML file) or the deterministic
    default; without `teams`, a `team_map` is an error and teams stay the trace's queues.
    """
    stream = read_workloads(path, fmt, strict=strict, limit=limit)
    records: Iterator[Workload] = iter(stream)
    if teams is not None:
        tmap = load_team_map(team_map) if isinstance(team_map, (str, Path)) else team_map
        records = iter_map_teams(records, teams, tmap)
    elif team_map is not None:
        raise ValueError("a team map needs the spec's teams (teams=...)")
    workloads = sorted(records, key=_submit)
    return WorkloadSet(workloads, list(stream.warnings), stream.format, str(path))


def _submit(w: Workload) -> float:
    return w.submit
