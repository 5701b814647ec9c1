"""Rules about where GPU pods go and how they are queued, prioritised, labelled and sized."""

from __future__ import annotations

from collections.abc import Iterator

from gpuplane.audit.bundle import Bundle, Workload
from gpuplane.audit.claims import pool_resource
from gpuplane.audit.model import Finding, rule
from gpuplane.audit.objects import Path, as_list, as_str, get
from gpuplane.audit.rules.common import at_workload
from gpuplane.audit.workloads import PodTemplate, quantity
from gpuplane.sharing.dra import MIG_KIND_PREFIX
from gpuplane.vocab import (
    DRA_RESOURCE_PREFIX,
    GFD_GPU_COUNT,
    GPU_RESOURCE,
    LABEL_CLASS,
    LABEL_TEAM,
    MIG_CAPABLE_LABEL,
    MIG_CONFIG_LABEL,
    MIG_RESOURCE_PREFIX,
    MIG_STRATEGY_LABEL,
    PRIORITY_CLASS_LABEL,
    QUEUE_NAME_LABEL,
    SHARED_SUFFIX,
    is_dra_resource,
    is_mig_resource,
)
from gpuplane.workloads import BATCH, POD, TRAINING, kinds

DRA_MIG_PREFIX = DRA_RESOURCE_PREFIX + MIG_KIND_PREFIX
MIG_COUNT_SUFFIX = ".count"  # GFD's per-resource device count label (nvidia.md section 4)

#: Kinds whose pods Kueue queues as batch work: the registry's batch, training and pod kinds that
#: have a Kueue integration (`gpuplane.workloads`), not a hand list.
QUEUE_KINDS = frozenset(
    k.kind for k in kinds() if k.kueue is not None and k.category in (BATCH, TRAINING, POD)
)


def _gpu_toleration(b: Bundle, t: PodTemplate) -> tuple[int, str] | None:
    keys = b.gpu_taint_keys()
    for i, tol in enumerate(as_list(t.spec.get("tolerations"))):
        if not isinstance(tol, dict) or as_str(tol.get("effect")) == "NoExecute":
            continue
        key, op = as_str(tol.get("key")), as_str(tol.get("operator")) or "Equal"
        if not key and op == "Exists":
            return (i, "tolerates every taint (operator: Exists without a key)")
        if key in keys or (key == "sku" and as_str(tol.get("value")) == "gpu"):
            return (i, f"tolerates the GPU taint {key}")
    return None


@rule(
    "GPU005",
    "tolerates-gpu-taint-without-gpu",
    "tolerates the GPU taint (or every taint) without requesting a GPU",
    "medium",
    why="""The GPU taint exists to keep CPU pods off GPU nodes. A pod that tolerates it without requesting
    a GPU can land on a GPU node, keep it from scaling down and take the CPU and memory GPU jobs need:
    you pay GPU prices for CPU work.""",
    fix=f"""Remove the toleration from pods that need no GPU (the ExtendedResourceToleration admission plugin
    adds it to pods that request `{GPU_RESOURCE}`), or request the GPU the pod actually uses.""",
    tags=("gpu", "cost"),
)
def gpu005(b: Bundle) -> Iterator[Finding]:
    for w in b.workloads:
        if w.obj.kind == "DaemonSet":  # node agents run on every node by design
            continue
        for t in w.templates:
            if t.is_gpu():
                continue
            hit = _gpu_toleration(b, t)
            if hit:
                yield at_workload(
                    "GPU005",
                    b,
                    w,
                    (*t.path, "tolerations", hit[0]),
                    f"pod template {hit[1]} but requests no GPU",
                )


@rule(
    "GPU014",
    "gpu-no-priority-class",
    "GPU workload without a priority class",
    "low",
    why="""Without a priority class every GPU job has priority 0: production inference cannot preempt
    experiments, Kueue cannot order preemption between tenants, and a node-pressure eviction picks
    victims at random.""",
    fix=f"""Set `priorityClassName` on the pod template (or the Kueue label `{PRIORITY_CLASS_LABEL}`
    for a WorkloadPriorityClass).""",
)
def gpu014(b: Bundle) -> Iterator[Finding]:
    for w in b.gpu_workloads():
        if PRIORITY_CLASS_LABEL in w.labels() or as_str(get(w.obj.data, "spec", "podPriorityClassName")):
            continue
        for t in w.gpu_templates():  # every template without one is named (a finding each)
            if not as_str(t.spec.get("priorityClassName")):
                yield at_workload(
                    "GPU014",
                    b,
                    w,
                    t.path,
                    f"GPU pod template{' ' + t.role if t.role else ''} sets no priorityClassName",
                )


def _queue_label(w: Workload) -> bool:
    obj = w.obj
    if QUEUE_NAME_LABEL in obj.labels or QUEUE_NAME_LABEL in obj.annotations:
        return True
    if obj.kind == "CronJob":
        labels = get(obj.data, "spec", "jobTemplate", "metadata", "labels")
        return isinstance(labels, dict) and QUEUE_NAME_LABEL in labels
    return False


@rule(
    "GPU020",
    "gpu-batch-bypasses-queue",
    "GPU batch workload bypasses the queue (namespace has a LocalQueue, workload no queue-name label)",
    "medium",
    why=f"""Kueue only admits workloads that name a LocalQueue. In a namespace that has one, a GPU job
    without `{QUEUE_NAME_LABEL}` skips quota and fair sharing: it takes GPUs other teams were
    promised, and Kueue cannot preempt it.""",
    fix=f"""Add the label `{QUEUE_NAME_LABEL}: <local queue>` to the job's metadata (for a CronJob,
    to `spec.jobTemplate.metadata.labels`), or enable Kueue's `manageJobsWithoutQueueName`.""",
    tags=("gpu", "multi-tenancy", "kueue"),
)
def gpu020(b: Bundle) -> Iterator[Finding]:
    for w in b.gpu_workloads():
        if w.obj.kind not in QUEUE_KINDS or not b.in_ns(w.namespace, "LocalQueue"):
            continue
        if w.obj.kind == "Pod" and b.workload_class(w) not in ("batch", "training"):
            continue
        if not _queue_label(w):
            queues = ", ".join(sorted({q.name for q in b.in_ns(w.namespace, "LocalQueue")}))
            path: Path = ("metadata", "labels") if w.obj.labels else ("metadata",)
            yield at_workload(
                "GPU020",
                b,
                w,
                path,
                f"{w.obj.kind} has no {QUEUE_NAME_LABEL} label though namespace {w.namespace} has LocalQueue {queues}",
            )


def _node_mig(labels: dict[str, str], resources: dict[str, int]) -> tuple[set[str], bool]:
    """MIG resources a node offers and whether its labels or status say enough to tell.

    GFD labels each mixed-strategy MIG resource `<resource>.count` (`<mig prefix>1g.10gb.count`)."""
    offered = {r.removesuffix(SHARED_SUFFIX) for r in resources if is_mig_resource(r)}
    offered |= {
        k.removesuffix(MIG_COUNT_SUFFIX)
        for k in labels
        if is_mig_resource(k) and k.endswith(MIG_COUNT_SUFFIX)
    }
    config = labels.get(MIG_CONFIG_LABEL, "")
    if (
        labels.get(MIG_STRATEGY_LABEL) == "mixed"
        and config.startswith("all-")
        and config not in ("all-disabled", "all-enabled", "all-balanced")
    ):
        offered.add(f"{MIG_RESOURCE_PREFIX}{config.removeprefix('all-')}")
    known = bool(resources) or bool(offered) or not (config or labels.get(MIG_CAPABLE_LABEL) == "true")
    return offered, known


def _offered_mig(b: Bundle) -> tuple[set[str], bool]:
    """MIG resources some node or pool offers, and whether the input shows GPU capacity well enough to judge."""
    offered: set[str] = set()
    known = False
    for n in b.nodes:
        if n.gpu:
            node_offered, node_known = _node_mig(n.labels, n.resources)
            if not node_known:
                return offered, False  # a MIG node whose layout we cannot read: do not guess
            offered |= node_offered
            known = known or bool(n.resources) or bool(node_offered) or GFD_GPU_COUNT in n.labels
    for p in b.pools:
        if p.gpu and p.mig_layout_unknown:
            return offered, False  # a MIG pool whose resource names depend on the MIG strategy
        if p.gpu:
            known = known or bool(p.resources)
            offered.update(r.removesuffix(SHARED_SUFFIX) for r in p.mig_resources())
    return offered, known


def _dra_mig_not_offered(b: Bundle) -> Iterator[Finding]:
    """GPU022 for DRA claims of gpuplane's MIG classes that no DRA pool of the input offers."""
    offered = {r for p in b.pools if p.gpu for r in p.resources if r.startswith(DRA_MIG_PREFIX)}
    if not any(is_dra_resource(r) for p in b.pools for r in p.resources):
        return  # no DRA pool in the input: nothing to compare with
    for w in b.gpu_workloads(system=True):
        for t in w.gpu_templates():
            for key, path in sorted(t.claim_paths.items()):
                resource = pool_resource(key)
                if resource and resource.startswith(DRA_MIG_PREFIX) and resource not in offered:
                    have = ", ".join(sorted(offered)) or "none"
                    yield at_workload(
                        "GPU022", b, w, path, f"pod claims {resource}; DRA MIG devices offered: {have}"
                    )


@rule(
    "GPU022",
    "mig-profile-not-offered",
    "request for a MIG profile that no node or pool offers",
    "high",
    why=f"""A pod requesting `{MIG_RESOURCE_PREFIX}<profile>` only schedules on nodes whose MIG layout (mixed
    strategy) advertises exactly that profile. If no node or pool offers it the pod pends forever and
    the autoscaler cannot help.""",
    fix="""Request a profile the pools offer (see the pool's MIG layout or `kubectl describe node`), or
    add it to a pool's MIG configuration with the mixed strategy.""",
)
def gpu022(b: Bundle) -> Iterator[Finding]:
    yield from _dra_mig_not_offered(b)
    offered, known = _offered_mig(b)
    if not known:
        return
    for w in b.gpu_workloads(system=True):
        for t in w.gpu_templates():
            for c in t.containers:
                for section in ("limits", "requests"):
                    for res in c.gpu_amounts(section):
                        base = res.removesuffix(SHARED_SUFFIX)
                        if is_mig_resource(base) and base not in offered:
                            have = ", ".join(sorted(offered)) or "none"
                            yield at_workload(
                                "GPU022",
                                b,
                                w,
                                (*c.path, "resources", section, res),
                                f"container {c.name!r} requests {res}; MIG resources offered: {have}",
                            )
                    if c.gpu_amounts("limits"):
                        break


@rule(
    "GPU024",
    "gpu-workload-missing-labels",
    "GPU workload missing the team and workload-class labels",
    "low",
    why="""GPU quotas, chargeback and cost reports group workloads by team and workload class. A GPU
    workload without these labels shows up as unattributed spend and escapes per-class policies.""",
    fix=f"""Label the workload (and its pod template) with `{LABEL_TEAM}: <team>` and
    `{LABEL_CLASS}: training|inference|batch` (names configurable: `teamLabels`, `classLabels`).""",
    tags=("gpu", "cost"),
)
def gpu024(b: Bundle) -> Iterator[Finding]:
    for w in b.gpu_workloads():
        labels = w.labels()
        missing = []
        if not any(k in labels for k in b.config.team_labels):
            missing.append(b.config.team_labels[0] if b.config.team_labels else "team")
        if not any(k in labels for k in b.config.class_labels):
            missing.append(b.config.class_labels[0] if b.config.class_labels else "workload-class")
        if missing:
            path: Path = ("metadata", "labels") if w.obj.labels else ("metadata",)
            yield at_workload("GPU024", b, w, path, f"GPU workload has no {' or '.join(missing)} label")


def _claim_exceeds_node(b: Bundle, w: Workload, t: PodTemplate, key: str, amount: float) -> Iterator[Finding]:
    """GPU025 for DRA claims: devices of a gpuplane class beyond what one matching DRA pool node has."""
    resource = pool_resource(key)
    if resource is None:
        return
    offered = {r for p in b.pools if p.gpu for r in p.resources}
    if resource.startswith(DRA_MIG_PREFIX) and resource not in offered:
        return  # a MIG device no DRA pool offers is GPU022's finding
    if not any(r.startswith(DRA_RESOURCE_PREFIX) for r in offered):
        return  # no pool of the input says how many DRA devices its nodes have (render's node groups)
    cap, known = _capacity(b, t, resource)
    if known and amount > cap:
        yield at_workload(
            "GPU025",
            b,
            w,
            t.claim_paths[key],
            f"pod claims {amount:g} {resource} devices but the largest node it can land on has {cap}",
        )


def _capacity(b: Bundle, t: PodTemplate, resource: str) -> tuple[int, bool]:
    """Largest amount of `resource` one node the template may land on holds, and whether that is
    known for every such node and pool (one whose size is unknown, e.g. an instance type the
    catalog lacks, could be the big one: then nothing is claimed)."""
    best, seen, unknown = 0, False, False
    for n in b.matching_nodes(t):
        seen = True
        if n.resources:
            best = max(best, n.resources.get(resource, 0))
        elif (count := quantity(n.labels.get(GFD_GPU_COUNT))) is not None and resource == GPU_RESOURCE:
            best = max(best, int(count))
        else:
            unknown = True
    for p in b.matching_pools(t):
        if p.source in ("aks", "gke") and p.sharing != "exclusive":
            continue  # MIG partitions and time-sharing multiply what a node advertises
        seen = True
        if p.resources:
            best = max(best, p.resources.get(resource, 0))
        else:
            unknown = True
    return best, seen and not unknown


@rule(
    "GPU025",
    "gpu-request-exceeds-node",
    "GPU request larger than any node in the cluster or pool can hold",
    "high",
    why="""A pod's GPUs must all come from one node. A request for more GPUs (or MIG slices) than the
    biggest matching node has can never be scheduled: the pod pends forever and Kueue quota stays
    reserved for it.""",
    fix="""Split the job into several pods (e.g. a PyTorchJob or JobSet with one pod per node), or target a
    pool whose nodes hold that many GPUs.""",
)
def gpu025(b: Bundle) -> Iterator[Finding]:
    offered, _ = _offered_mig(b)
    for w in b.gpu_workloads(system=True):
        for t in w.gpu_templates():
            for res, amount in sorted(t.gpus().items()):
                if res in t.claim_paths:
                    yield from _claim_exceeds_node(b, w, t, res, amount)
                    continue
                if is_mig_resource(res) and res.removesuffix(SHARED_SUFFIX) not in offered:
                    continue  # a profile nobody offers is GPU022's finding
                cap, known = _capacity(b, t, res)
                if known and amount > cap:
                    c = max((c for c in t.containers if res in c.gpus()), key=lambda c: c.gpus()[res])
                    section = "limits" if res in c.resources("limits") else "requests"
                    yield at_workload(
                        "GPU025",
                        b,
                        w,
                        (*c.path, "resources", section, res),
                        f"pod asks for {amount:g} {res} but the largest node it can land on has {cap}",
                    )
