"""Rules about GPU node pools and nodes: taints, scale-to-zero, spot, zones, shared pools."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from gpuplane.audit.bundle import Bundle, Workload, selector
from gpuplane.audit.model import Finding, rule
from gpuplane.audit.nodes import POOL_LABELS
from gpuplane.audit.objects import Path, as_list, as_str, get
from gpuplane.audit.pools import Pool
from gpuplane.audit.rules.common import at, at_pool, at_workload
from gpuplane.audit.workloads import PodTemplate
from gpuplane.catalog.providers import provider_facts
from gpuplane.vocab import (
    ANNOTATION_IGNORE,
    GPU_RESOURCE,
    GPU_TAINT_EFFECT,
    GPU_TAINT_KEY,
    GPU_TAINT_VALUE,
    PRIORITY_CLASS_LABEL,
)

REPELLING = ("NoSchedule", "NoExecute")


@rule(
    "GPU007",
    "gpu-node-without-taint",
    "GPU node or GPU node pool without a NoSchedule taint",
    "medium",
    why="""Without a NoSchedule taint the scheduler packs ordinary CPU pods onto GPU nodes: they take the
    CPU and memory GPU jobs need and keep the expensive nodes from scaling down.""",
    fix=f"""Taint GPU nodes `{GPU_TAINT_KEY}={GPU_TAINT_VALUE}:{GPU_TAINT_EFFECT}` (eksctl `taints`, `az aks nodepool add
    --node-taints`, GKE `--node-taints`, or the platform spec pool's default). Pods requesting
    `{GPU_RESOURCE}` get the toleration from the ExtendedResourceToleration admission plugin.""",
    tags=("gpu", "cost"),
)
def gpu007(b: Bundle) -> Iterator[Finding]:
    for p in b.pools:
        if p.gpu and "no-taints" not in p.waivers and not any(t[2] in REPELLING for t in p.taints):
            yield at_pool("GPU007", p, "taints", f"GPU pool {p.name} has no NoSchedule taint")
    for n in b.nodes:
        if n.gpu and not any(t[2] in REPELLING for t in n.taints):
            path: Path = (
                ("spec", "taints") if get(n.obj.data, "spec", "taints") is not None else ("metadata", "name")
            )
            yield at("GPU007", b, n.obj, path, f"GPU node {n.name} has no NoSchedule taint")


def fixed_pool(p: Pool) -> bool:
    """A pool of nodes the platform brings: its provider cannot scale pools (the provider facts'
    `scale_to_zero` is false: `generic`, "The nodes are yours; no autoscaler is configured"), so
    neither a minimum nor zones are choices the spec makes (GPU016 and GPU018 do not apply)."""
    if not p.provider:
        return False
    try:
        facts = provider_facts(p.provider)
    except KeyError:
        return False
    return facts["scale_to_zero"].value is False


@rule(
    "GPU016",
    "training-pool-min-above-zero",
    "GPU pool for training or batch with a minimum above zero",
    "medium",
    why="""Training and batch pools are idle between jobs. A minimum above zero keeps GPU nodes running
    (and billed) 24/7 whether or not anything is queued.""",
    fix="""Set the pool's autoscaler minimum to 0 (eksctl `minSize: 0`, AKS `--min-count 0`, GKE
    `--min-nodes 0`, spec `minNodes: 0`); let Kueue and the autoscaler add nodes when jobs arrive.""",
    tags=("gpu", "cost"),
)
def gpu016(b: Bundle) -> Iterator[Finding]:
    for p in b.pools:
        if fixed_pool(p):
            continue  # nodes the platform brings: nothing scales them, to zero or otherwise
        if p.gpu and p.classes and p.classes <= {"training", "batch"} and (p.min_nodes or 0) > 0:
            yield at_pool(
                "GPU016",
                p,
                "min",
                f"{'/'.join(sorted(p.classes))} GPU pool {p.name} keeps at least {p.min_nodes} node(s){p.min_note}",
            )


def spot_reason(b: Bundle, t: PodTemplate) -> tuple[str, Path] | None:
    """Why a template lands on spot: an explicit selector/toleration, or every GPU pool it fits is spot."""
    reason = b.spot_reason(t)
    if reason:
        return reason
    pools = b.matching_pools(t)
    if pools and all(p.spot for p in pools):
        return (f"every GPU pool it can land on is spot ({', '.join(sorted(p.name for p in pools))})", t.path)
    return None


@rule(
    "GPU017",
    "inference-on-spot",
    "inference serving scheduled onto spot capacity",
    "high",
    why="""Spot GPUs are reclaimed with 30 seconds (Azure, GCP) to 2 minutes (AWS) notice, often many at
    once when a zone runs short. Serving replicas on spot lose capacity exactly when it is scarce, and
    model servers take minutes to load weights on a new node.""",
    fix=f"""Run production inference on on-demand or reserved pools; keep spot for checkpointed training and
    batch. If the risk is accepted, waive it (spec `waivers: [inference-on-spot]` or the
    `{ANNOTATION_IGNORE}: GPU017` annotation).""",
    tags=("gpu", "reliability"),
)
def gpu017(b: Bundle) -> Iterator[Finding]:
    for p in b.pools:
        if p.gpu and p.spot and "inference" in p.classes and "inference-on-spot" not in p.waivers:
            yield at_pool("GPU017", p, "spot", f"GPU pool {p.name} serves inference on spot capacity")
    for w in b.gpu_workloads():
        if b.workload_class(w) != "inference":
            continue
        for t in w.gpu_templates():
            reason = spot_reason(b, t)
            if reason:
                yield at_workload("GPU017", b, w, reason[1], f"inference workload {reason[0]}")
                break


@rule(
    "GPU018",
    "gpu-pool-single-zone",
    "GPU pool without availability zones or in a single zone",
    "medium",
    why="""GPU capacity runs out per zone. A pool pinned to one zone (or to none) cannot get GPUs when
    that zone is short, and a zone outage takes all of it down.""",
    fix="""Spread the pool over two or more zones (eksctl `availabilityZones`, AKS `--zones 1 2 3`, GKE
    `--node-locations`, spec `zones`). Tightly coupled multi-node training that needs one zone should
    use a compact placement group / EFA pool, which this rule skips.""",
    tags=("gpu", "reliability"),
)
def gpu018(b: Bundle) -> Iterator[Finding]:
    for p in b.pools:
        if not p.gpu or p.compact_placement or not p.zones_known or fixed_pool(p):
            continue
        zones = sorted(set(p.zones or []))
        if not zones:
            yield at_pool("GPU018", p, "zones", f"GPU pool {p.name} declares no availability zones")
        elif len(zones) == 1:
            yield at_pool("GPU018", p, "zones", f"GPU pool {p.name} is in a single zone ({zones[0]})")


_PERSISTENT_KEYS = frozenset(
    {
        "persistentVolumeClaim",
        "volumeClaimTemplate",
        "volumeClaimTemplates",
        "nfs",
        "azureFile",
        "awsElasticBlockStore",
        "gcePersistentDisk",
        "cephfs",
        "glusterfs",
        "iscsi",
        "azureDisk",
    }
)
_REMOTE = re.compile(r"\b(s3|gs|gcs|az|abfss?|wasbs?|hdfs|oci)://")


def _has_persistent(node: Any, depth: int = 0) -> bool:
    if depth > 12:
        return False
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _PERSISTENT_KEYS and value:
                return True
            if key == "csi" and "secrets" not in as_str(get(value, "driver")):
                return True
            if _has_persistent(value, depth + 1):
                return True
    elif isinstance(node, list):
        return any(_has_persistent(v, depth + 1) for v in node[:256])
    return False


def _remote_checkpoint(w: Workload) -> bool:
    for t in w.templates:
        for c in t.containers:
            for _, env in c.env():
                name = as_str(env.get("name")).upper()
                if ("CHECKPOINT" in name or "CKPT" in name) and _REMOTE.search(as_str(env.get("value"))):
                    return True
            words = [as_str(a) for a in as_list(c.data.get("args")) + as_list(c.data.get("command"))]
            if any(("checkpoint" in a.lower() or "ckpt" in a.lower()) and _REMOTE.search(a) for a in words):
                return True
    return False


@rule(
    "GPU019",
    "spot-training-without-checkpoint-storage",
    "training on spot without checkpoint storage (no persistent volume)",
    "high",
    why="""Spot nodes are reclaimed without warning long enough to save a model. Training on spot without a
    persistent volume (or object storage) for checkpoints restarts from step zero after every
    eviction, so the cheap GPU hours are paid again and again.""",
    fix="""Mount a PersistentVolumeClaim (or point a CHECKPOINT_DIR at object storage, e.g. s3://) and
    checkpoint regularly; or run the job on on-demand capacity.""",
    tags=("gpu", "cost", "reliability"),
)
def gpu019(b: Bundle) -> Iterator[Finding]:
    for w in b.gpu_workloads():
        if b.workload_class(w) not in ("training", "batch"):
            continue
        if _has_persistent(w.obj.data.get("spec")) or _remote_checkpoint(w):
            continue
        for t in w.gpu_templates():
            reason = spot_reason(b, t)
            if reason:
                yield at_workload(
                    "GPU019",
                    b,
                    w,
                    reason[1],
                    f"training workload {reason[0]} but mounts no persistent volume for checkpoints",
                )
                break


def _priority(b: Bundle, w: Workload) -> tuple[str, int | None]:
    names = {as_str(t.spec.get("priorityClassName")) for t in w.gpu_templates()} - {""}
    name = sorted(names)[0] if names else w.labels().get(PRIORITY_CLASS_LABEL, "")
    return name, b.priority_values.get(name) if name else 0


def _separated(b: Bundle, inference: Workload, training: Workload) -> bool:
    (iname, ivalue), (tname, tvalue) = _priority(b, inference), _priority(b, training)
    if ivalue is not None and tvalue is not None:
        return ivalue > tvalue
    return iname != tname


def _placement(b: Bundle, w: Workload) -> set[str]:
    """Names of the pools (or the pool selector) a workload's GPU pods land on; empty when unknown."""
    out: set[str] = set()
    for t in w.gpu_templates():
        if b.pools:
            out.update(p.name for p in b.matching_pools(t))
        else:
            sel = selector(t)
            out.update(f"{k}={','.join(sorted(sel[k]))}" for k in POOL_LABELS if k in sel)
    return out


@rule(
    "GPU023",
    "training-and-inference-share-pool",
    "training and production inference sharing a pool with no priority classes separating them",
    "medium",
    why="""When training and inference share GPU nodes, only priority lets serving pods preempt training
    when they need to scale up. With equal (or no) priorities, a burst of training jobs blocks the
    inference scale-out until a job finishes.""",
    fix="""Give inference a higher PriorityClass than training (e.g. `inference-critical` 1000 vs
    `training-default` 100), or split them into separate pools.""",
    tags=("gpu", "reliability"),
)
def gpu023(b: Bundle) -> Iterator[Finding]:
    for s in b.specs:
        for p in s.pools:
            use = s.use.get(p.name)
            if not (p.gpu and {"inference", "training"} <= p.classes) or use is None:
                continue
            values = {v for v in use.priorities.values() if v is not None}
            if len(values) < 2:
                yield at_pool(
                    "GPU023",
                    p,
                    "classes",
                    f"pool {p.name} runs training and inference but its teams share one priority",
                )
    yield from _gpu023_workloads(b)


def _gpu023_workloads(b: Bundle) -> Iterator[Finding]:
    """Inference workloads that share a pool with training of equal or higher priority."""
    training: dict[str, dict[tuple[str, int | None], Workload]] = {}
    inference: list[tuple[Workload, set[str]]] = []
    for w in b.gpu_workloads():
        cls, where = b.workload_class(w), _placement(b, w)
        if cls in ("training", "batch"):
            for key in where:
                training.setdefault(key, {}).setdefault(_priority(b, w), w)
        elif cls == "inference":
            inference.append((w, where))
    for w, where in inference:
        conflict = next(
            (
                (key, other)
                for key in sorted(where)
                for other in training.get(key, {}).values()
                if not _separated(b, w, other)
            ),
            None,
        )
        if conflict:
            t = w.gpu_templates()[0]
            path = (*t.path, "priorityClassName") if t.spec.get("priorityClassName") else t.path
            yield at_workload(
                "GPU023",
                b,
                w,
                path,
                f"inference shares GPU pool {conflict[0]} with {conflict[1].obj.ident()} and no higher priority class",
            )
