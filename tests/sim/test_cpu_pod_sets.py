"""The twin and CPU-only pod sets: its Kueue admits them with their cpu and memory, so they take
render's CPU flavor (first in every ClusterQueue) as on the cluster; it places and costs GPU pods
only, and says so with the flavors the CPU pod sets got, instead of dropping Ray heads and MPI
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


def test_the_twins_kueue_admits_ray_heads_to_the_cpu_flavor_and_says_so() -> None:
    outcome = simulate(spec_from(CPU_SPEC), [_ray(0), _ray(60), _ray(120, cpu_head=False)])
    notes = [w for w in outcome.warnings if "CPU-only pod sets" in w]
    assert notes == [
        "2 workloads have CPU-only pod sets (head): Kueue admitted them to flavors cpu-general x2; "
        "the twin does not place them on nodes or cost them (it models GPU nodes only)"
    ]
    # the heads take CPU quota only: every workload still runs its GPU workers to the end
    assert [(r.w.id, r.outcome) for r in outcome.runs] == [
        ("ray-0", "completed"),
        ("ray-60", "completed"),
        ("ray-120", "completed"),
    ]


def test_without_a_cpu_pool_the_heads_take_the_gpu_flavor_as_on_the_cluster() -> None:
    text = CPU_SPEC.replace(
        "  - name: cpu-general\n    vmSize: Standard_D8s_v5\n    cpuPerNode: 8\n    memoryGiBPerNode: 32\n"
        "    minNodes: 1\n    maxNodes: 4\n",
        "",
    )
    assert text != CPU_SPEC
    outcome = simulate(spec_from(text), [_ray(0), _ray(60)])
    (note,) = [w for w in outcome.warnings if "CPU-only" in w]
    assert note.startswith(
        "2 workloads have CPU-only pod sets (head): Kueue admitted them to flavors a100-spot x2;"
    )


def test_no_warning_without_cpu_only_pod_sets() -> None:
    outcome = simulate(spec_from(CPU_SPEC), [_ray(0, cpu_head=False)])
    assert not [w for w in outcome.warnings if "CPU-only" in w]
