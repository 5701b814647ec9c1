"""Ready-made scenarios for the generator and their exact truth.

`small_week` is the known-truth cluster of the account tests: exclusive A100 nodes, a MIG node,
a time-sliced T4, an idle allocated GPU, a failed job with its retry, a namespace no team owns,
and a spot node that exists for two days only (scale to zero). `large_week` is the benchmark's
1,000-GPU cluster. `truth` integrates the generator's own signals at scrape resolution.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field

from gpuplane.account.testdata import DCGM_GPU_METRICS, Node, Pod, Scenario

DAY = 86400.0
HOUR = 3600.0
#: Monday 2026-01-05 00:00:00 UTC, the start of the generated week.
WEEK_START = 1767571200.0

SMALL_SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: acct-test, provider: aks, region: eastus, kubernetesVersion: "1.30"}
nodePools:
  - {name: train, accelerator: A100-80GB, vmSize: Standard_NC48ads_A100_v4, minNodes: 2, maxNodes: 2}
  - {name: spot, accelerator: A100-80GB, vmSize: Standard_NC24ads_A100_v4, minNodes: 0, maxNodes: 2,
     spot: {enabled: true}}
  - name: mig
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    minNodes: 1
    maxNodes: 1
    workloadClasses: [inference]
    sharing: {mode: mig, strategy: mixed, layout: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]}
  - {name: t4, accelerator: T4, vmSize: Standard_NC4as_T4_v3, minNodes: 1, maxNodes: 1,
     sharing: {mode: time-slicing, replicas: 4}}
teams:
  - {name: vision, namespaces: [vision], quotas: [{pool: train, nominal: 2}]}
  - {name: nlp, namespaces: [nlp], quotas: [{pool: train, nominal: 2}]}
  - {name: serving, namespaces: [serving], spotAllowed: false}
costs:
  currency: USD
  pools:
    train: {onDemandHourly: 8.0, spotHourly: 2.0}
    spot: {onDemandHourly: 4.0, spotHourly: 1.0}
    mig: {onDemandHourly: 3.5}
    t4: {onDemandHourly: 0.6}
  supportMonthly: 730
  operationsMonthly: 1460
"""


def _d(day: float, hour: float = 0.0) -> float:
    return WEEK_START + day * DAY + hour * HOUR


def small_week() -> Scenario:
    """The known-truth test cluster (see the module docstring)."""
    a100, t4 = "NVIDIA A100 80GB PCIe", "Tesla T4"
    layout = ("3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb")
    end = _d(7)
    nodes = [
        Node("aks-train-0", "train", "A100-80GB", a100, 2, _d(0), end),
        Node("aks-train-1", "train", "A100-80GB", a100, 2, _d(0), end),
        Node("aks-spot-0", "spot", "A100-80GB", a100, 1, _d(2), _d(4)),
        Node("aks-mig-0", "mig", "A100-80GB", a100, 1, _d(0), end, mode="mig", mig_layout=layout),
        Node(
            "aks-t4-0",
            "t4",
            "T4",
            t4,
            1,
            _d(0),
            end,
            mode="time-slicing",
            replicas=4,
            fb_total_mib=15360,
            idle_power_w=10,
            max_power_w=70,
        ),
    ]
    gpu, mig = "nvidia_com_gpu", "nvidia_com_mig_"

    def full(*gpus: int) -> tuple[tuple[int, str, str], ...]:
        return tuple((g, "", "") for g in gpus)

    pods = [
        Pod(
            "vision",
            "resnet-0",
            "aks-train-0",
            gpu,
            2,
            _d(0, 1.5),
            _d(0, 2),
            _d(3, 2),
            "Succeeded",
            0.85,
            full(0, 1),
            queue="vision",
            job="resnet",
        ),
        Pod(
            "nlp",
            "llm-ft-0",
            "aks-train-1",
            gpu,
            2,
            _d(1),
            _d(1),
            _d(1, 18),
            "Failed",
            0.9,
            full(0, 1),
            queue="nlp",
            job="llm-ft",
        ),
        Pod(
            "nlp",
            "llm-ft-1",
            "aks-train-1",
            gpu,
            2,
            _d(1, 18),
            _d(1, 20),
            _d(5, 20),
            "Succeeded",
            0.8,
            full(0, 1),
            queue="nlp",
            job="llm-ft",
        ),
        Pod(
            "vision",
            "notebook",
            "aks-train-0",
            gpu,
            1,
            _d(4),
            _d(4),
            end,
            "Running",
            0.0,
            full(0),
            job="notebook",
            image="jupyter/pytorch:2.3",
        ),
        Pod(
            "sandbox",
            "debug",
            "aks-train-0",
            gpu,
            1,
            _d(4, 6),
            _d(4, 6),
            _d(4, 12),
            "Succeeded",
            0.5,
            full(1),
        ),
        Pod(
            "nlp",
            "spot-batch",
            "aks-spot-0",
            gpu,
            1,
            _d(2, 0.5),
            _d(2, 1),
            _d(3, 23),
            "Succeeded",
            0.95,
            full(0),
            queue="nlp",
            job="spot-batch",
        ),
        Pod(
            "serving",
            "llm-serve",
            "aks-mig-0",
            mig + "3g_40gb",
            1,
            _d(0),
            _d(0),
            end,
            "Running",
            0.5,
            ((0, "3g.40gb", "1"),),
            diurnal=0.3,
            fraction=3 / 7,
            job="llm-serve",
            image="vllm/vllm-openai:0.5",
        ),
        Pod(
            "nlp",
            "embed",
            "aks-mig-0",
            mig + "2g_20gb",
            1,
            _d(0),
            _d(0),
            _d(3),
            "Succeeded",
            0.4,
            ((0, "2g.20gb", "2"),),
            fraction=2 / 7,
            job="embed",
        ),
        Pod(
            "serving",
            "small-serve",
            "aks-mig-0",
            mig + "1g_10gb",
            1,
            _d(2),
            _d(2),
            end,
            "Running",
            0.2,
            ((0, "1g.10gb", "3"),),
            fraction=1 / 7,
            job="small-serve",
        ),
        Pod(
            "vision",
            "ts-dev-a",
            "aks-t4-0",
            gpu,
            1,
            _d(0),
            _d(0),
            end,
            "Running",
            0.3,
            full(0),
            fraction=1 / 4,
            job="ts-dev-a",
        ),
        Pod(
            "nlp",
            "ts-dev-b",
            "aks-t4-0",
            gpu,
            1,
            _d(1),
            _d(1),
            _d(3),
            "Succeeded",
            0.4,
            full(0),
            fraction=1 / 4,
            team_label="vision",
            job="ts-dev-b",
        ),
    ]
    xids = [("aks-train-1", 1, _d(1, 17.5), _d(1, 18), 79)]
    return Scenario(WEEK_START, end, 60.0, nodes, pods, xids, kueue_queues=("vision", "nlp", "serving"))


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


def large_week(nodes: int = 125, seed: int = 7, scrape_s: float = 120.0) -> Scenario:
    """`nodes` 8-GPU nodes for a week, each running a back-to-back stream of 8-GPU jobs."""
    rng = random.Random(seed)
    end = _d(7)
    node_list = [
        Node(f"h100-{i:04d}", "h100", "H100-80GB", "NVIDIA H100 80GB HBM3", 8, _d(0), end)
        for i in range(nodes)
    ]
    pods: list[Pod] = []
    for node in node_list:
        t = _d(0) + rng.randrange(0, 240) * 60
        while t < end - 2 * HOUR:
            length = rng.randrange(2, 36) * HOUR
            stop = min(t + length, end)
            outcome = "Running" if stop >= end else ("Failed" if rng.random() < 0.1 else "Succeeded")
            team = f"team-{rng.randrange(4)}"
            pods.append(
                Pod(
                    team,
                    f"job-{len(pods):06d}",
                    node.name,
                    "nvidia_com_gpu",
                    8,
                    t,
                    t,
                    stop,
                    outcome,
                    round(rng.uniform(0.1, 0.95), 2),
                    tuple((g, "", "") for g in range(8)),
                    job=f"job-{len(pods)}",
                )
            )
            t = stop + rng.randrange(0, 120) * 60
    return Scenario(
        WEEK_START, end, scrape_s, node_list, pods, dcgm_metrics=(("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge"),)
    )


@dataclass
class Truth:
    """Exact GPU-hours of a scenario by pod and by pool."""

    pod_allocated: dict[tuple[str, str], float] = field(default_factory=dict)
    pod_useful: dict[tuple[str, str], float] = field(default_factory=dict)
    pod_pool: dict[tuple[str, str], str] = field(default_factory=dict)
    pool_provisioned: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    failed: dict[tuple[str, str], float] = field(default_factory=dict)

    def pool_allocated(self, pool: str) -> float:
        return sum(h for key, h in self.pod_allocated.items() if self.pod_pool[key] == pool)


def truth(sc: Scenario) -> Truth:
    """Integrate the scenario at scrape resolution: exact for its piecewise-constant signals."""
    out = Truth()
    hours = sc.scrape_s / HOUR
    modes = {n.name: n for n in sc.nodes}
    for node in sc.nodes:
        out.pool_provisioned[node.pool] += len(sc.times(node.start, node.end)) * node.gpus * hours
    for pod in sc.pods:
        key = (pod.namespace, pod.name)
        node = modes[pod.node]
        times = sc.times(pod.start, pod.end)
        share = pod.units * pod.fraction
        out.pod_allocated[key] = len(times) * share * hours
        if node.mode == "time-slicing":
            peers = [p for p in sc.pods if p.node == pod.node]
            act = [min(1.0, sum(p.activity_at(t) for p in peers if p.start <= t < p.end)) for t in times]
        else:
            act = [pod.activity_at(t) for t in times]
        out.pod_useful[key] = sum(act) * share * hours
        out.pod_pool[key] = node.pool
        if pod.outcome == "Failed":
            out.failed[key] = out.pod_allocated[key]
    return out


def fallback_day() -> Scenario:
    """One day, a day after the small week, without profiling metrics (only DCGM_FI_DEV_GPU_UTIL)."""
    a100 = "NVIDIA A100 80GB PCIe"
    start = _d(8)
    end = _d(9)
    nodes = [Node("aks-train-0", "train", "A100-80GB", a100, 2, start, end)]
    full = ((0, "", ""), (1, "", ""))
    pods = [
        Pod(
            "vision",
            "util-only",
            "aks-train-0",
            "nvidia_com_gpu",
            2,
            start,
            start,
            _d(8, 12),
            "Succeeded",
            0.6,
            full,
            job="util-only",
        )
    ]
    metrics = tuple(m for m in DCGM_GPU_METRICS if m[0] != "DCGM_FI_PROF_GR_ENGINE_ACTIVE")
    return Scenario(start, end, 60.0, nodes, pods, dcgm_metrics=metrics)


def mixed_day() -> list[Scenario]:
    """Day 10: one node with profiling metrics and one T4 node with utilisation only (two scenarios)."""
    start, end = _d(10), _d(11)
    util_only = tuple(m for m in DCGM_GPU_METRICS if m[0] != "DCGM_FI_PROF_GR_ENGINE_ACTIVE")
    a100 = Node("aks-train-0", "train", "A100-80GB", "NVIDIA A100 80GB PCIe", 2, start, end)
    t4 = Node("aks-t4-9", "t4", "T4", "Tesla T4", 1, start, end, fb_total_mib=15360)
    profiled = Pod(
        "nlp",
        "profiled",
        "aks-train-0",
        "nvidia_com_gpu",
        1,
        start,
        start,
        _d(10, 10),
        "Succeeded",
        0.7,
        ((0, "", ""),),
    )
    util = Pod(
        "vision",
        "util-t4",
        "aks-t4-9",
        "nvidia_com_gpu",
        1,
        start,
        start,
        _d(10, 10),
        "Succeeded",
        0.5,
        ((0, "", ""),),
    )
    return [
        Scenario(start, end, 60.0, [a100], [profiled]),
        Scenario(start, end, 60.0, [t4], [util], dcgm_metrics=util_only),
    ]
