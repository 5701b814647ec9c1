"""The seam between the twin and admission: what the event loop needs from a quota admitter, and
the registry of admitters the twin can be built with.

The twin never decides admission itself. The built-in admitter, `kueue` (sim/kueue_admitter.py),
drives `gpuplane.kueue` with the objects `render` derives from the spec. Another admitter (a
different queueing system, or a test double that checks invariants around the real one)
implements `Admitter` and registers a factory under a name:

    @register_admitter("my-admitter")
    def _build(setup: AdmissionSetup) -> Admitter: ...

`simulate(..., admitter="my-admitter")` then uses it; `admitter=` also takes a factory directly.
The built-ins register when `gpuplane.sim` is imported (its `replay` module imports them).
docs/contributing.md ("Adding an admitter") has the checklist; tests/sim/test_admitters.py runs
every registered admitter through the twin's invariants.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from gpuplane.registry import Registry
from gpuplane.sim.pools import PoolModel
from gpuplane.sim.requests import PodRequest
from gpuplane.traces import Workload


@dataclass(frozen=True)
class TeamQueue:
    """Where a team's workloads are submitted: namespace, LocalQueue and default priority."""

    name: str
    namespace: str
    local_queue: str
    priority: int = 0


@dataclass(init=False)
class CycleOutcome:
    """One scheduling cycle: workloads admitted (with the pool of each pod set) and victims preempted.

    `requeued`: heads were set aside, so another cycle at this instant sees other heads;
    `ran`: False when the cycle was skipped (no heads: it could change nothing);
    `more`: False when the admitter knows that another cycle right now could change nothing (the
    twin then does not ask for one).
    """

    admitted: list[tuple[int, tuple[int, ...]]]
    preempted: list[int]
    requeued: bool
    ran: bool
    more: bool

    def __init__(
        self,
        admitted: list[tuple[int, tuple[int, ...]]] | None = None,
        preempted: list[int] | None = None,
        requeued: bool = False,
        ran: bool = True,
        more: bool = True,
    ) -> None:
        # Written out (not the dataclass's generated __init__, which is Python code even when this
        # module is compiled): one is built per scheduling cycle. Lists default to new empty ones.
        self.admitted = [] if admitted is None else admitted
        self.preempted = [] if preempted is None else preempted
        self.requeued = requeued
        self.ran = ran
        self.more = more


class Admitter(Protocol):
    """Quota admission as the event loop drives it. Workloads are named by their index.

    A preempted workload keeps its quota until the twin calls `release` (when its pods are gone);
    a workload that ends gives its quota back with `finish`.
    """

    notes: list[str]

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

    def release(self, wl: int, now: float) -> None:
        """A preempted workload's pods are gone: its quota is released and it queues again."""

    def cycle(self, now: float) -> CycleOutcome:
        """Run one scheduling cycle."""

    def tolerations(self, pool: int) -> frozenset[tuple[str, str]]:
        """Tolerations admission adds to pods placed in `pool` (a ResourceFlavor's tolerations)."""

    def pending_reasons(self) -> dict[int, str]:
        """Why each workload still waiting for quota waits (for the end-of-run report)."""


@dataclass(frozen=True)
class AdmissionSetup:
    """What an admitter is built from: the Kueue objects of the platform, its pools and teams."""

    objects: Sequence[Mapping[str, Any]]
    pools: list[PoolModel]
    teams: list[TeamQueue]
    fair_sharing: bool | None = None
    topology: Any = None
    """`sim.topology.TwinTopology` when pools declare a topology (Kueue TAS in the twin), else None."""


AdmitterFactory = Callable[[AdmissionSetup], Admitter]
_REGISTRY: Registry[AdmitterFactory] = Registry("admitter")


def register_admitter(name: str) -> Callable[[AdmitterFactory], AdmitterFactory]:
    """Register a factory under `name` (a decorator); registering a name twice is a bug."""

    def add(factory: AdmitterFactory) -> AdmitterFactory:
        return _REGISTRY.add(name, factory)

    return add


def admitter_names() -> list[str]:
    """Every registered admitter, sorted."""
    return sorted(_REGISTRY)


def admitter_factory(admitter: str | AdmitterFactory) -> AdmitterFactory:
    """The factory registered as `admitter` (a UsageError names the known ones), or `admitter` itself."""
    if not isinstance(admitter, str):
        return admitter
    return _REGISTRY.get(admitter)
