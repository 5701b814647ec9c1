"""`explain --eta`: when would each pending workload be admitted? Kueue's engine run forward.

Method: the same snapshot the explanation was computed on is driven forward in simulated time
with the `gpuplane.kueue` API the twin uses (`schedule_cycle`, `finish`, `release_preempted`).
Every admitted workload ends at a known or assumed time (its start plus its runtime: the job's
`activeDeadlineSeconds`, Kueue's max-exec-time-seconds label (`vocab.MAX_EXEC_TIME_SECONDS_LABEL`),
gpuplane's expected-runtime annotation (`vocab.ANNOTATION_EXPECTED_RUNTIME`), else
`--assume-runtime`); at each end its quota is
released and Kueue's cycles run again until nothing changes. Preempted workloads give their quota
back at once and queue again. End times are put on a grid (`resolution`, default one minute):
workloads ending within the same step release together, and a running workload already past its
runtime ends within the next step. Nothing new arrives. A workload whose
request exceeds what its ClusterQueue could ever get (nominal plus what it may borrow, for every
flavor it may use) is "never under the current quota" without simulating.
"""

from __future__ import annotations

import gc
import heapq
import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from gpuplane.durations import format_duration
from gpuplane.kube.quantity import format_quantity
from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.flavor_assigner import flavor_mismatch
from gpuplane.kueue.frozen import frozen_heap
from gpuplane.kueue.objects import Workload
from gpuplane.kueue.results import CycleResult
from gpuplane.kueue.scheduler import schedule_cycle
from gpuplane.kueue.snapshot import Snapshot

ADMITTED, ESTIMATED, NEVER, LATER = "admitted", "estimated", "never", "later"
MAX_CYCLES_PER_INSTANT = 10_000
MAX_PREEMPTIONS_PER_INSTANT = 3
#: The collector's youngest-generation threshold while Kueue's cycles run here (CPython's default
#: is 700 allocations). A cycle allocates hundreds of thousands of short-lived containers
#: (assignments, usage maps, reasons) that almost all die young and form no reference cycles, so
#: collecting every 700 of them only rescans survivors: on the 500 ClusterQueue / 50k snapshot the
#: default spent about 13 % of the compiled run in the collector (perf), and this threshold ran as
#: fast as no collector at all with the same peak memory (262 MB). Cyclic garbage is still collected.
GC_YOUNG_THRESHOLD = 200_000


@dataclass
class Eta:
    """When a workload gets quota: `seconds` from now (0 = now), or why not (`status`)."""

    workload: str
    status: str
    seconds: float | None = None
    reason: str = ""
    assumptions: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        """The JSON shape of one estimate."""
        return {
            "workload": self.workload,
            "status": self.status,
            "seconds": self.seconds,
            "reason": self.reason,
            "assumptions": list(self.assumptions),
        }


@dataclass(frozen=True)
class EtaTick:
    """Where a forward run is, after the cycles of one instant: `now` seconds of simulated time past
    the snapshot, `estimated` of `targets` pending workloads given an ETA (admitted, or never),
    `waiting` still without one. `backlog()` counts every pending workload of the snapshot (all
    ClusterQueues; walked only when called)."""

    now: float
    estimated: int
    waiting: int
    targets: int
    snap: Snapshot

    def backlog(self) -> int:
        """Every pending workload of the snapshot, over all ClusterQueues."""
        return sum(len(s.queue) for s in self.snap.cqs.values())


#: Called after each instant of a forward run (a progress line); it only reads.
EtaProgress = Callable[[EtaTick], None]


@dataclass
class EtaOptions:
    """Runtimes (seconds, per workload key, with where each comes from) and the simulation limits;
    `progress` is told where the run is after each instant (it changes nothing)."""

    assume_runtime: float = 7200.0
    runtimes: Mapping[str, tuple[float, str]] = field(default_factory=dict)
    resolution: float = 60.0
    horizon: float = 30 * 86400.0
    progress: EtaProgress | None = None


def never_reason(snap: Snapshot, wl: Workload) -> str | None:
    """Why `wl` can never be admitted under the current quota (None when it might be)."""
    if wl.problem is not None:
        return wl.problem
    cq_name, problem = snap.cq_for(wl)
    if problem is not None or cq_name is None:
        return problem or "no ClusterQueue"
    state = snap.cqs[cq_name]
    if state.inactive is not None:
        return state.inactive
    for ps in wl.pod_sets:
        count = ps.min_count if ps.min_count is not None else ps.count
        for res, per_pod in sorted(ps.per_pod.items()):
            need = per_pod * count
            group = state.group_of.get(res)
            if group is None:
                if need:
                    return f"resource {res} unavailable in ClusterQueue {cq_name}"
                continue
            caps = [
                rn.potential_available(state.node, (f.name, res))
                for f in group.flavors
                if f.name in snap.flavors and flavor_mismatch(snap.flavors[f.name], ps) is None
            ]
            if not caps or need > max(caps):
                most = format_quantity(max(caps)) if caps else "0 (no flavor matches the pod set)"
                return (
                    f"pod set {ps.name} needs {format_quantity(need)} {res}; ClusterQueue {cq_name} "
                    f"could get at most {most} (nominal quota plus what it may borrow)"
                )
    return None


@contextmanager
def eased_collector() -> Iterator[None]:
    """Long-lived state frozen out of the collector (`frozen_heap`) and its youngest generation
    collected every `GC_YOUNG_THRESHOLD` allocations, for the block; both restored after (a
    collector switched off, threshold 0, stays off). Decisions never depend on the collector."""
    old = gc.get_threshold()
    if old[0]:
        gc.set_threshold(max(old[0], GC_YOUNG_THRESHOLD), *old[1:])
    try:
        with frozen_heap():
            yield
    finally:
        gc.set_threshold(*old)


def _heads_waiting(snap: Snapshot) -> bool:
    return any(len(s.queue) > len(s.queue.inadmissible) for s in snap.cqs.values() if s.inactive is None)


def _parked(snap: Snapshot) -> int:
    return sum(len(s.queue.inadmissible) for s in snap.cqs.values())


def settle(
    snap: Snapshot, explain_pending: bool = False, loops: list[str] | None = None
) -> list[CycleResult]:
    """Kueue's cycles at one instant until a cycle changes nothing (victims release at once).

    This is what Kueue decides within seconds when no workload ends: each cycle considers one
    head per ClusterQueue, so a queue of ten admissible workloads takes ten cycles. When the
    same workload is preempted again and again at one instant (workloads whose ClusterQueues'
    policies let them preempt each other in turn), settling stops there and `loops` gets a line.
    """
    with eased_collector():
        return _settle(snap, explain_pending, loops)


def _settle(snap: Snapshot, explain_pending: bool, loops: list[str] | None) -> list[CycleResult]:
    out: list[CycleResult] = []
    evicted: dict[str, int] = {}
    for _ in range(MAX_CYCLES_PER_INSTANT):
        if not _heads_waiting(snap):
            break
        parked = _parked(snap)
        result = schedule_cycle(snap, explain_pending=explain_pending)
        out.append(result)
        if result.preempted:
            snap.release_preempted()
        for p in result.preempted:
            evicted[p.workload] = evicted.get(p.workload, 0) + 1
        looping = sorted(k for k, n in evicted.items() if n > MAX_PREEMPTIONS_PER_INSTANT)
        if looping:
            if loops is not None:
                loops.append(
                    f"preemption loop: {', '.join(looping[:4])} preempted more than "
                    f"{MAX_PREEMPTIONS_PER_INSTANT} times at one instant; the state after that is kept"
                )
            break
        if not (result.admitted or result.preempted) and _parked(snap) <= parked:
            break
    return out


class _Forward:
    def __init__(self, snap: Snapshot, options: EtaOptions) -> None:
        self.snap = snap
        self.opt = options
        self.start = snap.now
        self.events: list[tuple[float, str]] = []
        self.end_of: dict[str, float] = {}
        self.admitted_at: dict[str, float] = {}
        #: Workloads admitted for the first time since the last `settle` (a key of `admitted_at`).
        self.newly: list[str] = []
        self.loops: list[str] = []

    def runtime(self, key: str) -> float:
        known = self.opt.runtimes.get(key)
        return known[0] if known else self.opt.assume_runtime

    def _grid(self, t: float) -> float:
        step = self.opt.resolution
        return self.start + math.ceil((t - self.start) / step) * step if step > 0 else t

    def schedule_end(self, wl: Workload, started: float) -> None:
        """Queue the end of an admitted workload; one already past its runtime ends within a step."""
        end = self._grid(max(self.snap.now + self.opt.resolution, started + self.runtime(wl.key)))
        self.end_of[wl.key] = end
        heapq.heappush(self.events, (end, wl.key))

    def settle(self) -> None:
        """Cycles at the current instant until one changes nothing; admissions get an end."""
        for result in settle(self.snap, loops=self.loops):
            for a in result.admitted:
                if a.workload not in self.admitted_at:
                    self.admitted_at[a.workload] = self.snap.now
                    self.newly.append(a.workload)
                self.schedule_end(self.snap.workloads[a.workload], self.snap.now)
            for p in result.preempted:
                self.end_of.pop(p.workload, None)
                self.admitted_at.pop(p.workload, None)

    def advance(self) -> bool:
        """Release everything ending at the next event time; False when nothing is left to end."""
        while self.events:
            t, key = heapq.heappop(self.events)
            if self.end_of.get(key) != t:
                continue  # stale: preempted or finished already
            if t - self.start > self.opt.horizon:
                return False
            self.snap.now = t
            self._finish(key)
            while self.events and self.events[0][0] == t:
                _, other = heapq.heappop(self.events)
                if self.end_of.get(other) == t:
                    self._finish(other)
            return True
        return False

    def _finish(self, key: str) -> None:
        self.end_of.pop(key, None)
        self.snap.finish(key)


def estimate(
    snap: Snapshot, targets: list[str], options: EtaOptions | None = None, notes: list[str] | None = None
) -> dict[str, Eta]:
    """ETAs for the pending workloads `targets` (keys); runs `snap` forward (it is changed).

    `notes` collects what the run met on the way (preemption loops)."""
    opt = options or EtaOptions()
    snap.release_preempted()
    out: dict[str, Eta] = {}
    waiting: set[str] = set()
    for key in targets:
        wl = snap.workloads.get(key)
        if wl is None or wl.admission is not None:
            continue
        why = never_reason(snap, wl)
        if why is not None:
            out[key] = Eta(key, NEVER, None, f"never under the current quota: {why}")
        else:
            waiting.add(key)
    pending = len(out) + len(waiting)
    fwd = _Forward(snap, opt)
    for wl in snap.admitted():
        started = wl.quota_reserved_time if wl.quota_reserved_time is not None else snap.now
        fwd.schedule_end(wl, min(started, snap.now))
    with eased_collector():  # the snapshot lives the whole run: keep it out of the collector's scans
        while waiting:
            fwd.newly.clear()
            fwd.settle()
            # (what `waiting -= set(fwd.admitted_at)` did, without a walk over every admission so far:
            # only the keys this instant admitted can leave `waiting`, unless preempted since)
            waiting.difference_update(k for k in fwd.newly if k in fwd.admitted_at)
            if opt.progress is not None:
                opt.progress(
                    EtaTick(snap.now - fwd.start, pending - len(waiting), len(waiting), pending, snap)
                )
            if not waiting or not fwd.advance():
                break
    if notes is not None:
        notes.extend(dict.fromkeys(fwd.loops))  # each loop once, in order
    wanted = set(targets)  # (membership per admission: a list made this quadratic)
    for key, at in fwd.admitted_at.items():
        if key in wanted and key not in out:
            out[key] = Eta(key, ESTIMATED, at - fwd.start)
    for key in sorted(waiting - set(fwd.admitted_at)):
        horizon = format_duration(opt.horizon)
        out[key] = Eta(key, LATER, None, f"not admitted within {horizon} of simulated time, or never")
    return out


def assumptions_for(opt: EtaOptions) -> list[str]:
    """The runtime assumptions behind the ETAs, in words."""
    known = sorted({src for _, src in opt.runtimes.values() if src})
    lines = [
        f"workloads without a known runtime run {format_duration(opt.assume_runtime)} (--assume-runtime)"
    ]
    if known:
        lines.append("runtimes taken from " + "; ".join(known))
    lines.append(f"end times rounded up to {format_duration(opt.resolution)}; no new workloads arrive")
    return lines
