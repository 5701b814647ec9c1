"""What converting job objects into Workloads needs to know about the rest of the input.

LocalQueues (the namespace's `default` queue), priority classes, the Kueue Configuration
(`manageJobsWithoutQueueName`, `managedJobsNamespaceSelector`, `resources.transformations`,
`resources.excludeResourcePrefixes`), RuntimeClasses (pod overhead), LimitRanges (container
defaults), training runtimes, Namespaces and the Workloads already present.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuplane.kube.requests import BadField, Defaults, Transformation, quantity
from gpuplane.kueue.dra import DraContext
from gpuplane.kueue.objects import (
    LabelSelector,
    LocalQueue,
    Namespace,
    PriorityClass,
    SelectorRequirement,
    Workload,
)
from gpuplane.kueue.parse import DEFAULT_NAMESPACE, Parsed, label_selector
from gpuplane.vocab import ANNOTATION_DEFAULT_PRIORITY, NAMESPACE_NAME_LABEL
from gpuplane.workloads import as_dict, as_list, as_str, get

KUEUE_NAMESPACE = "kueue-system"
# apis/config/v1beta2/defaults.go: managedJobsNamespaceSelector defaults to every namespace but
# kube-system and Kueue's own.
DEFAULT_MANAGED_SELECTOR = LabelSelector(
    match_expressions=(SelectorRequirement(NAMESPACE_NAME_LABEL, "NotIn", ("kube-system", KUEUE_NAMESPACE)),)
)


def _m(x: object) -> Mapping[str, Any]:
    return x if isinstance(x, Mapping) else {}


@dataclass
class JobsConfig:
    """The parts of Kueue's Configuration that decide which jobs are managed and what they cost."""

    manage_without_queue_name: bool = False
    managed_namespaces: LabelSelector = DEFAULT_MANAGED_SELECTOR
    transformations: dict[str, Transformation] = field(default_factory=dict)
    excluded_prefixes: tuple[str, ...] = ()


def jobs_config(data: Mapping[str, Any]) -> JobsConfig:
    """Read a Kueue Configuration object (`vocab.KUEUE_CONFIG_GROUP`)."""
    cfg = JobsConfig(manage_without_queue_name=data.get("manageJobsWithoutQueueName") is True)
    selector = data.get("managedJobsNamespaceSelector")
    if isinstance(selector, Mapping):
        cfg.managed_namespaces = label_selector(selector) or DEFAULT_MANAGED_SELECTOR
    resources = _m(data.get("resources"))
    cfg.excluded_prefixes = tuple(str(p) for p in as_list(resources.get("excludeResourcePrefixes")))
    for i, t in enumerate(as_list(resources.get("transformations"))):
        t = _m(t)
        path = ("resources", "transformations", i, "outputs")
        outputs = tuple((str(k), quantity(v, (*path, str(k)))) for k, v in _m(t.get("outputs")).items())
        cfg.transformations[str(t.get("input"))] = Transformation(
            str(t.get("input")),
            outputs,
            str(t.get("strategy") or "Retain") == "Retain",
            str(t.get("multiplyBy") or ""),
        )
    return cfg


DefaultPriority = tuple[str, LabelSelector, frozenset[tuple[str, str]], str]


def default_priority_policies(
    objects: Mapping[tuple[str, str, str], Mapping[str, Any]],
) -> list[DefaultPriority]:
    """(class, namespace selector, (group, resource plural or Kind) pairs, name) of every
    default-priority policy in the input: a MutatingAdmissionPolicy counts only with a binding
    that names it. The CEL of other policies is not evaluated."""
    out: list[DefaultPriority] = []
    bound = {
        as_str(get(o, "spec", "policyName"))
        for (k, _, _), o in objects.items()
        if k == "MutatingAdmissionPolicyBinding"
    }
    for (kind, _, name), data in sorted(objects.items()):
        cls = as_str(get(data, "metadata", "annotations", ANNOTATION_DEFAULT_PRIORITY))
        if not cls:
            continue
        if kind == "MutatingAdmissionPolicy" and name in bound:
            match = _m(get(data, "spec", "matchConstraints"))
            pairs = {
                (as_str(g), as_str(r))
                for rule in as_list(match.get("resourceRules"))
                for g in as_list(_m(rule).get("apiGroups"))
                for r in as_list(_m(rule).get("resources"))
            }
            selector = label_selector(_m(match.get("namespaceSelector"))) or LabelSelector()
            out.append((cls, selector, frozenset(pairs), f"MutatingAdmissionPolicy {name}"))
        elif kind == "ClusterPolicy":
            for rule in as_list(get(data, "spec", "rules")):
                for flt in as_list(get(rule, "match", "any")):
                    res = _m(_m(flt).get("resources"))
                    pairs = set()
                    for text in as_list(res.get("kinds")):
                        parts = as_str(text).split("/")
                        pairs.add((parts[0] if len(parts) == 3 else "", parts[-1]))
                    selector = label_selector(_m(res.get("namespaceSelector"))) or LabelSelector()
                    out.append((cls, selector, frozenset(pairs), f"Kyverno ClusterPolicy {name}"))
    return out


class JobContext:
    """Indexes of the input used while turning job objects into Workloads."""

    def __init__(self, parsed: Parsed) -> None:
        self.local_queues: set[tuple[str, str]] = set()
        self.classes: dict[tuple[str, str], PriorityClass] = {}
        self.namespaces: dict[str, Namespace] = {}
        self.workloads: dict[str, Workload] = {}
        self.objects: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.config = JobsConfig()
        self.problems: list[str] = []
        self.limit_ranges: dict[str, list[dict[str, Any]]] = {}
        # Templates without a namespace are taken to be in `default`, like the jobs that use them.
        self.dra = DraContext(
            {(ns or DEFAULT_NAMESPACE, name): t for (ns, name), t in parsed.dra.templates.items()},
            dict(parsed.dra.mappings),
        )
        self._defaults: dict[str, Defaults | None] = {}
        self._policies: list[DefaultPriority] | None = None
        for obj in parsed.objects:
            self._index(obj)
        for raw in parsed.k8s:
            data = dict(raw.data)
            kind, meta = as_str(data.get("kind")), as_dict(data.get("metadata"))
            if kind == "Configuration":
                try:
                    self.config = jobs_config(data)
                except BadField as bad:
                    self.problems.append(f"{raw.source}: {'.'.join(map(str, bad.path))}: {bad.message}")
                continue
            ns = as_str(meta.get("namespace"))
            self.objects[(kind, ns, as_str(meta.get("name")))] = data
            if kind == "LimitRange":
                self.limit_ranges.setdefault(ns or DEFAULT_NAMESPACE, []).append(data)

    def _index(self, obj: object) -> None:
        if isinstance(obj, LocalQueue):
            self.local_queues.add((obj.namespace, obj.name))
        elif isinstance(obj, PriorityClass):
            self.classes[(obj.kind, obj.name)] = obj
        elif isinstance(obj, Namespace):
            self.namespaces[obj.name] = obj
        elif isinstance(obj, Workload):
            self.workloads[obj.key] = obj

    # -- Lookup protocol (gpuplane.workloads) ------------------------------------------------
    def find(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        """An object of the input by kind, namespace ('' for cluster-scoped) and name."""
        found = self.objects.get((kind, namespace, name))
        if found is None and namespace == DEFAULT_NAMESPACE:
            found = self.objects.get((kind, "", name))
        return found

    # -- default priority policies (issue 21) ----------------------------------------------
    def default_priority(self, namespace: str, group: str, kind: str) -> tuple[str, str] | None:
        """(class, which policy) when a default-priority policy gpuplane renders (a
        MutatingAdmissionPolicy with its binding, or a Kyverno ClusterPolicy, carrying
        `ANNOTATION_DEFAULT_PRIORITY`) labels a job of this kind created in this namespace."""
        labels = self.namespace_labels(namespace)
        if self._policies is None:  # read once: the input does not change while jobs convert
            self._policies = default_priority_policies(self.objects)
        for cls, selector, kinds, source in self._policies:
            if selector.matches(labels) and ((group, kind.lower() + "s") in kinds or (group, kind) in kinds):
                return cls, source
        return None

    # -- what the conversion asks ----------------------------------------------------------
    def namespace_labels(self, namespace: str) -> dict[str, str]:
        """A namespace's labels; one missing from the input has only its automatic name label."""
        ns = self.namespaces.get(namespace)
        labels = dict(ns.labels) if ns is not None else {}
        labels.setdefault(NAMESPACE_NAME_LABEL, namespace)
        return labels

    def has_local_queue(self, namespace: str, name: str) -> bool:
        """Whether the input has the LocalQueue `name` in `namespace`."""
        return (namespace, name) in self.local_queues

    def overhead(self, pod_spec: Mapping[str, Any]) -> dict[str, int] | None:
        """The pod overhead of the RuntimeClass the pod names (when the input has it)."""
        name = as_str(pod_spec.get("runtimeClassName"))
        rc = self.objects.get(("RuntimeClass", "", name)) if name else None
        fixed = _m(get(rc, "overhead", "podFixed")) if rc else {}
        return {str(k): quantity(v, ("overhead", "podFixed", str(k))) for k, v in fixed.items()} or None

    def container_defaults(self, namespace: str) -> Defaults | None:
        """(defaultRequest, default) of the namespace's LimitRanges for containers, as Kueue's
        handlePodLimitRange merges them into each container (None when the namespace has none)."""
        if namespace not in self._defaults:
            self._defaults[namespace] = self._limit_range_defaults(namespace)
        return self._defaults[namespace]

    def _limit_range_defaults(self, namespace: str) -> Defaults | None:
        requests: dict[str, int] = {}
        limits: dict[str, int] = {}
        for data in self.limit_ranges.get(namespace, []):
            for item in as_list(get(data, "spec", "limits")):
                if as_str(get(item, "type")) != "Container":
                    continue
                for section, into in (("defaultRequest", requests), ("default", limits)):
                    for k, v in as_dict(get(item, section)).items():
                        into.setdefault(str(k), quantity(v, ("spec", "limits", section, str(k))))
        return (requests, limits) if requests or limits else None
