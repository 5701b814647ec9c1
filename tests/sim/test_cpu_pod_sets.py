"""The twin and CPU-only pod sets: its Kueue admits them with their cpu and memory, so they take
render's CPU flavor (first in every ClusterQueue) as on the cluster, and the twin places them on
that CPU pool's nodes (sim/cpu_nodes.py), scales the pool for them and bills its node-hours. Without
a CPU pool they take a GPU flavor and the twin says it does not place them."""

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


def test_ray_heads_on_the_cpu_pool_leave_no_note_and_every_workload_runs() -> None:
    outcome = simulate(spec_from(CPU_SPEC), [_ray(0), _ray(60), _ray(120, cpu_head=False)])
    assert not [w for w in outcome.warnings if "CPU-only pod sets" in w]
    # the heads take the CPU pool's node (minNodes 1, 8 vCPUs: both 2-CPU heads fit it)
    assert [(r.w.id, r.outcome) for r in outcome.runs] == [
        ("ray-0", "completed"),
        ("ray-60", "completed"),
        ("ray-120", "completed"),
    ]
    assert set(outcome.cpu_node_hours) == {"cpu-general"}


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
    assert note.endswith("so these are not placed on nodes or costed")
    assert outcome.cpu_node_hours == {}


def test_no_warning_without_cpu_only_pod_sets() -> None:
    outcome = simulate(spec_from(CPU_SPEC), [_ray(0, cpu_head=False)])
    assert not [w for w in outcome.warnings if "CPU-only" in w]
