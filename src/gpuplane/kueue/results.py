"""What a scheduling cycle reports: admissions, preemptions and pending workloads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class AdmittedPodSet:
    """Admitted pod set: name, admitted count and flavor per resource."""

    name: str
    count: int
    flavors: dict[str, str]
    topology: Any = None
    """The pod set's `TopologyAssignment` when TAS placed it (`gpuplane.kueue.tas`)."""


@dataclass
class Admitted:
    """A workload admitted in the cycle."""

    workload: str
    cluster_queue: str
    pod_sets: list[AdmittedPodSet]
    borrowing: int = 0


@dataclass
class Preempted:
    """A victim evicted in the cycle, with its preemptor and the reason."""

    workload: str
    preemptor: str
    reason: str
    cluster_queue: str
    priority: int


@dataclass
class Pending:
    """A workload still waiting after the cycle, where it waits and why."""

    workload: str
    cluster_queue: str
    queue: str
    reason: str


@dataclass
class CycleResult:
    """Outcome of one cycle; `pending` covers every workload holding no quota.

    `parked` counts the pending workloads the cycle set aside as inadmissible (heads and the
    heap workloads shaped like them): after a cycle that parked some, the next cycle sees other
    heads even when nothing else changed.
    """

    cycle: int
    admitted: list[Admitted] = field(default_factory=list)
    preempted: list[Preempted] = field(default_factory=list)
    pending: list[Pending] = field(default_factory=list)
    parked: int = 0
