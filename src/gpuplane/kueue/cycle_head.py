"""A head workload as one scheduling cycle handles it, and the reasons it can be requeued for.

Shared by the cycle (`scheduler`) and the reasons it gives (`reasons`), so neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass(slots=True)
class Entry:
    """A head workload being scheduled in this cycle."""

    wl: Workload
    state: CQState
    assignment: Assignment | None = None
    targets: list[Target] = field(default_factory=list)
    status: str = ""
    requeue: str = GENERIC
    message: str = ""
    inadmissible: bool = False
    #: `mode()` of `_mode_of` (the assignment it was computed for; an entry's assignment is
    #: replaced, never changed, once nominated: `assignment.settle_deferred`).
    _mode: int = MODE_NOFIT
    _mode_of: Assignment | None = None

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
