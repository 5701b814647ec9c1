"""The twin with Kueue's TAS: gangs placed by the same code as explain, slowed by the level they span.

Hand event table (EKS p5 pool, EFA; 16 nodes, min = max, so no provisioning; domains per
catalog/data/fabric.yaml tiers: network-node-layer-3 holds 8 nodes (the "rack"), layer-2 holds 16):

| t (s) | required: layer-3 | preferred: layer-3 |
|---|---|---|
| 0 | gang of 16 pods x 8 GPUs submitted | same |
| 0 | quota fits (128 GPUs), TAS: the largest layer-3 domain holds 8 of 16 pods -> pending with Kueue's message | TAS climbs to layer-2 (16 nodes): admitted on all 16 nodes, spanning layer-2 |
| 3600 x 1.16 = 4176 | still pending | ends: layer-2 is tier 2 for this Topology (3 levels above the host), EFA tier2 factor 1.16 |

A gang of 8 pods fits one layer-3 domain under either rule and runs at full speed (tier 1, 1.0).
"""

from __future__ import annotations

import pytest

from gpuplane.catalog.topology import fabrics
from gpuplane.sim.config import SimConfig
from gpuplane.sim.replay import simulate
from gpuplane.spec.loader import parse_spec
from gpuplane.traces import PodSet, Workload

QUIET = SimConfig(spot_evictions_per_node_hour=0.0, node_failures_per_node_hour=0.0, horizon_s=20000.0)
LAYER3 = "topology.k8s.aws/network-node-layer-3"

SPEC = """
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {{name: t, provider: eks, region: us-east-1, kubernetesVersion: "1.31"}}
nodePools:
  - name: p5
    accelerator: H100-80GB
    vmSize: p5.48xlarge
    minNodes: 16
    maxNodes: 16
    zones: [us-east-1a]
    topology:
      domainSizes:
        topology.k8s.aws/network-node-layer-3: 8
        topology.k8s.aws/network-node-layer-2: 16
      fabric: {{type: EFA, nicsPerNode: 32}}
teams:
  - name: llm
    namespaces: [llm]
    quotas: [{{pool: p5, nominal: 128}}]
    placement: {{{mode}: {level}}}
"""


def _run(mode: str, pods: int) -> tuple[float | None, float | None, list[str]]:
    spec, problems = parse_spec(SPEC.format(mode=mode, level=LAYER3), "t.yaml")
    assert not [p for p in problems if p.severity == "error"], problems
    gang = Workload(
        id="gang", team="llm", queue="llm", klass="training", submit=0.0,
        pod_sets=(PodSet("worker", pods, 8.0),), work_gpu_seconds=pods * 8 * 3600.0,
    )  # fmt: skip
    out = simulate(spec, [gang], QUIET)
    run = out.runs[0]
    return run.first_start, run.end, out.warnings


def test_a_gang_that_fits_only_across_racks_waits_when_the_rack_is_required() -> None:
    start, end, notes = _run("required", 16)
    assert start is None and end is None
    waiting = [n for n in notes if "still wait on the topology" in n]
    assert len(waiting) == 1 and 'topology "p5" allows to fit only 8 out of 16 pod(s)' in waiting[0]
    assert "128 free GPU units" in waiting[0]


def test_the_same_gang_runs_slower_when_the_rack_is_only_preferred() -> None:
    tier2 = fabrics()["EFA"].runtime_factor["tier2"]
    assert tier2 == 1.16  # the figure of the data this table was worked out with
    start, end, notes = _run("preferred", 16)
    assert start == 0.0
    assert end == pytest.approx(3600.0 * tier2)
    assert f"placed 1 admissions (1 at x{tier2:g})" in " ".join(notes)


@pytest.mark.parametrize("mode", ["required", "preferred"])
def test_a_gang_inside_one_rack_runs_at_full_speed(mode: str) -> None:
    start, end, _ = _run(mode, 8)
    assert (start, end) == (0.0, 3600.0)
