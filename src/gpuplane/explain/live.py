"""Read Kueue objects from a live cluster, read-only, through `gpuplane.kube`'s client.

Lists (never watches or writes) ResourceFlavors, ClusterQueues, Cohorts, LocalQueues,
Workloads and WorkloadPriorityClasses, Namespaces and PriorityClasses, and (best effort) Nodes,
LimitRanges and RuntimeClasses, Kueue Topologies (skipped quietly where not served) and, when the
cluster has a Topology, Pods (topology-aware scheduling counts non-TAS pods against each node), and
the default-priority policies gpuplane renders (MutatingAdmissionPolicies and bindings, Kyverno
ClusterPolicies: skipped quietly where not served).
Kueue kinds the cluster does not serve (404) are skipped with a
note, as are optional kinds it refuses; every other failure (unreachable, timeout, an answer that
is not JSON, 401/403/5xx on what admission depends on) is an UpstreamError, exit 3.
"""

from __future__ import annotations

from typing import Any

from gpuplane.explain.load import parse_objects
from gpuplane.kube.client import Client, connect
from gpuplane.kueue.parse import Parsed
from gpuplane.vocab import KUEUE_GROUP

CLUSTER_SCOPED = (
    ("resourceflavors", "ResourceFlavor"),
    ("clusterqueues", "ClusterQueue"),
    ("cohorts", "Cohort"),
    ("workloadpriorityclasses", "WorkloadPriorityClass"),
)
NAMESPACED = (("localqueues", "LocalQueue"), ("workloads", "Workload"))
#: Best effort: node fit (Nodes), requests of submitted jobs (LimitRanges, RuntimeClasses).
OPTIONAL = (
    ("Nodes", "/api/v1/nodes", "v1", "Node"),
    ("LimitRanges", "/api/v1/limitranges", "v1", "LimitRange"),
    ("RuntimeClasses", "/apis/node.k8s.io/v1/runtimeclasses", "node.k8s.io/v1", "RuntimeClass"),
)


def _items(resp: Any, api_version: str, kind: str) -> list[dict[str, Any]]:
    items = resp.get("items", []) if isinstance(resp, dict) else []
    out = []
    for item in items or []:
        if not isinstance(item, dict):
            continue
        item = dict(item)
        item.setdefault("apiVersion", api_version)
        item.setdefault("kind", kind)
        out.append(item)
    return out


def _list_kueue(api: Client, plural: str, kind: str, notes: list[str]) -> list[dict[str, Any]]:
    for version in ("v1beta2", "v1beta1", "v1alpha1"):
        # For namespaced kinds this lists across all namespaces (/apis/KUEUE_GROUP/VERSION/PLURAL).
        resp = api.get_list(f"/apis/{KUEUE_GROUP}/{version}/{plural}")
        if resp is not None:
            return _items(resp, f"{KUEUE_GROUP}/{version}", kind)
    notes.append(f"the cluster serves no {KUEUE_GROUP} {plural}; skipped")
    return []


def _optional(api: Client, notes: list[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for label, path, api_version, kind in OPTIONAL:
        status, resp = api.get(path)
        if resp is None:
            notes.append(f"cannot list {label}: {status}; skipped")
        else:
            out.extend(_items(resp, api_version, kind))
    return out


#: Kueue serves Topology as v1beta2 (v0.15+), v1beta1 and v1alpha1 (older releases): newest first.
TOPOLOGY_VERSIONS = ("v1beta2", "v1beta1", "v1alpha1")


def _topology(api: Client, notes: list[str]) -> list[dict[str, Any]]:
    """Best effort: the Topologies in the newest version served (none served: skipped quietly) and,
    when there is one, the Pods, whose requests on a node TAS subtracts unless they are TAS pods
    (Kueue v0.19.2 `pkg/cache/scheduler/tas_non_tas_pod_cache.go`)."""
    topologies: list[dict[str, Any]] = []
    for version in TOPOLOGY_VERSIONS:
        status, resp = api.get(f"/apis/{KUEUE_GROUP}/{version}/topologies")
        if resp is None:
            if status == 404:
                continue
            notes.append(f"cannot list {KUEUE_GROUP} topologies: {status}; skipped")
            return []
        topologies = _items(resp, f"{KUEUE_GROUP}/{version}", "Topology")
        break
    if not topologies:
        return []
    status, pods = api.get("/api/v1/pods")
    if pods is None:
        notes.append(
            f"cannot list Pods: {status}; skipped (topology-aware scheduling then counts no non-TAS pods)"
        )
        return topologies
    return topologies + _items(pods, "v1", "Pod")


# gpuplane's default-priority policies (render/default_priority.py): (group, versions newest first,
# plural, kind). Read best effort, so that a job file checked in live mode gets the team's priority
# the cluster would give it.
POLICIES = (
    (
        "admissionregistration.k8s.io",
        ("v1", "v1beta1", "v1alpha1"),
        "mutatingadmissionpolicies",
        "MutatingAdmissionPolicy",
    ),
    (
        "admissionregistration.k8s.io",
        ("v1", "v1beta1", "v1alpha1"),
        "mutatingadmissionpolicybindings",
        "MutatingAdmissionPolicyBinding",
    ),
    ("kyverno.io", ("v1",), "clusterpolicies", "ClusterPolicy"),
)


def _policies(api: Client, notes: list[str]) -> list[dict[str, Any]]:
    """Default-priority policies in the newest version the cluster serves; kinds it does not serve
    are skipped quietly (most clusters have none), kinds the user may not list with a note."""
    out: list[dict[str, Any]] = []
    for group, versions, plural, kind in POLICIES:
        for version in versions:
            status, resp = api.get(f"/apis/{group}/{version}/{plural}")
            if resp is None:
                if status == 404:
                    continue
                notes.append(f"cannot list {group} {plural}: {status}; skipped")
                break
            out.extend(_items(resp, f"{group}/{version}", kind))
            break
    return out


def read_cluster(kubeconfig: str, context: str | None = None, timeout: float | None = None) -> Parsed:
    """List the objects admission depends on and parse them (`timeout`: the overall deadline, s)."""
    api = connect(kubeconfig, context, timeout)
    notes: list[str] = []
    objects: list[dict[str, Any]] = []
    try:
        for plural, kind in (*CLUSTER_SCOPED, *NAMESPACED):
            objects.extend(_list_kueue(api, plural, kind, notes))
        objects.extend(_items(api.get_list("/api/v1/namespaces", allowed=()), "v1", "Namespace"))
        status, pcs = api.get("/apis/scheduling.k8s.io/v1/priorityclasses")
        if pcs is None:
            notes.append(f"cannot list PriorityClasses: {status}")
        objects.extend(_items(pcs, "scheduling.k8s.io/v1", "PriorityClass"))
        objects.extend(_optional(api, notes))
        objects.extend(_topology(api, notes))
        objects.extend(_policies(api, notes))
    finally:
        api.close()
    parsed = parse_objects(objects, source="<cluster>")
    parsed.notes[:0] = notes
    return parsed
