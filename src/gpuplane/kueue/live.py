"""Read Kueue objects from a live cluster, read-only, with the official Kubernetes client.

Lists (never watches or writes) ResourceFlavors, ClusterQueues, Cohorts, LocalQueues,
Workloads and WorkloadPriorityClasses via CustomObjectsApi, Namespaces and PriorityClasses via
the core/scheduling APIs, and (best effort) Nodes, LimitRanges, RuntimeClasses and the
default-priority policies gpuplane renders (MutatingAdmissionPolicies, Kyverno ClusterPolicies).
Kinds the cluster does not serve (404) or the user may not list (403) are skipped with a note (the
policies, which most clusters do not serve, are skipped quietly when not served).
"""

from __future__ import annotations

from typing import Any

from gpuplane.errors import InputError
from gpuplane.kueue.parse import Parsed, parse_objects
from gpuplane.vocab import KUEUE_GROUP

CLUSTER_SCOPED = (
    ("resourceflavors", "ResourceFlavor"),
    ("clusterqueues", "ClusterQueue"),
    ("cohorts", "Cohort"),
    ("workloadpriorityclasses", "WorkloadPriorityClass"),
)
NAMESPACED = (("localqueues", "LocalQueue"), ("workloads", "Workload"))


def _items(resp: Any, api_version: str, kind: str) -> list[dict[str, Any]]:
    items = resp.get("items", []) if isinstance(resp, dict) else []
    out = []
    for item in items:
        item = dict(item)
        item.setdefault("apiVersion", api_version)
        item.setdefault("kind", kind)
        out.append(item)
    return out


def _list_kueue(api: Any, plural: str, kind: str, notes: list[str]) -> list[dict[str, Any]]:
    from kubernetes.client.exceptions import ApiException

    for version in ("v1beta2", "v1beta1", "v1alpha1"):
        try:
            # For namespaced kinds this lists across all namespaces (/apis/KUEUE_GROUP/VERSION/PLURAL).
            resp = api.list_cluster_custom_object(KUEUE_GROUP, version, plural)
        except ApiException as exc:
            if exc.status == 404:
                continue
            raise
        return _items(resp, f"{KUEUE_GROUP}/{version}", kind)
    notes.append(f"the cluster serves no {KUEUE_GROUP} {plural}; skipped")
    return []


def _optional(api_client: Any, notes: list[str]) -> list[dict[str, Any]]:
    """Nodes (node fit), LimitRanges and RuntimeClasses (requests of submitted jobs): best effort."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    core = client.CoreV1Api(api_client)
    calls = (
        ("Nodes", "v1", "Node", core.list_node),
        ("LimitRanges", "v1", "LimitRange", core.list_limit_range_for_all_namespaces),
        ("RuntimeClasses", "node.k8s.io/v1", "RuntimeClass", client.NodeV1Api(api_client).list_runtime_class),
    )
    out: list[dict[str, Any]] = []
    for label, api_version, kind, call in calls:
        try:
            out.extend(_items(api_client.sanitize_for_serialization(call()), api_version, kind))
        except ApiException as exc:
            notes.append(f"cannot list {label}: {exc.status}; skipped")
    return out


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


def _policies(api_client: Any, notes: list[str]) -> list[dict[str, Any]]:
    """Default-priority policies (MutatingAdmissionPolicies and bindings, Kyverno ClusterPolicies)
    in the newest version the cluster serves; kinds it does not serve are skipped quietly (most
    clusters have none), kinds the user may not list with a note."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    custom = client.CustomObjectsApi(api_client)
    out: list[dict[str, Any]] = []
    for group, versions, plural, kind in POLICIES:
        for version in versions:
            try:
                resp = custom.list_cluster_custom_object(group, version, plural)
            except ApiException as exc:
                if exc.status == 404:
                    continue
                notes.append(f"cannot list {group} {plural}: {exc.status}; skipped")
                break
            out.extend(_items(resp, f"{group}/{version}", kind))
            break
    return out


def read_cluster(kubeconfig: str, context: str | None = None) -> Parsed:
    """List the objects admission depends on and parse them; connection errors exit 2."""
    from kubernetes import client, config
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    try:
        api_client = config.new_client_from_config(  # type: ignore[no-untyped-call]
            config_file=kubeconfig, context=context
        )
    except Exception as exc:  # the client raises several unrelated types for bad kubeconfigs
        raise InputError.single(kubeconfig, f"cannot load kubeconfig: {exc}") from exc
    notes: list[str] = []
    objects: list[dict[str, Any]] = []
    try:
        custom = client.CustomObjectsApi(api_client)
        for plural, kind in (*CLUSTER_SCOPED, *NAMESPACED):
            objects.extend(_list_kueue(custom, plural, kind, notes))
        core = client.CoreV1Api(api_client)
        namespaces = api_client.sanitize_for_serialization(core.list_namespace())
        objects.extend(_items(namespaces, "v1", "Namespace"))
        try:
            sched = client.SchedulingV1Api(api_client)
            pcs = api_client.sanitize_for_serialization(sched.list_priority_class())
            objects.extend(_items(pcs, "scheduling.k8s.io/v1", "PriorityClass"))
        except ApiException as exc:
            notes.append(f"cannot list PriorityClasses: {exc.status}")
        objects.extend(_optional(api_client, notes))
        objects.extend(_policies(api_client, notes))
    except (ApiException, HTTPError, OSError) as exc:
        raise InputError.single(kubeconfig, f"cannot read from the cluster: {exc}") from exc
    finally:
        api_client.close()
    parsed = parse_objects(objects, source="<cluster>")
    parsed.notes[:0] = notes
    return parsed
