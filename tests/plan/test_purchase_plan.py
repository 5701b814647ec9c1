"""`plan` prices the reserved count on the twin's run (issue 24, done means 1).

A steady load of 4 nodes plus bursts whose busy-node distribution is known by construction:
B = 4 + X with X ~ Binomial(4, 1/2), i.e. over 16 hours the cluster spends 1 h at 4 busy nodes,
4 h at 5, 6 h at 6, 4 h at 7 and 1 h at 8 (each job is one 8-GPU pod on its own node; the twin
provisions with no delay and removes an empty node after 60 s, which shifts each drop by
60 s: 0.1 % of the window, far from every threshold below). P(B >= k) = 1, 15/16, 11/16, 5/16,
1/16 for k = 4..8. With p = 10.00 on demand and the spec's reserved terms 1y r = 6.00 (r/p = 0.6)
and 3y r = 3.00 (r/p = 0.3), the cost-optimal counts are 6 and 7.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplane.plan.evaluate import evaluate
from gpuplane.plan.output import purchase_lines
from gpuplane.sim import SimConfig
from gpuplane.spec import load_spec
from gpuplane.traces import PodSet, Workload

SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: reserved, provider: aks, region: eastus}
nodePools:
  - name: gpu
    accelerator: A100-80GB
    vmSize: Standard_ND96amsr_A100_v4
    maxNodes: 8
    purchase:
      - {option: reserved, count: 4, term: 1y, hourly: 6.0}
      - {option: reserved, count: 4, term: 3y, hourly: 3.0}
      - {option: on-demand}
teams:
  - {name: t, namespaces: [t], quotas: [{pool: gpu, nominal: 64}]}
costs:
  pools:
    gpu: {onDemandHourly: 10.0}
"""
H = 3600.0
# Extra busy nodes per hour: 0 1 2 3 4 3 2 1 2 1 2 1 2 3 3 2, as layers of back-to-back hours.
BURSTS = [(1, 16), (2, 7), (8, 9), (10, 11), (12, 16), (3, 6), (13, 15), (4, 5)]
PROFILE = [4 + e for e in (0, 1, 2, 3, 4, 3, 2, 1, 2, 1, 2, 1, 2, 3, 3, 2)]


def _job(wid: str, start: float, hours: float) -> Workload:
    return Workload(
        id=wid,
        team="t",
        queue="t",
        klass="training",
        submit=start * H,
        pod_sets=(PodSet("main", 1, 8.0),),
        work_gpu_seconds=8 * hours * H,
    )


def test_plan_finds_the_break_even_reserved_count_per_term(tmp_path: Path) -> None:
    path = tmp_path / "platform.yaml"
    path.write_text(SPEC, encoding="utf-8")
    spec = load_spec(path, priced=True)
    jobs = [_job(f"steady{i}", 0, 100) for i in range(4)]
    jobs += [_job(f"burst{i}", a, b - a) for i, (a, b) in enumerate(BURSTS)]
    config = SimConfig(
        spot_evictions_per_node_hour=0.0,
        node_failures_per_node_hour=0.0,
        provisioning_delay_s=0.0,
        scale_down_unneeded_s=60.0,
        horizon_s=16 * H,
    )
    result = evaluate(spec, jobs, config)
    by_term = {c["term"]: c for c in result.purchase}
    assert set(by_term) == {"1y", "3y"}
    one, three = by_term["1y"], by_term["3y"]
    assert one["break_even_utilisation"] == pytest.approx(0.6)
    assert three["break_even_utilisation"] == pytest.approx(0.3)
    assert abs(one["reserved_count"] - 6) <= 1 and one["theory_count"] == 6
    assert abs(three["reserved_count"] - 7) <= 1 and three["theory_count"] == 7
    # 1y, 6 reserved over 16 h by hand: 16 x 6 x 6.00 = 576.00 reserved, plus 10.00 x the
    # node-hours above 6: hours 3, 4, 5, 13, 14 at 7, 8, 7, 7, 7 nodes = 6 h, plus three drops
    # across 6 that the 60 s scale-down delays (8->7 at 5 h, 7->6 at 6 h and at 15 h): 3 x 60 s.
    above = sum(max(n - 6, 0) for n in PROFILE)
    assert above == 6
    assert one["cost"] == pytest.approx(576.0 + 10.0 * (above + 3 * 60 / H), abs=0.005)
    lines = purchase_lines(result.purchase, "USD")
    assert any("reserve 6 nodes on 1y" in line and "r/p = 6/10 = 0.60" in line for line in lines), lines
