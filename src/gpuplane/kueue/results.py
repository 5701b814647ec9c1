"""What a scheduling cycle reports: admissions, preemptions and pending workloads.

Each record is a dataclass (equality, repr) with its own `__init__` (`init=False`): the compiled
twin (mypyc) runs a hand-written `__init__` as native code, while the one `dataclass` generates
is a Python function run by the interpreter (measured: about 4x the cost per object), and a cycle
makes these objects by the thousand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(init=False)
class AdmittedPodSet:
    """Admitted pod set: name, admitted count and flavor per resource."""

    name: str
    count: int
    flavors: dict[str, str]
    topology: Any
    """The pod set's `TopologyAssignment` when TAS placed it (`gpuplane.kueue.tas`)."""

    def __init__(self, name: str, count: int, flavors: dict[str, str], topology: Any = None) -> None:
        self.name = name
        self.count = count
        self.flavors = flavors
        self.topology = topology


@dataclass(init=False)
class Admitted:
    """A workload admitted in the cycle."""

    workload: str
    cluster_queue: str
    pod_sets: list[AdmittedPodSet]
    borrowing: int

    def __init__(
        self, workload: str, cluster_queue: str, pod_sets: list[AdmittedPodSet], borrowing: int = 0
    ) -> None:
        self.workload = workload
        self.cluster_queue = cluster_queue
        self.pod_sets = pod_sets
        self.borrowing = borrowing


@dataclass(init=False)
class Preempted:
    """A victim evicted in the cycle, with its preemptor and the reason."""

    workload: str
    preemptor: str
    reason: str
    cluster_queue: str
    priority: int

    def __init__(self, workload: str, preemptor: str, reason: str, cluster_queue: str, priority: int) -> None:
        self.workload = workload
        self.preemptor = preemptor
        self.reason = reason
        self.cluster_queue = cluster_queue
        self.priority = priority


@dataclass(init=False)
class Pending:
    """A workload still waiting after the cycle, where it waits and why."""

    workload: str
    cluster_queue: str
    queue: str
    reason: str

    def __init__(self, workload: str, cluster_queue: str, queue: str, reason: str) -> None:
        self.workload = workload
        self.cluster_queue = cluster_queue
        self.queue = queue
        self.reason = reason


@dataclass(init=False)
class CycleResult:
    """Outcome of one cycle; `pending` covers every workload holding no quota.

    `parked` counts the pending workloads the cycle set aside as inadmissible (heads and the
    heap workloads shaped like them): after a cycle that parked some, the next cycle sees other
    heads even when nothing else changed.
    """

    cycle: int
    admitted: list[Admitted]
    preempted: list[Preempted]
    pending: list[Pending]
    parked: int

    def __init__(
        self,
        cycle: int,
        admitted: list[Admitted] | None = None,
        preempted: list[Preempted] | None = None,
        pending: list[Pending] | None = None,
        parked: int = 0,
    ) -> None:
        self.cycle = cycle
        self.admitted = [] if admitted is None else admitted
        self.preempted = [] if preempted is None else preempted
        self.pending = [] if pending is None else pending
        self.parked = parked
