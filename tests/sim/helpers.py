"""Small hand-made platforms for exact tests: pools built directly and Kueue objects as dicts."""

from __future__ import annotations

from typing import Any

from gpuplane.costs import PoolPrice
from gpuplane.sim.admitters import TeamQueue
from gpuplane.sim.pools import PoolModel


def pool(
    name: str = "gpu",
    *,
    index: int = 0,
    gpus: int = 8,
    per_gpu: dict[str, int] | None = None,
    min_nodes: int = 0,
    max_nodes: int = 2,
    spot: bool = False,
    hourly: float = 8.0,
    classes: tuple[str, ...] = ("training", "batch", "inference"),
    fractions: dict[str, float] | None = None,
    sharing: str = "exclusive",
) -> PoolModel:
    """A pool of `gpus`-GPU nodes; `per_gpu` defaults to one whole GPU each."""
    per = per_gpu or {"nvidia.com/gpu": 1}
    unit = fractions or {res: 1.0 / n for res, n in per.items()}
    return PoolModel(
        index=index,
        name=name,
        accelerator="A100-80GB",
        gpus_per_node=gpus,
        per_gpu=tuple(sorted(per.items())),
        unit_gpu=tuple(sorted(unit.items())),
        labels=(("gpuplane.io/pool", name),),
        taints=(("nvidia.com/gpu", "present", "NoSchedule"),),
        zones=("1", "2"),
        min_nodes=min_nodes,
        max_nodes=max_nodes,
        spot=spot,
        price=PoolPrice(name, hourly, hourly, spot, gpus, "test"),
        workload_classes=classes,
        sharing=sharing,
        request_names=tuple((res, res) for res in sorted(per)),
    )


def flavor(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": name},
        "spec": {"nodeLabels": {"gpuplane.io/pool": name}},
    }


def cluster_queue(
    team: str,
    quotas: dict[str, dict[str, int]],
    *,
    cohort: str | None = None,
    borrowing: int | None = None,
    preemption: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A ClusterQueue: `quotas` is flavor -> resource -> nominal."""
    resources = sorted({res for per in quotas.values() for res in per})
    flavors = []
    for fl, per in quotas.items():
        entries = []
        for res in resources:
            entry: dict[str, Any] = {"name": res, "nominalQuota": per.get(res, 0)}
            if borrowing is not None:
                entry["borrowingLimit"] = borrowing
            entries.append(entry)
        flavors.append({"name": fl, "resources": entries})
    spec: dict[str, Any] = {
        "namespaceSelector": {},
        "resourceGroups": [{"coveredResources": resources, "flavors": flavors}],
        "queueingStrategy": "BestEffortFIFO",
    }
    if cohort:
        spec["cohortName"] = cohort
    if preemption:
        spec["preemption"] = preemption
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": team},
        "spec": spec,
    }


def local_queue(team: str) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": team, "namespace": team},
        "spec": {"clusterQueue": team},
    }


def team(name: str, priority: int = 0) -> TeamQueue:
    return TeamQueue(name=name, namespace=name, local_queue=name, priority=priority)
