"""The registry of workload kinds: one entry per kind says where its pods are and how Kueue sees it.

A `WorkloadKind` names the kind, the API groups that serve it, what class of work it is, how to
find its pod templates (used by audit) and, when Kueue has an integration for it, a
`KueueIntegration`: how Kueue's jobframework turns the object into Workloads (used by explain).
Contributors add a kind by calling `register` in one of the kind modules; `gpuplane.workloads`
imports them all.

Lookup is by (API group, kind). Kinds whose name other API groups reuse for unrelated objects
(`Job`, `Deployment`, `Pod`, `Service`...) match only their own group; for the others (`RayJob`,
`PyTorchJob`...) an object from another group or version of the same name is read the same way.
An object of a kind nobody registered is searched for nested pod templates (`generic`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from gpuplane.registry import Registry
from gpuplane.workloads.fields import api_group, as_dict, as_str
from gpuplane.workloads.model import PodTemplate, WorkloadSpec, is_gpu_resource
from gpuplane.workloads.templates import generic

BATCH, TRAINING, SERVING, POD, NODE_AGENT = "batch", "training", "serving", "pod", "node-agent"
CATEGORIES = (BATCH, TRAINING, SERVING, POD, NODE_AGENT)


class Lookup(Protocol):
    """What a kind may need from the rest of the input to build its Workloads."""

    def find(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        """An object of the input by kind, namespace ('' for cluster-scoped) and name."""
        ...


@dataclass(frozen=True)
class KueueIntegration:
    """How Kueue's integration for a kind builds Workloads (`source`: the Kueue file it follows).

    `workloads` returns the Workloads Kueue would create (usually one), or raises `NotModelled`.
    `suspended`/`finished`/`active` mirror the integration's IsSuspended, Finished and IsActive.
    `deadline` is the run-time limit the object itself declares, in seconds (e.g. a Job's
    `activeDeadlineSeconds`), used by `explain --eta`.
    """

    source: str
    workloads: Callable[[dict[str, Any], Lookup], list[WorkloadSpec]]
    suspended: Callable[[dict[str, Any]], bool]
    finished: Callable[[dict[str, Any]], bool]
    active: Callable[[dict[str, Any]], bool] = lambda data: False
    deadline: Callable[[dict[str, Any]], float | None] = lambda data: None


class NotModelled(Exception):
    """The object is of a known kind but gpuplane cannot build its Workload (e.g. a missing runtime)."""


@dataclass(frozen=True)
class WorkloadKind:
    """One workload kind: its API groups, class of work, pod templates and Kueue integration."""

    kind: str
    groups: tuple[str, ...]
    category: str
    templates: Callable[[dict[str, Any]], list[PodTemplate]]
    kueue: KueueIntegration | None = None
    group_sensitive: bool = False

    @property
    def group(self) -> str:
        """The kind's own API group (the first listed); Kueue hashes Workload names with it."""
        return self.groups[0]


_BY_GROUP: Registry[WorkloadKind] = Registry("workload kind")  # by "Kind.group" ("Job.batch")
_BY_KIND: Registry[WorkloadKind] = Registry("workload kind")  # by Kind, for kinds not group-sensitive
_FALLBACKS: list[tuple[Callable[[dict[str, Any]], bool], Callable[[dict[str, Any]], list[PodTemplate]]]] = []


def register(kind: WorkloadKind) -> WorkloadKind:
    """Add a kind to the registry; a (kind, group) or a kind name registered twice is refused."""
    for group in kind.groups:
        _BY_GROUP.add(f"{kind.kind}.{group}", kind)
    if not kind.group_sensitive:
        _BY_KIND.add(kind.kind, kind)
    return kind


def register_fallback(
    matches: Callable[[dict[str, Any]], bool], templates: Callable[[dict[str, Any]], list[PodTemplate]]
) -> None:
    """A template reader for unregistered kinds of a recognisable shape (e.g. any `*ReplicaSpecs` job)."""
    _FALLBACKS.append((matches, templates))


def lookup(data: dict[str, Any]) -> WorkloadKind | None:
    """The registered kind of an object, or None."""
    kind = as_str(data.get("kind"))
    found = _BY_GROUP.find(f"{kind}.{api_group(data)}")
    return found if found is not None else _BY_KIND.find(kind)


def kinds() -> list[WorkloadKind]:
    """Every registered kind, once, by kind name."""
    seen = {id(k): k for k in _BY_GROUP.values()} | {id(k): k for k in _BY_KIND.values()}
    return sorted(seen.values(), key=lambda k: (k.kind, k.group))


def kind_names(*categories: str) -> frozenset[str]:
    """Names of the registered kinds in the given categories (all when none given)."""
    return frozenset(k.kind for k in kinds() if not categories or k.category in categories)


NON_WORKLOAD_KINDS = frozenset(
    {
        "Namespace",
        "Node",
        "ResourceQuota",
        "LimitRange",
        "NetworkPolicy",
        "Role",
        "ClusterRole",
        "RoleBinding",
        "ClusterRoleBinding",
        "ConfigMap",
        "Secret",
        "Service",
        "ServiceAccount",
        "PriorityClass",
        "ClusterPolicy",
        "LocalQueue",
        "ClusterQueue",
        "ResourceFlavor",
        "WorkloadPriorityClass",
        "CustomResourceDefinition",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "StorageClass",
        "Ingress",
        "PodDisruptionBudget",
        "HorizontalPodAutoscaler",
        "Platform",
        "ClusterConfig",
        "Endpoints",
        "EndpointSlice",
        "Event",
        "Lease",
        "DeviceClass",
        "ResourceClaim",
        "ResourceClaimTemplate",
        "ResourceSlice",
        "Configuration",
        "LLMInferenceServiceConfig",
    }
)
"""Kinds that never hold pods (no generic template search for them)."""


def pod_templates(data: dict[str, Any]) -> list[PodTemplate]:
    """Every pod template of a workload object (empty for non-workloads)."""
    kind = lookup(data)
    if kind is not None:
        return kind.templates(data)
    name = as_str(data.get("kind"))
    if name in NON_WORKLOAD_KINDS or not name:
        return []
    for matches, templates in _FALLBACKS:
        if matches(data):
            return templates(data)
    return list(generic(data, data.get("spec"), ("spec",)))


def _gpu_keys(node: Any, depth: int = 0) -> Iterator[str]:
    """GPU resource names used as keys anywhere in `node` (bounded depth)."""
    if depth > 12:
        return
    if isinstance(node, dict):
        for key, child in node.items():
            if isinstance(key, str) and is_gpu_resource(key):
                yield key
            yield from _gpu_keys(child, depth + 1)
    elif isinstance(node, list):
        for item in node[:256]:
            yield from _gpu_keys(item, depth + 1)


def not_understood(data: dict[str, Any]) -> list[str]:
    """GPU resources an object asks for in a shape no reader understands (empty when understood).

    An unknown kind whose pods could not be found (no registered reader, no nested pod template)
    but which names GPU resources somewhere (e.g. KServe's LLMInferenceService, whose inline
    `template` is a bare pod spec) is not silently skipped: callers report it.
    """
    name = as_str(data.get("kind"))
    if name in NON_WORKLOAD_KINDS or pod_templates(data):
        return []
    return sorted(set(_gpu_keys(as_dict(data.get("spec")))))
