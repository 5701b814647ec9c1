"""The day of issue 10's "Done means", as an event table (times in hours from DAY, 2026-01-05 00:00 UTC).

The account window is [DAY, DAY + 24 h); the table starts 4 h earlier so that pods, Kueue
counters and nodes exist when the window opens.

| pool  | node         | GPUs                          | dcgm-exporter                   | what happens                         |
|-------|--------------|-------------------------------|---------------------------------|--------------------------------------|
| train | aks-train-0  | 2 x A100, 50 W idle           | profiling + util                | resnet (GPU1) runs -2:50..6:00 at 0.5, +150 W; notebook (GPU0) 0:10..10:10 at 0.0 |
| train | aks-train-1  | 2 x A100, 50 W idle           | profiling + util                | llm-ft-0 (both) 1:05..7:00 at 0.9, +250 W each, Failed (XID 79 on GPU1 6:50..7:00); retry llm-ft-1 7:10..19:10 at 0.8, +200 W each |
| spot  | aks-spot-0   | 1 x A100, 50 W idle           | profiling + util                | node exists -4:00..14:00; spot-batch 0:30..14:00 at 0.95, +200 W, vanishes with the node |
| mig   | aks-mig-0    | 1 x A100, MIG 3g.40gb (GI 1), 2g.20gb (GI 2), 1g.10gb (GI 3, GI 4); 60 W idle | no profiling (an older counters CSV) | llm-serve on GI 1 all day +100 W; embed on GI 2 2:00..14:00 +40 W; small-a on GI 3 all day +20 W; GI 4 free |
| t4    | aks-t4-0     | 1 x T4 time-sliced x4, 10 W idle | profiling + util, KUBERNETES_VIRTUAL_GPUS unset | ts-a all day at 0.2, +10 W; ts-b 6:00..18:00 at 0.4, +20 W |
| cpu   | aks-cpu-0    | none                          | —                               | a CPU pool node, all day             |
| —     | aks-system-0 | none (agentpool=system)       | —                               | a system node of no spec pool        |

Kueue: ClusterQueues vision, nlp and serving. Before the window: vision admitted one workload
(wait 600 s), nlp one (120 s), serving one (30 s). Inside it: vision at 0:10 (waited 600 s); nlp
at 0:30 (0 s), 1:05 (300 s), 2:00 (90 s) and 7:10 (600 s, the first of priority class `high`: a
child series born in the window); serving admits nothing (in PromQL its mean is NaN).
"""

from __future__ import annotations

from typing import Any

from tests.support.exporter_series import Admission, Dcgm, Gpu, Node, Pod, Queue, Table

DAY = 1767571200.0  # 2026-01-05T00:00:00Z
H = 3600.0
UTIL_AND_POWER = (
    "DCGM_FI_DEV_GPU_UTIL",
    "DCGM_FI_DEV_POWER_USAGE",
    "DCGM_FI_DEV_GPU_TEMP",
    "DCGM_FI_DEV_FB_USED",
)

SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: done-day, provider: aks, region: eastus, kubernetesVersion: "1.30"}
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
  - {name: cpu, vmSize: Standard_D16s_v5, minNodes: 1, maxNodes: 3}
teams:
  - {name: vision, namespaces: [vision], quotas: [{pool: train, nominal: 2}]}
  - {name: nlp, namespaces: [nlp], quotas: [{pool: train, nominal: 2}]}
  - {name: serving, namespaces: [serving], spotAllowed: false}
costs:
  currency: USD
  pools:
    train: {onDemandHourly: 8.0}
    spot: {onDemandHourly: 4.0, spotHourly: 1.0}
    mig: {onDemandHourly: 3.5}
    t4: {onDemandHourly: 0.6}
    cpu: {onDemandHourly: 0.8}
  supportMonthly: 730
  operationsMonthly: 1460
"""


def at(hours: float) -> float:
    """DAY + hours, in Unix seconds."""
    return DAY + hours * H


def _node(name: str, pool: str, **extra: Any) -> Node:
    """A node of `pool` alive over the whole day; `extra` are further Node fields."""
    labels = {"gpuplane.io/pool": pool, "kubernetes.azure.com/agentpool": pool, "agentpool": pool}
    if pool != "cpu":
        labels["gpuplane.io/accelerator"] = "a100-80gb" if pool != "t4" else "t4"
    return Node(name, labels, at(-4), at(24), **extra)


def _labels(team: str = "", queue: str = "", job: str = "") -> dict[str, str]:
    labels = {"gpuplane.io/team": team, "kueue.x-k8s.io/queue-name": queue, "job-name": job}
    return {k: v for k, v in labels.items() if v}


MIG = ((1, "3g.40gb"), (2, "2g.20gb"), (3, "1g.10gb"), (4, "1g.10gb"))
NODES = [
    _node("aks-train-0", "train", gpus=(Gpu("GPU-t0-0"), Gpu("GPU-t0-1")), allocatable={"nvidia.com/gpu": 2}),
    _node("aks-train-1", "train", gpus=(Gpu("GPU-t1-0"), Gpu("GPU-t1-1")), allocatable={"nvidia.com/gpu": 2}),
    Node(
        "aks-spot-0",
        {"gpuplane.io/pool": "spot", "kubernetes.azure.com/agentpool": "spot"},
        at(-4),
        at(14),
        gpus=(Gpu("GPU-s0-0"),),
        allocatable={"nvidia.com/gpu": 1},
    ),
    _node(
        "aks-mig-0",
        "mig",
        gpus=(Gpu("GPU-m0-0", mig=MIG, idle_w=60),),
        allocatable={"nvidia.com/mig-3g.40gb": 1, "nvidia.com/mig-2g.20gb": 1, "nvidia.com/mig-1g.10gb": 2},
        dcgm=Dcgm(metrics=(*UTIL_AND_POWER, "DCGM_FI_DEV_XID_ERRORS")),
    ),
    _node(
        "aks-t4-0",
        "t4",
        gpus=(Gpu("GPU-t4-0", idle_w=10),),
        allocatable={"nvidia.com/gpu": 4},
        model="Tesla T4",
        replicas=4,
    ),
    _node("aks-cpu-0", "cpu"),
    Node("aks-system-0", {"kubernetes.azure.com/agentpool": "system", "agentpool": "system"}, at(-4), at(24)),
]

GPU, M3, M2, M1 = (
    "nvidia.com/gpu",
    "nvidia.com/mig-3g.40gb",
    "nvidia.com/mig-2g.20gb",
    "nvidia.com/mig-1g.10gb",
)
PODS = [
    Pod("vision", "resnet", "aks-train-0", GPU, 1, at(-3), at(-2 - 50 / 60), at(6), "Succeeded",
        ((1, None),), 0.5, 150, _labels(queue="vision", job="resnet")),
    Pod("vision", "notebook", "aks-train-0", GPU, 1, at(0), at(10 / 60), at(10 + 10 / 60), "Succeeded",
        ((0, None),), 0.0, 0, _labels(queue="vision", job="notebook"), image="jupyter/pytorch:2.3"),
    Pod("nlp", "llm-ft-0", "aks-train-1", GPU, 2, at(1), at(1 + 5 / 60), at(7), "Failed",
        ((0, None), (1, None)), 0.9, 250, _labels(queue="nlp", job="llm-ft")),
    Pod("nlp", "llm-ft-1", "aks-train-1", GPU, 2, at(7), at(7 + 10 / 60), at(19 + 10 / 60), "Succeeded",
        ((0, None), (1, None)), 0.8, 200, _labels(queue="nlp", job="llm-ft")),
    Pod("nlp", "spot-batch", "aks-spot-0", GPU, 1, at(0.5), at(0.5), at(14), "Running",
        ((0, None),), 0.95, 200, _labels(queue="nlp", job="spot-batch"), deleted=at(14)),
    Pod("serving", "llm-serve", "aks-mig-0", M3, 1, at(-4), at(-4), at(24), "Running",
        ((0, 1),), 0.5, 100, _labels(job="llm-serve"), image="vllm/vllm-openai:0.5"),
    Pod("nlp", "embed", "aks-mig-0", M2, 1, at(2 - 90 / 3600), at(2), at(14), "Succeeded",
        ((0, 2),), 0.4, 40, _labels(queue="nlp", job="embed")),
    Pod("serving", "small-a", "aks-mig-0", M1, 1, at(-1), at(-1), at(24), "Running",
        ((0, 3),), 0.3, 20, _labels(job="small-a")),
    Pod("vision", "ts-a", "aks-t4-0", GPU, 1, at(-2), at(-2), at(24), "Running",
        ((0, None),), 0.2, 10, _labels(job="ts-a")),
    Pod("nlp", "ts-b", "aks-t4-0", GPU, 1, at(6), at(6), at(18), "Succeeded",
        ((0, None),), 0.4, 20, _labels(team="vision", job="ts-b")),
]  # fmt: skip

QUEUES = [
    Queue("vision", ((at(-4), 1, 0),), admitted=2),
    Queue("nlp", ((at(-4), 2, 1), (at(12), 0, 0)), admitted=3),
    Queue("serving", ((at(-4), 0, 0),), admitted=2),
]
ADMISSIONS = [
    Admission("vision", at(-3 - 5 / 60), 600),
    Admission("nlp", at(-1), 120),
    Admission("serving", at(-3.5), 30),
    Admission("vision", at(10 / 60), 600),
    Admission("nlp", at(0.5), 0),
    Admission("nlp", at(1 + 5 / 60), 300),
    Admission("nlp", at(2), 90),
    Admission("nlp", at(7 + 10 / 60), 600, priority_class="high"),
]

TABLE = Table(
    start=at(-4),
    end=at(24),
    nodes=NODES,
    pods=PODS,
    scrape_s=60.0,
    queues=QUEUES,
    admissions=ADMISSIONS,
    xids=[("aks-train-1", 1, at(6 + 50 / 60), at(7), 79)],
    node_label_allowlist=("gpuplane.io/pool", "gpuplane.io/accelerator", "kubernetes.azure.com/agentpool"),
    pod_label_allowlist=("gpuplane.io/team", "kueue.x-k8s.io/queue-name", "job-name"),
)
