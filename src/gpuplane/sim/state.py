"""Per-workload state of a run and the GPU-second ledger it feeds.

Every second a workload holds GPUs lands in exactly one bucket of the ledger, per team and pool:
useful (progress of a run that is not a failure), idle (checkpoint writes, and on a shared GPU
the time a pod waits for its share: see sim/contention.py), failed (all held time of runs the
trace says failed or were killed), lost (restore time and progress lost since the last
checkpoint on eviction, preemption or node failure, and the grace a preempted pod takes to
terminate). So held = useful + idle + failed + lost.

A run segment keeps a virtual clock: seconds of work at the speed the trace records. It moves at
the run's work rate (1 unless the GPU is shared and crowded), so progress, checkpoints and the
finish time follow the rate while GPU time is held for wall-clock seconds.
"""

from __future__ import annotations

from gpuplane.costs import GpuTime
from gpuplane.sim.progress import cut, wall_to_finish
from gpuplane.sim.requests import Ask, PodRequest
from gpuplane.traces import Workload

QUEUED, ADMITTED, RUNNING, DONE, REJECTED, TERMINATING = range(6)
STATE_NAMES = ("pending", "admitted", "running", "done", "rejected", "terminating")
USEFUL, IDLE, FAILED, LOST = range(4)
#: What each ledger index holds (the twin measures every held second, so it has no `unmeasured`).
LEDGER_KINDS = (GpuTime.USEFUL, GpuTime.IDLE, GpuTime.FAILED, GpuTime.EVICTED_LOST)


def _stop_after(w: Workload, total_gpus: float) -> float:
    """`w.stop_after` with the GPU total of its `Ask` (the same arithmetic as `Workload.duration`
    and `stop_after`, without their three Python property calls per workload)."""
    run_time = w.run_time
    if run_time is None:
        work = w.work_gpu_seconds
        if work is None or total_gpus <= 0:
            return w.stop_after  # raises the workload's own error
        run_time = work / total_gpus
    return run_time * w.end_at_fraction


class Run:
    """What happened to one workload: waits, runs, interruptions, GPU-seconds and cost."""

    __slots__ = (
        "base",
        "capacity_wait",
        "cost",
        "down_since",
        "downtime",
        "end",
        "evictions",
        "first_admit",
        "first_start",
        "gen",
        "gpu_eq",
        "held_gs",
        "idx",
        "lost_gs",
        "need",
        "outcome",
        "pool",
        "preemptions",
        "price",
        "quota_wait",
        "rate",
        "rate_since",
        "restore",
        "runs",
        "seg_start",
        "shape",
        "state",
        "submit",
        "target",
        "team",
        "virt",
        "w",
        "wait_since",
    )

    def __init__(self, idx: int, w: Workload, team: int, shape: Ask) -> None:
        self.idx = idx
        self.w = w
        self.team = team
        self.shape = shape
        self.state = QUEUED
        self.pool = -1
        self.gpu_eq = 0.0
        self.price = 0.0  # per GPU-second of the current pool
        self.target = _stop_after(w, shape.total_gpus) if shape.requests else 0.0
        self.submit = w.submit
        self.first_admit: float | None = None
        self.first_start: float | None = None
        self.end: float | None = None
        self.wait_since = w.submit
        self.quota_wait = 0.0
        self.capacity_wait = 0.0
        self.runs = 0
        self.evictions = 0
        self.preemptions = 0
        self.base = 0.0
        self.seg_start = 0.0
        self.restore = 0.0
        self.gen = 0
        self.need = 0.0  # virtual seconds the current segment needs to finish
        self.rate = 1.0  # work rate since `rate_since`
        self.rate_since = 0.0
        self.virt = 0.0  # virtual seconds the segment had done at `rate_since`
        self.held_gs = 0.0
        self.lost_gs = 0.0
        self.cost = 0.0
        self.down_since: float | None = None
        self.downtime = 0.0
        self.outcome = "pending"

    @property
    def requests(self) -> tuple[PodRequest, ...]:
        """Per-pod requests of every GPU pod set."""
        return self.shape.requests

    @property
    def pods(self) -> list[tuple[str, int]]:
        """The gang as (resource, units) per pod."""
        return self.shape.pods

    @property
    def fails(self) -> bool:
        """Whether the trace says this workload ends in failure (failed or killed)."""
        return self.w.final_status != "completed"

    @property
    def resumes_in_place(self) -> bool:
        """Services (fixed run time) pick up where they stopped: they lose availability, not work."""
        return self.w.run_time is not None

    def start_segment(self, now: float, rate: float = 1.0) -> float:
        """Begin a run on placed pods at work rate `rate`; returns the time it would finish."""
        ckpt = self.w.checkpoint
        self.restore = (
            ckpt.restore_s if (ckpt is not None and self.base > 0 and not self.resumes_in_place) else 0.0
        )
        self.seg_start = now
        self.state = RUNNING
        self.runs += 1
        self.gen += 1
        self.capacity_wait += now - self.wait_since
        if self.first_start is None:
            self.first_start = now
        if self.down_since is not None:
            self.downtime += now - self.down_since
            self.down_since = None
        self.need = wall_to_finish(
            self.base, self.target, None if ckpt is None or self.resumes_in_place else ckpt, self.restore
        )
        self.rate, self.rate_since, self.virt = rate, now, 0.0
        return now + self.need / rate

    def set_rate(self, now: float, rate: float) -> float:
        """Change the work rate of the running segment from `now`; returns its new finish time."""
        self.virt += (now - self.rate_since) * self.rate
        self.rate, self.rate_since = rate, now
        self.gen += 1  # the finish event scheduled for the old rate no longer applies
        return now + (self.need - self.virt) / rate

    def virtual_elapsed(self, now: float) -> float:
        """Virtual seconds the running segment has done by `now`."""
        return self.virt + (now - self.rate_since) * self.rate

    def stop_segment(self, now: float, ledger: Ledger, finished: bool, horizon: bool = False) -> None:
        """End the current run and book its GPU time.

        `finished`: it reached its end; else it was interrupted (work since the last checkpoint is
        lost) unless `horizon` cut it, where work done so far simply counts as done.
        """
        elapsed = now - self.seg_start
        ckpt = self.w.checkpoint
        if ckpt is not None and self.resumes_in_place:
            ckpt = None
        if finished:
            virtual = self.need
            progress, saved = self.target, self.target
            restore, write = self.restore, virtual - self.restore - (self.target - self.base)
        else:
            virtual = self.virtual_elapsed(now)
            c = cut(self.base, self.target, ckpt, self.restore, virtual)
            progress, restore, write = c.progress, c.restore_s, c.write_s
            saved = progress if (self.resumes_in_place or horizon) else c.saved
        g = self.gpu_eq
        lost = (restore + progress - saved) * g
        kept = (saved - self.base) * g
        # Checkpoint writes, and the wall time the pod waited for its share of a crowded GPU.
        written = (write + (elapsed - virtual if self.rate != 1.0 or self.virt else 0.0)) * g
        if self.fails:
            ledger.add(self.team, self.pool, FAILED, kept + written)
        else:
            ledger.add(self.team, self.pool, USEFUL, kept)
            ledger.add(self.team, self.pool, IDLE, written)
        ledger.add(self.team, self.pool, LOST, lost)
        self.lost_gs += lost
        self.held_gs += elapsed * g
        self.cost += elapsed * g * self.price
        self.base = saved
        self.gen += 1

    def done(self, now: float) -> None:
        """The workload ended: keep what the outputs read, drop the segment's scratch values.

        Setting them to shared constants frees one boxed float each: a run of 800,000 jobs keeps
        every finished `Run`, so this is most of what a finished one would otherwise hold.
        """
        self.state, self.end = DONE, now
        self.outcome = self.w.final_status
        self.base = self.seg_start = self.restore = self.need = self.rate_since = self.virt = 0.0
        self.wait_since = self.target = self.price = 0.0
        self.rate = 1.0

    def hold(self, since: float, now: float, ledger: Ledger) -> None:
        """Book GPUs held without working from `since` to `now` (a preempted pod terminating)."""
        g = self.gpu_eq * (now - since)
        ledger.add(self.team, self.pool, LOST, g)
        self.lost_gs += g
        self.held_gs += g
        self.cost += g * self.price


class Ledger:
    """GPU-seconds by team, pool and kind (useful, idle, failed, lost)."""

    def __init__(self, teams: int, pools: int) -> None:
        self.gs = [[[0.0] * 4 for _ in range(pools)] for _ in range(teams)]

    def add(self, team: int, pool: int, kind: int, gpu_seconds: float) -> None:
        """Book GPU-seconds of one kind."""
        if gpu_seconds:
            self.gs[team][pool][kind] += gpu_seconds

    def by_pool(self, pool: int) -> list[float]:
        """The four kinds summed over teams for one pool."""
        return [sum(self.gs[t][pool][k] for t in range(len(self.gs))) for k in range(4)]
