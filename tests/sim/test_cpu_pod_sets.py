"""The twin and CPU-only pod sets: it simulates GPU pod sets only, and says so (naming the CPU pool
Kueue would admit them to, render's first CPU flavor) instead of dropping Ray heads and MPI
launchers silently."""

from __future__ import annotations

from gpuplane.sim.replay import simulate
from gpuplane.sim.requests import cpu_only_pod_sets, pod_requests
from gpuplane.traces import PodSet, Workload
from tests.render.render_helpers import spec_from
from tests.render.test_render_cpu_pools import CPU_SPEC


def _ray(submit: float, cpu_head: bool = True) -> Workload:
    pod_sets: tuple[PodSet, ...] = (PodSet("worker", 2, 1.0),)
    if cpu_head:
        pod_sets = (PodSet("head", 1, 0.0, cpu_milli=2000, memory_mib=8192), *pod_sets)
    return Workload(
        id=f"ray-{submit:g}",
        team="vision",
        queue="vision",
        klass="training",
        submit=submit,
        pod_sets=pod_sets,
        work_gpu_seconds=7200.0,
    )


def test_cpu_only_pod_sets_are_named_and_left_out_of_the_gpu_requests() -> None:
    w = _ray(0)
    assert cpu_only_pod_sets(w) == ("head",)
    assert [r.name for r in pod_requests(w)] == ["worker"]


def test_simulate_warns_about_cpu_only_pod_sets_and_names_the_cpu_pool() -> None:
    outcome = simulate(spec_from(CPU_SPEC), [_ray(0), _ray(60), _ray(120, cpu_head=False)])
    notes = [w for w in outcome.warnings if "CPU-only pod sets" in w]
    assert notes == [
        "2 workloads have CPU-only pod sets (head): the twin does not simulate them (no placement, "
        "no CPU node cost); Kueue would admit them to CPU pool cpu-general (render's first CPU flavor)"
    ]


def test_no_warning_without_cpu_only_pod_sets() -> None:
    outcome = simulate(spec_from(CPU_SPEC), [_ray(0, cpu_head=False)])
    assert not [w for w in outcome.warnings if "CPU-only" in w]
