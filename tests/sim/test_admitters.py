"""The admitter seam: the registry, a non-Kueue admitter driving the twin, and the livelock guard."""

from __future__ import annotations

import pytest

from gpuplane.errors import UsageError
from gpuplane.sim.admitters import (
    AdmissionSetup,
    AdmitterFactory,
    CycleOutcome,
    admitter_factory,
    admitter_names,
    register_admitter,
)
from gpuplane.sim.config import SimConfig
from gpuplane.sim.engine import Outcome, livelock_guard
from gpuplane.sim.kueue_admitter import KueueAdmitter
from gpuplane.sim.replay import simulate_objects
from gpuplane.traces import PodSet, Workload
from tests.support.admitters import Unlimited

from .helpers import cluster_queue, flavor, local_queue, pool, team

GPU = "nvidia.com/gpu"
QUIET = SimConfig(spot_evictions_per_node_hour=0.0, node_failures_per_node_hour=0.0, provisioning_delay_s=600)


def jobs(n: int) -> list[Workload]:
    return [
        Workload(f"j{i}", "t", "t", "training", 0.0, (PodSet("main", 1, 8.0),), work_gpu_seconds=8 * 3600.0)
        for i in range(n)
    ]


def run(admitter: str | AdmitterFactory, n: int) -> Outcome:
    objects = [flavor("gpu"), cluster_queue("t", {"gpu": {GPU: 8}}), local_queue("t")]
    return simulate_objects(
        [pool(min_nodes=0, max_nodes=4)], [team("t")], objects, jobs(n), QUIET, admitter=admitter
    )


def test_kueue_is_the_registered_default() -> None:
    assert "kueue" in admitter_names()
    built = admitter_factory("kueue")(AdmissionSetup([], [], []))
    assert isinstance(built, KueueAdmitter)


def test_an_unknown_admitter_is_a_usage_error_naming_the_known_ones() -> None:
    with pytest.raises(UsageError, match=r"unknown admitter 'slurm' \(known: .*kueue"):
        admitter_factory("slurm")


def test_a_name_is_registered_once() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        register_admitter("kueue")(Unlimited)


def test_the_twin_runs_with_a_registered_admitter_by_name() -> None:
    # Kueue's quota (8 GPUs) runs the three 8-GPU jobs one after the other, on one node made at 0
    # (ready at 600); without quota all three start together on three nodes at 600.
    kueue = run("kueue", 3)
    assert [r.first_start for r in kueue.runs] == [600.0, 600.0 + 3600, 600.0 + 7200]
    free = run("tests-unlimited", 3)
    assert [r.first_start for r in free.runs] == [600.0] * 3
    assert free.billing.nodes_created == [3]


class NeverSettles(Unlimited):
    """Claims to have set heads aside at every cycle: an instant that never settles."""

    def cycle(self, now: float) -> CycleOutcome:
        out = super().cycle(now)
        out.requeued, out.ran = True, True
        return out


def test_an_instant_that_never_settles_is_cut_after_the_guard_and_said() -> None:
    out = run(NeverSettles, 2)
    # Admission has work at two instants: t=0 (two submissions) and 4200 (both finish); each is
    # cut after the guard's cycles. The jobs still ran (nodes requested at 0, ready at 600).
    assert out.cycles == 2 * livelock_guard(2)
    assert [r.first_start for r in out.runs] == [600.0, 600.0]
    assert any("livelock" in w and w.startswith("2 instants") for w in out.warnings)
