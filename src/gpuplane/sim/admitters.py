"""The seam between the twin and admission: what the event loop needs from Kueue.

The twin never decides admission itself. `KueueAdmitter` (in `sim.kueue_admitter`) drives
`gpuplane.kueue` with the objects `render` derives from the spec; tests may plug in any object
with this shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from gpuplane.sim.requests import PodRequest
from gpuplane.traces import Workload


@dataclass
class CycleOutcome:
    """One scheduling cycle: workloads admitted (with the pool of each pod set) and victims evicted."""

    admitted: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    preempted: list[int] = field(default_factory=list)
    requeued: bool = False  # heads were parked: the next cycle at this instant sees other heads
    ran: bool = True  # False when the cycle was skipped (no heads: it could change nothing)


class Admitter(Protocol):
    """Quota admission as the event loop drives it. Workloads are named by their index."""

    def submit(
        self,
        wl: int,
        workload: Workload,
        requests: tuple[PodRequest, ...],
        pools: tuple[int, ...],
        now: float,
    ) -> None:
        """A workload arrives in its team's queue."""

    def finish(self, wl: int, now: float) -> None:
        """An admitted workload ended; its quota is released."""

    def cycle(self, now: float) -> CycleOutcome:
        """Run one scheduling cycle. Victims are already requeued when it returns."""

    def tolerations(self, pool: int) -> frozenset[tuple[str, str]]:
        """Tolerations admission adds to pods placed in `pool` (a ResourceFlavor's tolerations)."""

    def pending_reasons(self) -> dict[int, str]:
        """Why each workload still waiting for quota waits (for the end-of-run report)."""
