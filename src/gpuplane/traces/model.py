"""The one workload record every reader and the generator produce, and the simulator consumes.

Records are frozen dataclasses with `__slots__` and tuples inside, so that 800,000 of them stay
well under 1 GB. `source_line` is where a record came from; it is left out of equality so that a
record read back from the gpuplane CSV equals the record that was written.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal, get_args

from gpuplane.limits import limits

WorkloadClass = Literal["training", "inference", "batch"]
FinalStatus = Literal["completed", "failed", "killed"]

WORKLOAD_CLASSES: tuple[str, ...] = get_args(WorkloadClass)
FINAL_STATUSES: tuple[FinalStatus, ...] = get_args(FinalStatus)


@dataclass(frozen=True, slots=True)
class PodSet:
    """A group of identical pods of one workload (Kueue's podSet).

    `gpus_per_pod` is whole GPUs (1, 2, 8), a fraction of one GPU for shared pods (0.46 from
    Alibaba's `gpu_milli`), or, when `mig_profile` is set, the number of MIG devices of that
    profile per pod (the profile's MIG extended resource, `gpuplane.vocab.mig_resource`). 0 means a
    CPU-only pod.
    """

    name: str
    count: int
    gpus_per_pod: float
    mig_profile: str | None = None
    cpu_milli: int = 0
    memory_mib: int = 0

    @property
    def gpus(self) -> float:
        """GPUs (or MIG devices) the whole pod set requests: count x per-pod request."""
        return self.count * self.gpus_per_pod


def gang_limit_problem(pod_sets: tuple[PodSet, ...]) -> str | None:
    """Why a gang is larger than gpuplane models (`limits().pods_per_workload` pods and
    `limits().gpus_per_trace_row` GPUs, MIG devices or shares in total), or None. The twin keeps
    every pod of a gang, so these bound the memory one trace row can ask for."""
    lim = limits()
    pods = sum(ps.count for ps in pod_sets)
    if pods > lim.pods_per_workload:
        return f"{pods} pods; a workload has at most {lim.pods_per_workload} (limits: pods_per_workload)"
    gpus = sum(ps.gpus for ps in pod_sets)
    if gpus > lim.gpus_per_trace_row:
        return f"{gpus:g} GPUs; a workload has at most {lim.gpus_per_trace_row} (limits: gpus_per_trace_row)"
    return None


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """How a training job saves progress: every `interval_s` of run it spends `write_s` writing;
    after an eviction it spends `restore_s` before resuming from the last checkpoint."""

    interval_s: float
    write_s: float
    restore_s: float


@dataclass(frozen=True, slots=True)
class Workload:
    """One unit that Kueue admits as a whole (a gang), from a trace, a CSV or the generator.

    Exactly one of `work_gpu_seconds` (GPU-seconds at full speed; the run takes
    work / total_gpus seconds on the requested devices) and `run_time` (a fixed run time in
    seconds, e.g. a service's lifetime or a CPU-only pod) is set.
    `submit` is seconds from the start of the trace. A `failed` or `killed` workload stops after
    `end_at_fraction` of its run (1.0 = at the end of what the trace recorded).
    `gpu_model` is a constraint: allowed models separated by `|` (None = any).
    `team` starts equal to `queue` (the trace's VC/user/queue) until `map_teams` assigns spec teams.
    """

    id: str
    team: str
    queue: str
    klass: WorkloadClass
    submit: float
    pod_sets: tuple[PodSet, ...]
    work_gpu_seconds: float | None = None
    run_time: float | None = None
    priority: int = 0
    checkpoint: Checkpoint | None = None
    final_status: FinalStatus = "completed"
    end_at_fraction: float = 1.0
    gpu_model: str | None = None
    user: str | None = None
    source_line: int = field(default=0, compare=False)

    @property
    def total_gpus(self) -> float:
        """GPUs (or MIG devices) requested by all pod sets together."""
        return sum(ps.count * ps.gpus_per_pod for ps in self.pod_sets)

    @property
    def total_pods(self) -> int:
        """Pods in the gang (all of them are placed or none)."""
        return sum(ps.count for ps in self.pod_sets)

    @property
    def mig_profiles(self) -> tuple[str, ...]:
        """MIG profiles requested by any pod set, in pod-set order."""
        return tuple(ps.mig_profile for ps in self.pod_sets if ps.mig_profile is not None)

    @property
    def duration(self) -> float:
        """Seconds the complete run takes at full speed on the requested devices."""
        if self.run_time is not None:
            return self.run_time
        gpus = self.total_gpus
        if self.work_gpu_seconds is None or gpus <= 0:
            raise ValueError(f"workload {self.id} has neither run_time nor GPU work it can divide")
        return self.work_gpu_seconds / gpus

    @property
    def stop_after(self) -> float:
        """Seconds of full-speed run after which the workload ends (fails, is killed or completes)."""
        return self.duration * self.end_at_fraction

    @property
    def allowed_gpu_models(self) -> tuple[str, ...]:
        """The GPU-model constraint as a tuple (empty = any model)."""
        return tuple(self.gpu_model.split("|")) if self.gpu_model else ()


def timed_work(
    klass: WorkloadClass, pod_sets: tuple[PodSet, ...], seconds: float
) -> tuple[float | None, float | None]:
    """(work_gpu_seconds, run_time) for a run of `seconds` observed in a trace.

    Services and CPU-only workloads have a fixed lifetime (run_time); GPU jobs carry GPU-seconds
    of work so that the simulator can stretch them when they run slower (shared GPUs, restarts).
    """
    gpus = sum(ps.count * ps.gpus_per_pod for ps in pod_sets)
    if klass == "inference" or gpus <= 0:
        return None, seconds
    return seconds * gpus, None


def check_workload(w: Workload) -> list[tuple[str, str]]:
    """Problems with a record as (field, message) pairs; empty when it is consistent.

    Readers call this so a bad row is reported with its line and never silently changed.
    """
    problems: list[tuple[str, str]] = []
    if not w.id:
        problems.append(("id", "must not be empty"))
    if w.klass not in WORKLOAD_CLASSES:
        problems.append(("class", f"{w.klass!r} is not one of {', '.join(WORKLOAD_CLASSES)}"))
    if w.final_status not in FINAL_STATUSES:
        problems.append(("final_status", f"{w.final_status!r} is not one of {', '.join(FINAL_STATUSES)}"))
    if not w.submit >= 0:
        problems.append(("submit_s", f"{w.submit} must be >= 0"))
    if not w.pod_sets:
        problems.append(("pod_sets", "a workload needs at least one pod set"))
    for ps in w.pod_sets:
        problems.extend(_check_pod_set(ps))
    if (w.work_gpu_seconds is None) == (w.run_time is None):
        problems.append(("work_gpu_s", "set exactly one of work_gpu_s and run_time_s"))
    elif w.work_gpu_seconds is not None:
        if not w.work_gpu_seconds > 0:
            problems.append(("work_gpu_s", f"{w.work_gpu_seconds} must be > 0"))
        if w.pod_sets and not w.total_gpus > 0:
            problems.append(("work_gpu_s", "GPU work needs a pod set that requests GPUs; use run_time_s"))
    elif w.run_time is not None and not w.run_time >= 0:
        problems.append(("run_time_s", f"{w.run_time} must be >= 0"))
    if not 0 < w.end_at_fraction <= 1:
        problems.append(("end_at_fraction", f"{w.end_at_fraction} must be in (0, 1]"))
    if w.final_status == "completed" and w.end_at_fraction != 1:
        problems.append(("end_at_fraction", "a completed workload runs to the end (1)"))
    if w.checkpoint is not None:
        problems.extend(_check_checkpoint(w.checkpoint))
    return problems


def _check_pod_set(ps: PodSet) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    if not ps.name:
        problems.append(("pod_sets", "a pod set needs a name"))
    if ps.count < 1:
        problems.append(("pod_sets", f"pod set {ps.name!r}: count {ps.count} must be >= 1"))
    if not ps.gpus_per_pod >= 0:
        problems.append(("pod_sets", f"pod set {ps.name!r}: GPUs per pod {ps.gpus_per_pod} must be >= 0"))
    elif ps.gpus_per_pod > 1 and not float(ps.gpus_per_pod).is_integer():
        problems.append(("pod_sets", f"pod set {ps.name!r}: more than one GPU must be a whole number"))
    if ps.mig_profile is not None and not float(ps.gpus_per_pod).is_integer():
        problems.append(("pod_sets", f"pod set {ps.name!r}: MIG devices per pod must be a whole number"))
    if ps.cpu_milli < 0 or ps.memory_mib < 0:
        problems.append(("pod_sets", f"pod set {ps.name!r}: CPU and memory must be >= 0"))
    return problems


def _check_checkpoint(cp: Checkpoint) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    if not cp.interval_s > 0:
        problems.append(("checkpoint_interval_s", f"{cp.interval_s} must be > 0"))
    if not cp.write_s >= 0:
        problems.append(("checkpoint_write_s", f"{cp.write_s} must be >= 0"))
    if not cp.restore_s >= 0:
        problems.append(("checkpoint_restore_s", f"{cp.restore_s} must be >= 0"))
    return problems


def with_checkpoint(w: Workload, checkpoint: Checkpoint | None) -> Workload:
    """The same workload with checkpointing set (training only; others are returned unchanged).

    Traces do not record checkpointing; a what-if run can add it with this.
    """
    if w.klass != "training":
        return w
    return replace(w, checkpoint=checkpoint)
