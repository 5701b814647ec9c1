"""The benchmark cluster of `make bench BENCH=account`: a week of 125 nodes x 8 H100 as an event table.

Each node runs a back-to-back stream of 8-GPU pods (2 to 35 hours, a 10% chance of failing),
seeded; dcgm-exporter reports only the profiling metric (as before, so figures compare across
runs), scraped every 120 s.
"""

from __future__ import annotations

import random

from tests.support.exporter_series import PROF, Dcgm, Gpu, Node, Pod, Table

HOUR, DAY = 3600.0, 86400.0
#: Monday 2026-01-05 00:00:00 UTC, the start of the benchmark week.
WEEK_START = 1767571200.0


def large_spec(nodes: int = 125) -> str:
    """Platform spec of the benchmark cluster: `nodes` x 8 H100, four teams."""
    teams = "\n".join(f"  - {{name: team-{i}, namespaces: [team-{i}]}}" for i in range(4))
    return (
        "apiVersion: gpuplane.io/v1alpha1\nkind: Platform\n"
        "cluster: {name: bench, provider: aks, region: eastus}\n"
        f"nodePools:\n  - {{name: h100, accelerator: H100-80GB, vmSize: Standard_ND96isr_H100_v5, "
        f"minNodes: {nodes}, maxNodes: {nodes}}}\n"
        f"teams:\n{teams}\n"
        "costs: {currency: USD, pools: {h100: {onDemandHourly: 98.32}}}\n"
    )


def large_week(nodes: int = 125, seed: int = 7, scrape_s: float = 120.0) -> Table:
    """`nodes` 8-GPU nodes for a week, each running a back-to-back stream of 8-GPU pods."""
    rng = random.Random(seed)
    end = WEEK_START + 7 * DAY
    node_list = [
        Node(
            f"h100-{i:04d}",
            {"gpuplane.io/pool": "h100"},
            WEEK_START,
            end,
            tuple(Gpu(f"GPU-{i:04d}-{g}") for g in range(8)),
            {"nvidia.com/gpu": 8},
            model="NVIDIA H100 80GB HBM3",
            dcgm=Dcgm(metrics=(PROF,)),
        )
        for i in range(nodes)
    ]
    pods: list[Pod] = []
    for node in node_list:
        t = WEEK_START + rng.randrange(0, 240) * 60
        while t < end - 2 * HOUR:
            stop = min(t + rng.randrange(2, 36) * HOUR, end)
            outcome = "Running" if stop >= end else ("Failed" if rng.random() < 0.1 else "Succeeded")
            team = f"team-{rng.randrange(4)}"
            devices = tuple((g, None) for g in range(8))
            activity = round(rng.uniform(0.1, 0.95), 2)
            name = f"job-{len(pods):06d}"
            labels = {"job-name": name}
            pods.append(
                Pod(
                    team,
                    name,
                    node.name,
                    "nvidia.com/gpu",
                    8,
                    t,
                    t,
                    stop,
                    outcome,
                    devices,
                    activity,
                    0,
                    labels,
                )
            )
            t = stop + rng.randrange(0, 120) * 60
    return Table(WEEK_START, end, node_list, pods, scrape_s=scrape_s)
