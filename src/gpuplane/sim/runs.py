"""What happened to each workload of a run, kept as columns (`RunTable`), read as `RunRecord`s.

While a workload is live the engine works on its `state.Run`; once it is done (or the run ends)
its results move here, 8 bytes per figure and nothing boxed, and the `Run` is dropped: a run of
800,000 jobs keeps every workload's results, so this is most of the twin's memory. Reading
`outcome.runs[i]` (or iterating) builds a small `RunRecord` with the same field names as `Run`.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator, Sequence
from typing import SupportsIndex, overload

from gpuplane.sim.state import STATE_NAMES, Run
from gpuplane.traces import Workload

#: How a workload ended, as stored (index into this tuple).
OUTCOMES: tuple[str, ...] = ("pending", "admitted", "running", "completed", "failed", "killed", "rejected")
_OUTCOME_CODE = {name: i for i, name in enumerate(OUTCOMES)}
_NONE = math.nan  # stands for None in the optional time columns
_FLOATS = (
    "first_admit",
    "first_start",
    "end",
    "quota_wait",
    "capacity_wait",
    "held_gs",
    "lost_gs",
    "downtime",
    "cost",
    "gpu_eq",
)
_OPTIONAL = frozenset(("first_admit", "first_start", "end"))
_INTS = ("team", "pool", "runs", "evictions", "preemptions", "state")


class RunRecord:
    """One workload's results (the fields of `state.Run` that outputs and reports read)."""

    __slots__ = (
        "capacity_wait",
        "cost",
        "downtime",
        "end",
        "evictions",
        "first_admit",
        "first_start",
        "gpu_eq",
        "held_gs",
        "idx",
        "lost_gs",
        "outcome",
        "pool",
        "preemptions",
        "quota_wait",
        "runs",
        "state",
        "team",
        "w",
    )

    idx: int
    w: Workload
    team: int
    pool: int
    state: int
    outcome: str
    first_admit: float | None
    first_start: float | None
    end: float | None
    quota_wait: float
    capacity_wait: float
    runs: int
    evictions: int
    preemptions: int
    held_gs: float
    lost_gs: float
    downtime: float
    cost: float
    gpu_eq: float

    @property
    def submit(self) -> float:
        """When the workload was submitted (seconds from the start of the trace)."""
        return self.w.submit

    def __repr__(self) -> str:
        return f"<RunRecord {self.idx} {self.w.id} {STATE_NAMES[self.state]} {self.outcome}>"


class RunTable(Sequence[RunRecord]):
    """Results of the workloads of one run, in submission order (`idx`)."""

    def __init__(self, capacity: int) -> None:
        zeros = bytes(8 * capacity)
        self._w: list[Workload | None] = [None] * capacity
        self._f = {name: array("d", zeros) for name in _FLOATS}
        self._i = {name: array("q", zeros) for name in _INTS}
        self._outcome = array("b", bytes(capacity))
        self._len = 0
        # The same columns as attributes: `store` runs once per workload and reaches each without
        # a lookup by name.
        f, n = self._f, self._i
        self._first_admit, self._first_start, self._end = f["first_admit"], f["first_start"], f["end"]
        self._quota_wait, self._capacity_wait = f["quota_wait"], f["capacity_wait"]
        self._held_gs, self._lost_gs, self._downtime = f["held_gs"], f["lost_gs"], f["downtime"]
        self._cost, self._gpu_eq = f["cost"], f["gpu_eq"]
        self._team, self._pool, self._runs = n["team"], n["pool"], n["runs"]
        self._evictions, self._preemptions, self._state = n["evictions"], n["preemptions"], n["state"]

    def store(self, run: Run) -> None:
        """Keep a workload's results (its `Run` may be dropped afterwards)."""
        idx = run.idx
        self._w[idx] = run.w
        # The index boxed once (as SupportsIndex, compiled code keeps it an object) for the 17 array
        # stores below, not once each.
        i: SupportsIndex = idx
        admit, start, end = run.first_admit, run.first_start, run.end
        self._first_admit[i] = _NONE if admit is None else admit
        self._first_start[i] = _NONE if start is None else start
        self._end[i] = _NONE if end is None else end
        self._quota_wait[i] = run.quota_wait
        self._capacity_wait[i] = run.capacity_wait
        self._held_gs[i] = run.held_gs
        self._lost_gs[i] = run.lost_gs
        self._downtime[i] = run.downtime
        self._cost[i] = run.cost
        self._gpu_eq[i] = run.gpu_eq
        self._team[i] = run.team
        self._pool[i] = run.pool
        self._runs[i] = run.runs
        self._evictions[i] = run.evictions
        self._preemptions[i] = run.preemptions
        self._state[i] = run.state
        self._outcome[i] = _OUTCOME_CODE[run.outcome]
        if idx >= self._len:
            self._len = idx + 1

    def __len__(self) -> int:
        return self._len

    def _record(self, i: int) -> RunRecord:
        w = self._w[i]
        if w is None:
            raise IndexError(f"workload {i} has no results yet")
        rec = RunRecord()
        rec.idx, rec.w, rec.outcome = i, w, OUTCOMES[self._outcome[i]]
        for name in _FLOATS:
            value = self._f[name][i]
            setattr(rec, name, None if name in _OPTIONAL and math.isnan(value) else value)
        for name in _INTS:
            setattr(rec, name, self._i[name][i])
        return rec

    @overload
    def __getitem__(self, i: int) -> RunRecord: ...
    @overload
    def __getitem__(self, i: slice) -> list[RunRecord]: ...
    def __getitem__(self, i: int | slice) -> RunRecord | list[RunRecord]:
        if isinstance(i, slice):
            return [self._record(k) for k in range(*i.indices(self._len))]
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError(i)
        return self._record(i)

    def __iter__(self) -> Iterator[RunRecord]:
        return (self._record(i) for i in range(self._len))
