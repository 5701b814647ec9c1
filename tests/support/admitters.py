"""Admitters for tests: plugged into the twin through its public seam (`sim.admitters`).

Importing this module registers `tests-unlimited`, so every test that parametrizes over
`admitter_names()` after importing it sees the same admitters.
"""

from __future__ import annotations

from gpuplane.sim.admitters import AdmissionSetup, CycleOutcome, register_admitter
from gpuplane.traces import Workload


class Unlimited:
    """Admits every workload at the next cycle into its first pool: no quota at all."""

    def __init__(self, setup: AdmissionSetup) -> None:
        self.notes: list[str] = []
        self.new: list[tuple[int, int]] = []

    def submit(
        self, wl: int, workload: Workload, requests: object, pools: tuple[int, ...], now: float
    ) -> None:
        self.new.append((wl, pools[0]))

    def finish(self, wl: int, now: float) -> None:
        pass

    def release(self, wl: int, now: float) -> None:
        pass

    def cycle(self, now: float) -> CycleOutcome:
        admitted: list[tuple[int, tuple[int, ...]]] = [(wl, (p,)) for wl, p in self.new]
        self.new.clear()
        return CycleOutcome(admitted=admitted, ran=bool(admitted))

    def tolerations(self, pool: int) -> frozenset[tuple[str, str]]:
        return frozenset()

    def pending_reasons(self) -> dict[int, str]:
        return {}


register_admitter("tests-unlimited")(Unlimited)
