"""Rules about tenant isolation: quotas, network policy, pod security, RBAC, shared GPUs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from gpuplane.audit.bundle import Bundle, Workload, pool_labels, selector
from gpuplane.audit.model import Finding, rule
from gpuplane.audit.objects import K8sObject, Path, as_dict, as_list, as_str, get
from gpuplane.audit.rules.common import at, at_pool, at_workload
from gpuplane.audit.workloads import PodTemplate, is_gpu_resource, quantity
from gpuplane.vocab import (
    DRA_QUOTA_SUFFIX,
    GFD_SHARING_STRATEGY,
    GKE_GPU_SHARING_LABEL,
    GPU_RESOURCE,
    LABEL_SHARING,
    MIG_RESOURCE_PREFIX,
    POD_SECURITY_ENFORCE_LABEL,
    SHARED_SUFFIX,
)

PSA_ENFORCE = POD_SECURITY_ENFORCE_LABEL
# Node labels that mark time-sliced GPUs: GFD's, gpuplane's, and GKE's GPU time-sharing.
TIME_SLICED_LABELS = (
    (GFD_SHARING_STRATEGY, "time-slicing"),
    (LABEL_SHARING, "time-slicing"),
    (GKE_GPU_SHARING_LABEL, "time-sharing"),
)


def gpu_namespaces(b: Bundle) -> dict[str, list[Workload]]:
    """Tenant namespaces that run GPU workloads (in the input), with those workloads."""
    out: dict[str, list[Workload]] = defaultdict(list)
    for w in b.gpu_workloads():
        if b.is_tenant_ns(w.namespace):
            out[w.namespace].append(w)
    return out


def _ns_finding(rule_id: str, b: Bundle, ns: str, workloads: list[Workload], message: str) -> Finding:
    """Locate a namespace-wide finding at the Namespace object, else at the first workload's namespace."""
    obj = b.namespaces.get(ns)
    if obj is not None:
        return at(rule_id, b, obj, ("metadata", "name"), message)
    w = workloads[0]
    path: Path = ("metadata", "namespace") if w.obj.namespace else ("metadata",)
    return at_workload(rule_id, b, w, path, message)


def _quota_resources(b: Bundle, ns: str) -> set[str]:
    """Extended resources a namespace's quotas cap. Kubernetes only enforces `requests.<resource>`
    items for extended resources (no overcommit); a `limits.<resource>` or bare `<resource>` item is
    accepted by the API server but caps nothing."""
    out: set[str] = set()
    for q in b.in_ns(ns, "ResourceQuota"):
        for key in as_dict(get(q.data, "spec", "hard")):
            name = str(key)
            if name.startswith("requests."):
                out.add(name.removeprefix("requests."))
            elif name.endswith(DRA_QUOTA_SUFFIX):
                out.add(name)  # devices claimed through one DeviceClass (DRA), as claims.quota_key names them
    return out


HAMI_TOTAL_PREFIX = "total-"  # Kueue docs tasks/run/using_hami.md: <vendor>/gpumem -> <vendor>/total-gpumem


def _kueue_resources(b: Bundle, ns: str) -> set[str]:
    """Resources the ClusterQueues behind the namespace's LocalQueues cap (coveredResources), and
    the per-pod resources Kueue turns into a covered one: a Configuration's
    `resources.transformations` in the input, else HAMi's documented `<vendor>/total-<x>` form."""
    cqs = {o.name: o for o in b.by_kind.get("ClusterQueue", [])}
    covered: set[str] = set()
    for lq in b.in_ns(ns, "LocalQueue"):
        cq = cqs.get(as_str(get(lq.data, "spec", "clusterQueue")))
        for group in as_list(get(cq.data, "spec", "resourceGroups")) if cq else []:
            covered.update(as_str(r) for r in as_list(get(group, "coveredResources")))
    out = set(covered)
    for config in b.by_kind.get("Configuration", []):
        for t in as_list(get(config.data, "resources", "transformations")):
            if any(str(o) in covered for o in as_dict(get(t, "outputs"))):
                out.add(as_str(get(t, "input")))
    for name in covered:
        prefix, _, rest = name.partition("/")
        if rest.startswith(HAMI_TOTAL_PREFIX):
            out.add(f"{prefix}/{rest.removeprefix(HAMI_TOTAL_PREFIX)}")
    return out


@rule(
    "GPU006",
    "gpu-namespace-without-quota",
    f"namespace running GPU pods without a ResourceQuota on requests.{GPU_RESOURCE} (and its MIG resources)",
    "high",
    why=f"""Extended resources cannot be overcommitted, so a quota on `requests.{GPU_RESOURCE}` is the only
    built-in cap on how many GPUs one namespace takes. Without it one tenant can take every GPU in the
    cluster (and the autoscaler will buy more).""",
    fix=f"""Add a ResourceQuota with `requests.{GPU_RESOURCE}` (and `requests.{MIG_RESOURCE_PREFIX}<profile>` for
    each MIG resource used) in the namespace, or let Kueue ClusterQueues hold the quota and require queues.
    Only the `requests.` form counts: Kubernetes ignores `limits.{GPU_RESOURCE}` and bare `{GPU_RESOURCE}`
    quota items for extended resources.""",
    tags=("gpu", "multi-tenancy", "cost"),
)
def gpu006(b: Bundle) -> Iterator[Finding]:
    for ns, workloads in sorted(gpu_namespaces(b).items()):
        if not b.judges_ns(ns, "ResourceQuota"):
            continue
        # A renamed time-sliced resource (`<gpu>.shared`) is its own quota item.
        used = sorted({r for w in workloads for t in w.gpu_templates() for r in t.gpus()})
        quota = _quota_resources(b, ns) | _kueue_resources(b, ns)
        missing = [r if r.endswith(DRA_QUOTA_SUFFIX) else f"requests.{r}" for r in used if r not in quota]
        if missing:
            yield _ns_finding(
                "GPU006",
                b,
                ns,
                workloads,
                f"namespace {ns} runs GPU pods but no ResourceQuota limits {', '.join(missing)}",
            )


def _default_deny(np: K8sObject) -> bool:
    """A policy that selects every pod of its namespace and admits no ingress source by default."""
    spec = as_dict(np.data.get("spec"))
    sel = as_dict(spec.get("podSelector"))
    if sel.get("matchLabels") or sel.get("matchExpressions"):
        return False
    types = [as_str(t) for t in as_list(spec.get("policyTypes"))] or ["Ingress"]
    if "Ingress" not in types:
        return False
    # an empty rule, or one without `from`, admits every source: not a deny
    return not any(
        not as_dict(r) or not as_list(as_dict(r).get("from")) for r in as_list(spec.get("ingress"))
    )


@rule(
    "GPU011",
    "gpu-namespace-without-default-deny",
    "GPU namespace without a default-deny NetworkPolicy",
    "medium",
    why="""GPU namespaces hold model weights, datasets and inference endpoints; GPU nodes run exporters
    and NCCL ports. Without a default-deny policy every pod in the cluster can reach them.""",
    fix="""Add a NetworkPolicy with `podSelector: {}` and `policyTypes: [Ingress, Egress]` in the namespace,
    then allow the traffic the workloads need.""",
    tags=("gpu", "security", "multi-tenancy"),
    security=True,
)
def gpu011(b: Bundle) -> Iterator[Finding]:
    for ns, workloads in sorted(gpu_namespaces(b).items()):
        if not b.judges_ns(ns, "NetworkPolicy"):
            continue
        if not any(_default_deny(np) for np in b.in_ns(ns, "NetworkPolicy")):
            yield _ns_finding(
                "GPU011",
                b,
                ns,
                workloads,
                f"namespace {ns} runs GPU pods but has no default-deny NetworkPolicy",
            )


@rule(
    "GPU012",
    "tenant-namespace-pod-security",
    "tenant namespace without a Pod Security Admission level, or `privileged`",
    "high",
    why="""Pod Security Admission is the built-in guard against privileged pods, host namespaces and
    hostPath device mounts. A tenant namespace without an enforced level (or with `privileged`) lets
    any tenant pod reach the GPUs and driver of its node directly.""",
    fix="""Label the namespace `pod-security.kubernetes.io/enforce: baseline` (or `restricted`).""",
    tags=("gpu", "security", "multi-tenancy"),
    security=True,
)
def gpu012(b: Bundle) -> Iterator[Finding]:
    for name, obj in sorted(b.namespaces.items()):
        if not b.is_tenant_ns(name) or b.config.is_system(name, name):
            continue
        level = obj.labels.get(PSA_ENFORCE)
        if level is None:
            path: Path = ("metadata", "labels") if obj.labels else ("metadata", "name")
            yield at("GPU012", b, obj, path, f"tenant namespace {name} has no {PSA_ENFORCE} label")
        elif level.strip().lower() == "privileged":
            yield at(
                "GPU012",
                b,
                obj,
                ("metadata", "labels", PSA_ENFORCE),
                f"tenant namespace {name} enforces the privileged Pod Security level",
            )


def _time_sliced_configs(b: Bundle) -> list[tuple[K8sObject, str, str]]:
    """(ConfigMap, data key, shared resource) for device-plugin configs with time-slicing replicas > 1."""
    from gpuplane.yamlio import load_embedded

    out = []
    for cm in b.by_kind.get("ConfigMap", []):
        for key, value in as_dict(cm.data.get("data")).items():
            text = as_str(value)
            if "timeSlicing" not in text:
                continue
            cfg = load_embedded(text, cm.file)
            if cfg is None:
                continue
            ts = get(cfg, "sharing", "timeSlicing")
            for r in as_list(get(ts, "resources")):
                replicas = get(r, "replicas")
                if isinstance(replicas, int) and replicas > 1:
                    name = as_str(get(r, "name")) or GPU_RESOURCE
                    rename = get(ts, "renameByDefault") is True
                    out.append((cm, str(key), f"{name}{SHARED_SUFFIX}" if rename else name))
    return out


@rule(
    "GPU008",
    "time-sliced-gpu-shared-by-tenants",
    "time-sliced GPUs shared by more than one tenant namespace",
    "high",
    why="""Time-slicing gives no memory or fault isolation between replicas (NVIDIA GPU Operator docs):
    one tenant's process can read another's GPU memory residue, crash its kernels or starve it. Sharing
    a time-sliced GPU across tenants is a data-isolation breach, not only a noisy neighbour.""",
    fix="""Give each tenant its own time-sliced pool (node selector + taint per team), or use MIG for
    hardware isolation between tenants.""",
    tags=("gpu", "security", "multi-tenancy"),
    security=True,
)
def gpu008(b: Bundle) -> Iterator[Finding]:
    yield from _gpu008_nodes(b)
    yield from _gpu008_configs(b)
    yield from _gpu008_workloads(b)
    yield from _gpu008_spec(b)
    yield from _gpu008_kueue(b)


def _gpu008_nodes(b: Bundle) -> Iterator[Finding]:
    sliced = {n.name: n for n in b.nodes if n.time_sliced}
    tenants: dict[str, set[str]] = defaultdict(set)
    for p in b.pods:
        node = as_str(get(p.obj.data, "spec", "nodeName"))
        if node in sliced and p.is_gpu() and b.is_tenant_ns(p.namespace):
            tenants[node].add(p.namespace)
    for name, namespaces in sorted(tenants.items()):
        if len(namespaces) > 1:
            n = sliced[name]
            yield at(
                "GPU008",
                b,
                n.obj,
                ("metadata", "name"),
                f"time-sliced node {name} runs GPU pods of namespaces {', '.join(sorted(namespaces))}",
            )


def _config_in_use(b: Bundle, cm: K8sObject, key: str) -> bool:
    """Whether a device-plugin config applies to GPU nodes by default."""
    policies = b.by_kind.get("ClusterPolicy", [])
    if not policies:
        return len(as_dict(cm.data.get("data"))) == 1
    return any(
        as_str(get(cp.data, "spec", "devicePlugin", "config", "name")) == cm.name
        and as_str(get(cp.data, "spec", "devicePlugin", "config", "default")) == key
        for cp in policies
    )


def _gpu008_configs(b: Bundle) -> Iterator[Finding]:
    for cm, key, resource in _time_sliced_configs(b):
        if not _config_in_use(b, cm, key):
            continue
        namespaces = sorted(
            {
                w.namespace
                for w in b.gpu_workloads()
                if b.is_tenant_ns(w.namespace) and any(resource in t.gpus() for t in w.gpu_templates())
            }
        )
        if len(namespaces) > 1:
            yield at(
                "GPU008",
                b,
                cm,
                ("data", key),
                f"time-slicing config {key!r} shares {resource} and GPU pods of namespaces {', '.join(namespaces)} request it",
            )


def _sliced_target(b: Bundle, t: PodTemplate) -> str:
    """A name for the time-sliced capacity a GPU template lands on, or '' if none is evident."""
    shared = sorted(r for r in t.gpus() if r.endswith(".shared"))
    if shared:
        return f"resource {shared[0]}"
    sel = selector(t)
    for key, value in TIME_SLICED_LABELS:
        if value in sel.get(key, set()):
            return f"nodes labelled {key}={value}"
    if sel:
        pools = [p for p in b.matching_pools(t) if any(k in pool_labels(p) for k in sel)]
        if pools and all(p.sharing == "time-slicing" for p in pools):
            return f"time-sliced pool {', '.join(sorted(p.name for p in pools))}"
        nodes = b.matching_nodes(t)
        if nodes and all(n.time_sliced for n in nodes):
            return f"time-sliced nodes {', '.join(sorted(n.name for n in nodes))}"
    return ""


def _gpu008_workloads(b: Bundle) -> Iterator[Finding]:
    groups: dict[str, list[Workload]] = defaultdict(list)
    for w in b.gpu_workloads():
        if not b.is_tenant_ns(w.namespace):
            continue
        targets = {_sliced_target(b, t) for t in w.gpu_templates()} - {""}
        for target in targets:
            groups[target].append(w)
    for target, workloads in sorted(groups.items()):
        namespaces = sorted({w.namespace for w in workloads})
        if len(namespaces) > 1:
            for w in workloads:
                t = w.gpu_templates()[0]
                yield at_workload(
                    "GPU008", b, w, t.path, f"GPU pods of namespaces {', '.join(namespaces)} share {target}"
                )


def _gpu008_spec(b: Bundle) -> Iterator[Finding]:
    for s in b.specs:
        for p in s.pools:
            teams = s.use.get(p.name)
            if p.sharing == "time-slicing" and teams and len(teams.teams) > 1:
                yield at_pool(
                    "GPU008",
                    p,
                    "sharing",
                    f"time-sliced pool {p.name} is shared by teams {', '.join(teams.teams)}",
                )


def _cq_team(b: Bundle, cq: K8sObject) -> str:
    """The team a ClusterQueue serves: its team label, else the team label its namespaceSelector
    matches (render writes both), else the queue's name."""
    labels = cq.labels
    selected = {
        str(k): as_str(v)
        for k, v in as_dict(get(cq.data, "spec", "namespaceSelector", "matchLabels")).items()
    }
    for key in b.config.team_labels:
        if labels.get(key):
            return labels[key]
        if selected.get(key):
            return selected[key]
    return cq.name


def _uses(resource: dict[str, object]) -> bool:
    """A flavor's GPU quota entry that lets the queue run there: nominal or borrowing above zero."""
    return any((quantity(resource.get(k)) or 0) > 0 for k in ("nominalQuota", "borrowingLimit"))


def _gpu008_kueue(b: Bundle) -> Iterator[Finding]:
    """Kueue objects alone (render's output without its spec): a ResourceFlavor whose nodes are
    time-sliced (its nodeLabels carry a time-slicing label) that ClusterQueues of several teams
    hold GPU quota on."""
    sliced = {
        f.name: f
        for f in b.by_kind.get("ResourceFlavor", [])
        if any(as_str(get(f.data, "spec", "nodeLabels", key)) == value for key, value in TIME_SLICED_LABELS)
    }
    teams: dict[str, set[str]] = defaultdict(set)
    for cq in b.by_kind.get("ClusterQueue", []):
        for group in as_list(get(cq.data, "spec", "resourceGroups")):
            for flavor in as_list(get(group, "flavors")):
                name = as_str(get(flavor, "name"))
                if name in sliced and any(
                    isinstance(r, dict) and is_gpu_resource(as_str(r.get("name"))) and _uses(r)
                    for r in as_list(get(flavor, "resources"))
                ):
                    teams[name].add(_cq_team(b, cq))
    for name, who in sorted(teams.items()):
        if len(who) > 1:
            yield at(
                "GPU008",
                b,
                sliced[name],
                ("spec", "nodeLabels"),
                f"time-sliced flavor {name} gives GPU quota to ClusterQueues of teams {', '.join(sorted(who))}",
            )
