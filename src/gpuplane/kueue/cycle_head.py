"""A head workload as one scheduling cycle handles it, and the reasons it can be requeued for.

Shared by the cycle (`scheduler`) and the reasons it gives (`reasons`), so neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuplane.kueue.flavor_assigner import MODE_NOFIT, Assignment
from gpuplane.kueue.objects import FR, Workload
from gpuplane.kueue.preemption import Target
from gpuplane.kueue.snapshot import CQState

GENERIC, FAILED_AFTER_NOMINATION, PENDING_PREEMPTION, NAMESPACE_MISMATCH = (
    "Generic",
    "FailedAfterNomination",
    "PendingPreemption",
    "NamespaceMismatch",
)


@dataclass(slots=True, init=False)
class Entry:
    """A head workload being scheduled in this cycle.

    (Its own `__init__`: the compiled twin runs it natively; see `results`' docstring.)"""

    wl: Workload
    state: CQState
    assignment: Assignment | None
    targets: list[Target]
    status: str
    requeue: str
    message: str
    inadmissible: bool
    #: `mode()` of `_mode_of` (the assignment it was computed for; an entry's assignment is
    #: replaced, never changed, once nominated: `assignment.settle_deferred`).
    _mode: int
    _mode_of: Assignment | None

    def __init__(
        self,
        wl: Workload,
        state: CQState,
        assignment: Assignment | None = None,
        targets: list[Target] | None = None,
        status: str = "",
        requeue: str = GENERIC,
        message: str = "",
        inadmissible: bool = False,
    ) -> None:
        self.wl = wl
        self.state = state
        self.assignment = assignment
        self.targets = [] if targets is None else targets
        self.status = status
        self.requeue = requeue
        self.message = message
        self.inadmissible = inadmissible
        self._mode = MODE_NOFIT
        self._mode_of = None

    def usage(self) -> dict[FR, int]:
        """The quota the head's flavor assignment would use ({} when it has none)."""
        return self.assignment.usage if self.assignment is not None else {}

    def mode(self) -> int:
        """The assignment's mode (fit, preempt, no fit)."""
        a = self.assignment
        if a is None:
            return MODE_NOFIT
        if a is not self._mode_of:
            self._mode = a.mode()
            self._mode_of = a
        return self._mode
