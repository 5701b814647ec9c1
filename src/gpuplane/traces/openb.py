"""Reader for the Alibaba GPU-sharing pod lists (`openb_pod_list_*.csv`, FGD, ATC'23).

Each pod is one workload with one pod: whole GPUs, or a fraction of one GPU from `gpu_milli`,
an optional GPU-model constraint from `gpu_spec`, and class and priority from the QoS
(`openb_qos.yaml`). Pods replay by time: submit = creation, run = deletion - scheduled.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml

from gpuplane.errors import InputError
from gpuplane.traces.model import FinalStatus, PodSet, Workload, WorkloadClass, gang_limit_problem, timed_work
from gpuplane.traces.rows import BadRow, Issues, cell, column_index, to_float, to_int

OPENB_COLUMNS = (
    "name",
    "cpu_milli",
    "memory_mib",
    "num_gpu",
    "gpu_milli",
    "gpu_spec",
    "qos",
    "pod_phase",
    "creation_time",
    "deletion_time",
    "scheduled_time",
)
_TIMELESS = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")


@dataclass(frozen=True)
class QosRule:
    """The workload class and priority an openb QoS value maps to."""

    klass: WorkloadClass
    priority: int


@dataclass(frozen=True)
class OpenbMapping:
    """QoS -> (class, priority) and pod phase -> final status, from the packaged data file."""

    qos: dict[str, QosRule]
    phase: dict[str, FinalStatus]


@lru_cache(maxsize=1)
def openb_mapping() -> OpenbMapping:
    """The packaged mapping (read once)."""
    raw = yaml.safe_load(resources.files("gpuplane.traces").joinpath("openb_qos.yaml").read_text("utf-8"))
    return OpenbMapping(
        qos={str(k): QosRule(v["class"], int(v["priority"])) for k, v in raw["qos"].items()},
        phase={str(k): v for k, v in raw["phase"].items()},
    )


def is_openb_header(header: list[str]) -> bool:
    """True for an openb pod list, including the `multigpu*` variants without times."""
    return tuple(header[: len(_TIMELESS)]) == _TIMELESS


def _gpus(num_gpu: int, gpu_milli: int) -> float:
    if num_gpu == 0:
        if gpu_milli != 0:
            raise BadRow("gpu_milli", f"{gpu_milli} for a pod with no GPU")
        return 0.0
    if gpu_milli == 1000:
        return float(num_gpu)
    if num_gpu == 1 and 0 < gpu_milli < 1000:
        return gpu_milli / 1000
    raise BadRow(
        "gpu_milli", f"{gpu_milli} is not 1000, nor a share (1-999) of a single GPU ({num_gpu} GPUs)"
    )


def _times(row: list[str], index: dict[str, int]) -> tuple[float, float]:
    """(submit, run seconds) from creation, scheduled and deletion times."""
    created = to_float(cell(row, index, "creation_time"), "creation_time", minimum=0)
    scheduled = to_float(cell(row, index, "scheduled_time"), "scheduled_time", minimum=0)
    deleted = to_float(cell(row, index, "deletion_time"), "deletion_time", minimum=0)
    if scheduled < created:
        raise BadRow("scheduled_time", f"{scheduled:g} is before the creation time {created:g}")
    if deleted < scheduled:
        raise BadRow("deletion_time", f"{deleted:g} is before the scheduled time {scheduled:g}")
    return created, deleted - scheduled


def _parse(row: list[str], index: dict[str, int], line: int, mapping: OpenbMapping) -> Workload:
    name = cell(row, index, "name")
    if not name:
        raise BadRow("name", "empty")
    cpu = to_int(cell(row, index, "cpu_milli"), "cpu_milli", minimum=0)
    mem = to_int(cell(row, index, "memory_mib"), "memory_mib", minimum=0)
    gpus = _gpus(
        to_int(cell(row, index, "num_gpu"), "num_gpu", minimum=0),
        to_int(cell(row, index, "gpu_milli"), "gpu_milli", minimum=0),
    )
    qos = cell(row, index, "qos")
    rule = mapping.qos.get(qos)
    if rule is None:
        raise BadRow("qos", f"{qos!r} is not one of {', '.join(mapping.qos)}")
    status = mapping.phase[cell(row, index, "pod_phase")]
    submit, run = _times(row, index)
    pod_sets = (PodSet("pod", 1, gpus, None, cpu, mem),)
    work, fixed = timed_work(rule.klass, pod_sets, run)
    if work is not None and work <= 0:
        raise BadRow("deletion_time", "a GPU job needs a run time > 0 (deletion after scheduling)")
    return Workload(
        name,
        qos,
        qos,
        rule.klass,
        submit,
        pod_sets,
        work,
        fixed,
        rule.priority,
        None,
        status,
        1.0,
        cell(row, index, "gpu_spec") or None,
        None,
        line,
    )


def read_openb(
    header: list[str], rows: Iterator[tuple[int, list[str]]], issues: Issues
) -> Iterator[Workload]:
    """Stream workloads from an openb pod list. Queue = team = the QoS class.

    Pods that never ran (`pod_phase` Pending, no scheduled time) cannot be replayed: they are left
    out and counted in one warning. The `multigpu*` variants have no times: an error.
    """
    if "creation_time" not in header:
        raise InputError.single(
            issues.file,
            "this openb pod list has no creation/deletion times (a multigpu* variant); "
            "it cannot be replayed by time",
            line=1,
        )
    index = column_index(header, OPENB_COLUMNS, issues.file)
    mapping = openb_mapping()
    pending: list[int] = []  # the first few lines, for the message
    pending_count = 0
    for line, row in rows:
        try:
            phase = cell(row, index, "pod_phase")
            if phase == "Pending":
                pending_count += 1
                if len(pending) < 5:
                    pending.append(line)
                continue
            if phase not in mapping.phase:
                raise BadRow("pod_phase", f"{phase!r} is not one of Pending, {', '.join(mapping.phase)}")
            w = _parse(row, index, line, mapping)
            too_large = gang_limit_problem(w.pod_sets)
            if too_large is not None:
                raise BadRow("num_gpu", too_large)
        except BadRow as bad:
            issues.bad_row(line, bad.column, bad.message)
            continue
        yield w
    if pending:
        shown = ", ".join(str(n) for n in pending) + (", ..." if pending_count > len(pending) else "")
        issues.note(
            pending[0],
            "pod_phase",
            f"{pending_count} pods never ran (Pending) and are left out (lines {shown})",
        )
