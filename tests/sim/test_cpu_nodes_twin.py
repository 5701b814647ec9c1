"""CPU-only pod sets on the CPU pool's nodes in the twin (issue 21): a RayJob-like workload with a
2-CPU head and a GPU worker on a spec with a CPU pool. Expected figures come from hand event
tables (the provisioning delay D = 600 s and the unneeded time U = 600 s of sim/data/defaults.yaml;
a run of W GPU-seconds on G GPUs takes W / G seconds), never from running the code."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuplane.costs import Overheads
from gpuplane.sim.config import SimConfig
from gpuplane.sim.cpu_nodes import CpuPool, nodes_needed
from gpuplane.sim.metrics import summarize
from gpuplane.sim.replay import simulate
from gpuplane.traces import PodSet, Workload
from tests.render.render_helpers import spec_from

D = 600.0  # SimConfig().provisioning_delay_s (sim/data/defaults.yaml)
CPU_HOURLY = 0.384  # the spec's costs.pools price of the CPU pool (USD per node-hour)


def _spec(cpu_min: int, gpu_min: int, gpu_max: int = 2) -> str:
    # Standard_NC24ads_A100_v4 has one A100 (catalog); the D8s_v5 CPU pool is priced in costs.pools
    return f"""
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {{name: mixed, provider: aks, region: eastus, kubernetesVersion: "1.30", resourceGroup: rg}}
nodePools:
  - name: a100
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    minNodes: {gpu_min}
    maxNodes: {gpu_max}
  - name: cpu-general
    vmSize: Standard_D8s_v5
    cpuPerNode: 8
    memoryGiBPerNode: 32
    minNodes: {cpu_min}
    maxNodes: 2
teams:
  - name: vision
    namespaces: [vision]
    quotas: [{{pool: a100, nominal: 2}}]
costs:
  pools:
    cpu-general: {{onDemandHourly: {CPU_HOURLY}}}
"""


def _ray(name: str, head_cpu: int, submit: float = 0.0) -> Workload:
    return Workload(
        id=name,
        team="vision",
        queue="vision",
        klass="training",
        submit=submit,
        pod_sets=(
            PodSet("head", 1, 0.0, cpu_milli=head_cpu * 1000, memory_mib=8192),
            PodSet("worker", 1, 1.0),
        ),
        work_gpu_seconds=3600.0,
    )


def test_from_zero_both_pools_scale_together_and_the_cpu_node_hours_are_costed() -> None:
    # t=0 Kueue admits: head -> cpu-general, worker -> a100; neither pool has a node, both scale up
    # t=D both nodes ready: head on the CPU node, worker on the GPU node; the run starts
    # t=D+3600 it ends; nothing else runs: the run ends there, both nodes billed 0..D+3600
    spec = spec_from(_spec(cpu_min=0, gpu_min=0))
    outcome = simulate(spec, [_ray("ray", head_cpu=2)])
    (run,) = outcome.runs
    assert (run.outcome, run.first_start, run.end) == ("completed", D, D + 3600)
    assert outcome.cpu_node_hours == {"cpu-general": pytest.approx((D + 3600) / 3600)}
    summary = summarize(outcome, SimConfig(), Overheads.from_spec(spec))
    assert "cpu_nodes" in summary.cost.declared
    # 4200 s = 7/6 h at 0.384 USD = 0.448 USD (hand-computed)
    assert summary.cost.cpu_nodes == pytest.approx(0.448)
    assert not [w for w in outcome.warnings if "CPU-only" in w]


def test_a_head_that_finds_no_room_waits_for_the_cpu_pool_to_scale() -> None:
    # CPU pool: one 8-vCPU node from t=0; GPU pool: two 1-GPU nodes from t=0.
    # t=0 ray-1's 6-CPU head takes the CPU node (2 vCPUs left), its worker a GPU node: runs 0..3600
    # t=0 ray-2's 6-CPU head does not fit: the CPU pool requests a node (ready at D); its worker
    #     would fit, but the job waits for its head (the GPU pool does not scale)
    # t=D ray-2 runs D..D+3600
    # CPU node-seconds: node-0 0..4200 (empty at 3600, due to go at 3600+U=4200), node-1 0..4200
    spec = spec_from(_spec(cpu_min=1, gpu_min=2))
    outcome = simulate(spec, [_ray("ray-1", 6), _ray("ray-2", 6)])
    got = {r.w.id: (r.outcome, r.first_start, r.capacity_wait) for r in outcome.runs}
    assert got == {"ray-1": ("completed", 0.0, 0.0), "ray-2": ("completed", D, D)}
    assert outcome.cpu_node_hours == {"cpu-general": pytest.approx(8400 / 3600)}
    assert outcome.billing.nodes_created == [2]  # the GPU pool kept its two nodes
    summary = summarize(outcome, SimConfig(), Overheads.from_spec(spec))
    assert summary.cost.cpu_nodes == pytest.approx(0.384 * 8400 / 3600)  # 0.896 USD


def test_a_head_no_cpu_node_can_hold_waits_admitted_as_kube_scheduler_would() -> None:
    # a 16-CPU head on 8-vCPU nodes: the team's CPU quota (8 x maxNodes 2 = 16) admits it, no node
    # holds it and scaling up would not help: the workload stays admitted and never starts
    spec = spec_from(_spec(cpu_min=0, gpu_min=1))
    outcome = simulate(spec, [_ray("big-head", 16)])
    (run,) = outcome.runs
    assert (run.outcome, run.first_start) == ("admitted", None)
    assert outcome.cpu_node_hours == {"cpu-general": 0.0}


@pytest.mark.parametrize(
    ("pods", "nodes"),
    [
        ([], 0),
        ([(2000, 8192)], 1),
        ([(6000, 8192), (6000, 8192)], 2),  # 12 vCPUs: two 8-vCPU nodes
        ([(4000, 8192)] * 4, 2),  # by cpu: two per node
        ([(1000, 20480)] * 3, 3),  # by memory: one 20 GiB pod per 32 GiB node
        ([(9000, 1024)], 0),  # no node holds it: scaling would not help
    ],
)
def test_cpu_nodes_needed_by_hand(pods: list[tuple[int, int]], nodes: int) -> None:
    assert nodes_needed(CpuPool("cpu", 8000, 32768, 0, 4), pods) == nodes


@settings(max_examples=25, deadline=None)
@given(
    heads=st.lists(st.tuples(st.integers(1, 8), st.integers(0, 7200)), min_size=1, max_size=6),
    cpu_min=st.integers(0, 2),
)
def test_every_head_that_fits_a_node_runs_and_cpu_nodes_stay_within_max_nodes(
    heads: list[tuple[int, int]], cpu_min: int
) -> None:
    # heads of 1-8 vCPUs fit an 8-vCPU node: every workload completes; no node is overcommitted
    # (CpuNodes.bind asserts it); the CPU pool never bills more than maxNodes (2) for the window
    spec = spec_from(_spec(cpu_min=cpu_min, gpu_min=0))
    workloads = [
        _ray(f"ray-{i}", cpu, float(t)) for i, (cpu, t) in enumerate(sorted(heads, key=lambda h: h[1]))
    ]
    outcome = simulate(spec, workloads)
    assert {r.outcome for r in outcome.runs} == {"completed"}
    hours = outcome.cpu_node_hours["cpu-general"]
    assert cpu_min * outcome.end / 3600 - 1e-9 <= hours <= 2 * outcome.end / 3600 + 1e-9
