"""Turn Kubernetes objects (dicts from YAML or the API) into `gpuplane.kueue` records.

Reads Kueue's v1beta1 and v1beta2 objects (`vocab.KUEUE_GROUP`; v1alpha1 Cohorts), `kind: List`,
Namespaces, PriorityClasses and the Kueue `Configuration` (also inside its ConfigMap). Unknown
kinds are skipped with a note. A bad quantity in a Workload becomes that workload's `problem`; a bad
quantity in a queue definition is an `InputError` pointing at file and line.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuplane.errors import InputError, Problem
from gpuplane.kube.requests import BadField as _Bad
from gpuplane.kube.requests import integer as _int
from gpuplane.kube.requests import pod_requests
from gpuplane.kube.requests import quantity as _q
from gpuplane.kube.runtime import runtime_hint
from gpuplane.kueue.dra import DraContext
from gpuplane.kueue.objects import (
    Admission,
    ClusterQueue,
    Cohort,
    FairSharingConfig,
    FlavorFungibility,
    FlavorQuotas,
    LabelSelector,
    LocalQueue,
    Namespace,
    PodSet,
    PodSetAssignment,
    PreemptionPolicy,
    PriorityClass,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    SelectorRequirement,
    Taint,
    Toleration,
    Workload,
)
from gpuplane.kueue.tas.model import Topology, read_assignment, topology_request
from gpuplane.limits import limits
from gpuplane.vocab import DRA_GROUP, KUEUE_CONFIG_GROUP, KUEUE_GROUP
from gpuplane.yamlio import Document, load_one, locate

DEFAULT_NAMESPACE = "default"
# Kinds explain reads besides Kueue's own: the inputs of job -> Workload conversion (see
# `jobframework`) and of the node-fit check. Workload kinds are recognised by gpuplane.workloads.
AUXILIARY_KINDS = frozenset(
    {
        "Node",
        "RuntimeClass",
        "LimitRange",
        "TrainingRuntime",
        "ClusterTrainingRuntime",
        "ResourceClaimTemplate",
        # gpuplane's default-priority policies (render/default_priority.py), read by jobcontext.py
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
        "ClusterPolicy",  # Kyverno's only (KYVERNO_GROUP): NVIDIA's GPU Operator has one too
    }
)
KYVERNO_GROUP = "kyverno.io/"


@dataclass
class RawObject:
    """A non-Kueue object kept for later readers (job objects, Nodes...), with its source."""

    data: Mapping[str, Any]
    source: str


@dataclass
class Parsed:
    """Parsed objects, notes about what was skipped, and the other objects explain reads."""

    objects: list[object] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    k8s: list[RawObject] = field(default_factory=list)
    dra: DraContext = field(default_factory=DraContext)
    """ResourceClaimTemplates and deviceClassMappings seen (job objects' claims are charged later)."""

    def extend(self, other: Parsed) -> None:
        """Add what another read found (files after a live cluster)."""
        self.objects.extend(other.objects)
        self.notes.extend(other.notes)
        self.k8s.extend(other.k8s)
        self.dra.templates.update(other.dra.templates)
        for device_class, name in other.dra.mappings.items():
            self.dra.mappings.setdefault(device_class, name)


def parse_time(value: object) -> float:
    """RFC 3339 timestamp to seconds since the epoch; missing means the zero time (oldest)."""
    if not value:
        return 0.0
    text = str(value).replace("Z", "+00:00")
    try:
        return dt.datetime.fromisoformat(text).timestamp()
    except ValueError:
        return 0.0


def _m(data: object) -> Mapping[str, Any]:
    return data if isinstance(data, Mapping) else {}


def _l(data: object) -> list[Any]:
    return list(data) if isinstance(data, list) else []


def _name_ref(spec: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    """A reference to another object by name (cohort, parent): a string, or absent."""
    for key in keys:
        value = spec.get(key)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise _Bad(("spec", key), f"expected a name (string), got {type(value).__name__}")
        return value
    return None


def _embedded(text: str, path: tuple[str | int, ...]) -> Any:
    """A YAML document inside a string field (the Kueue Configuration in its ConfigMap)."""
    try:
        return load_one(text, "<embedded>", strict_keys=False)
    except InputError as exc:
        raise _Bad(path, f"the embedded YAML does not load: {exc.problems[0]}") from None


def _tolerations(items: object) -> tuple[Toleration, ...]:
    return tuple(
        Toleration(
            key=str(t.get("key", "")),
            operator=str(t.get("operator", "Equal")),
            value=str(t.get("value", "")),
            effect=str(t.get("effect", "")),
        )
        for t in _l(items)
        if isinstance(t, Mapping)
    )


def _requirements(items: object) -> tuple[SelectorRequirement, ...]:
    return tuple(
        SelectorRequirement(
            str(r.get("key", "")), str(r.get("operator", "")), tuple(str(v) for v in _l(r.get("values")))
        )
        for r in _l(items)
        if isinstance(r, Mapping)
    )


def label_selector(data: object) -> LabelSelector | None:
    """A metav1.LabelSelector; None (matches nothing) when absent."""
    return _label_selector(data)


def _label_selector(data: object) -> LabelSelector | None:
    if data is None:
        return None
    d = _m(data)
    labels = tuple(sorted((str(k), str(v)) for k, v in _m(d.get("matchLabels")).items()))
    return LabelSelector(labels, _requirements(d.get("matchExpressions")))


def _groups(spec: Mapping[str, Any], base: tuple[str | int, ...]) -> tuple[ResourceGroup, ...]:
    groups = []
    for gi, g in enumerate(_l(spec.get("resourceGroups"))):
        flavors = []
        for fi, f in enumerate(_l(_m(g).get("flavors"))):
            resources = []
            for ri, r in enumerate(_l(_m(f).get("resources"))):
                r = _m(r)
                path = (*base, "resourceGroups", gi, "flavors", fi, "resources", ri)
                bl = r.get("borrowingLimit")
                ll = r.get("lendingLimit")
                resources.append(
                    ResourceQuota(
                        str(r.get("name")),
                        _q(r.get("nominalQuota", 0), (*path, "nominalQuota")),
                        None if bl is None else _q(bl, (*path, "borrowingLimit")),
                        None if ll is None else _q(ll, (*path, "lendingLimit")),
                    )
                )
            flavors.append(FlavorQuotas(str(_m(f).get("name")), tuple(resources)))
        covered = tuple(str(c) for c in _l(_m(g).get("coveredResources")))
        groups.append(ResourceGroup(covered, tuple(flavors)))
    return tuple(groups)


def _weight(spec: Mapping[str, Any], base: tuple[str | int, ...]) -> float:
    fs = _m(spec.get("fairSharing"))
    if "weight" not in fs:
        return 1.0
    return _q(fs["weight"], (*base, "fairSharing", "weight")) / 1000


_FUNGIBILITY = {"Borrow": "MayStopSearch", "Preempt": "MayStopSearch"}


def _cluster_queue(name: str, spec: Mapping[str, Any]) -> ClusterQueue:
    base = ("spec",)
    pre = _m(spec.get("preemption"))
    # Absent `preemption` means Never/Never (Kueue's cache default); a field missing inside a
    # given `preemption` stays "" as in Kueue's unit tests (the API server would default it).
    unset = "" if "preemption" in spec else "Never"
    bwc = _m(pre.get("borrowWithinCohort"))
    fung = _m(spec.get("flavorFungibility"))
    threshold = bwc.get("maxPriorityThreshold")
    preference = fung.get("preference")
    if preference is not None and not isinstance(preference, str):  # (a record field is a str)
        path = ("spec", "flavorFungibility", "preference")
        raise _Bad(path, f"expected a string, got {type(preference).__name__}")
    return ClusterQueue(
        name=name,
        cohort=_name_ref(spec, ("cohortName", "cohort")),
        resource_groups=_groups(spec, base),
        namespace_selector=_label_selector(spec.get("namespaceSelector")),
        queueing_strategy=str(spec.get("queueingStrategy") or "BestEffortFIFO"),
        preemption=PreemptionPolicy(
            within_cluster_queue=str(pre.get("withinClusterQueue") or unset),
            reclaim_within_cohort=str(pre.get("reclaimWithinCohort") or unset),
            borrow_within_cohort=str(bwc.get("policy") or "Never"),
            max_priority_threshold=None
            if threshold is None
            else _int(threshold, ("spec", "preemption", "borrowWithinCohort", "maxPriorityThreshold")),
        ),
        flavor_fungibility=FlavorFungibility(
            when_can_borrow=_FUNGIBILITY.get(
                str(fung.get("whenCanBorrow")), str(fung.get("whenCanBorrow") or "MayStopSearch")
            ),
            when_can_preempt=_FUNGIBILITY.get(
                str(fung.get("whenCanPreempt")), str(fung.get("whenCanPreempt") or "TryNextFlavor")
            ),
            preference=preference,
        ),
        fair_weight=_weight(spec, base),
        stop_policy=str(spec.get("stopPolicy") or "None"),
    )


def _affinity(pod_spec: Mapping[str, Any]) -> tuple[tuple[SelectorRequirement, ...], ...] | None:
    req = _m(
        _m(_m(pod_spec.get("affinity")).get("nodeAffinity")).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
    )
    terms = _l(req.get("nodeSelectorTerms"))
    if not terms:
        return None
    return tuple(_requirements(_m(t).get("matchExpressions")) for t in terms)


def pod_set(
    name: str, count: int, min_count: int | None, pod_spec: Mapping[str, Any], per_pod: dict[str, int]
) -> PodSet:
    """A PodSet record from a pod spec (selectors, tolerations, affinity) and its per-pod requests."""
    podset = PodSet(
        name=name,
        count=count,
        requests={},
        min_count=min_count,
        node_selector={str(k): str(v) for k, v in _m(pod_spec.get("nodeSelector")).items()},
        tolerations=_tolerations(pod_spec.get("tolerations")),
        affinity_terms=_affinity(pod_spec),
    )
    podset.per_pod = per_pod
    return podset


def _pod_set(ps: Mapping[str, Any], i: int) -> PodSet:
    path: tuple[str | int, ...] = ("spec", "podSets", i)
    pod_spec = _m(_m(ps.get("template")).get("spec"))
    per_pod = pod_requests(pod_spec, (*path, "template", "spec"))
    min_count = ps.get("minCount")
    pods = limits().pods_per_workload
    out = pod_set(
        str(ps.get("name", "main")),
        _int(ps.get("count", 1), (*path, "count"), 0, pods),
        None if min_count is None else _int(min_count, (*path, "minCount"), 0, pods),
        pod_spec,
        per_pod,
    )
    meta = _m(_m(ps.get("template")).get("metadata"))
    out.topology = topology_request(ps.get("topologyRequest"), meta.get("annotations"))
    return out


def _condition(status: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    for c in _l(status.get("conditions")):
        if _m(c).get("type") == kind and str(_m(c).get("status")) == "True":
            return _m(c)
    return None


def _admission(status: Mapping[str, Any], pod_sets: list[PodSet]) -> Admission | None:
    adm = _m(status.get("admission"))
    if not adm.get("clusterQueue"):
        return None
    psas = []
    by_name = {p.name: p for p in pod_sets}
    for i, a in enumerate(_l(adm.get("podSetAssignments"))):
        a = _m(a)
        name = str(a.get("name", "main"))
        ps = by_name.get(name)
        count = _int(
            a.get("count", ps.count if ps else 1),
            ("status", "admission", "podSetAssignments", i, "count"),
            0,
            limits().pods_per_workload,
        )
        usage_raw = _m(a.get("resourceUsage"))
        path = ("status", "admission", "podSetAssignments", i, "resourceUsage")
        usage = {str(k): _q(v, (*path, str(k))) for k, v in usage_raw.items()}
        if not usage and ps is not None:
            usage = {r: q * count for r, q in ps.per_pod.items()}
        flavors = {str(k): str(v) for k, v in _m(a.get("flavors")).items()}
        psas.append(
            PodSetAssignment(name, flavors, usage, count, read_assignment(a.get("topologyAssignment")))
        )
    return Admission(str(adm["clusterQueue"]), psas)


def _workload(
    meta: Mapping[str, Any], spec: Mapping[str, Any], status: Mapping[str, Any], source: str
) -> Workload:
    ns = str(meta.get("namespace") or DEFAULT_NAMESPACE)
    wl = Workload(
        namespace=ns,
        name=str(meta.get("name")),
        queue_name=str(spec.get("queueName") or ""),
        priority=_int(spec.get("priority") or 0, ("spec", "priority")),
        creation_time=parse_time(meta.get("creationTimestamp")),
        uid=str(meta.get("uid") or ""),
        active=spec.get("active", True) is not False,
        source=source,
        owners=tuple(
            (str(_m(o).get("kind", "")), str(_m(o).get("name", "")), str(_m(o).get("uid", "")))
            for o in _l(meta.get("ownerReferences"))
        ),
    )
    try:
        wl.pod_sets = [_pod_set(_m(ps), i) for i, ps in enumerate(_l(spec.get("podSets")))]
        wl.admission = _admission(status, wl.pod_sets)
    except _Bad as bad:
        wl.problem = f"Misconfigured: {'.'.join(str(p) for p in bad.path)}: {bad.message} ({source})"
        wl.admission = None
        return wl
    if not wl.queue_name and wl.admission is None:
        wl.problem = "the Workload has no spec.queueName"
    wl.runtime_hint = runtime_hint(meta, spec)
    reserved = _condition(status, "QuotaReserved")
    if wl.admission is not None and reserved is not None and reserved.get("lastTransitionTime"):
        wl.quota_reserved_time = parse_time(reserved.get("lastTransitionTime"))
    wl.evicted = wl.admission is not None and _condition(status, "Evicted") is not None
    return wl


@dataclass
class _Ctx:
    out: Parsed
    classes: dict[tuple[str, str], PriorityClass] = field(default_factory=dict)
    wanted_class: dict[int, tuple[str, str]] = field(default_factory=dict)
    # DRA: templates and mappings seen anywhere in the input, and the Workloads' pods that claim.
    dra: DraContext = field(default_factory=DraContext)
    # Objects kept for a reader above this package (explain's job framework): see `parse_documents`.
    keep: Callable[[Mapping[str, Any]], bool] | None = None


def _workload_object(obj: Mapping[str, Any], source: str, ctx: _Ctx) -> None:
    """A Workload object: skipped when finished, else parsed with its priority class wanted."""
    meta, spec, out = _m(obj.get("metadata")), _m(obj.get("spec")), ctx.out
    name = str(meta.get("name", ""))
    if _condition(_m(obj.get("status")), "Finished") is not None:
        out.notes.append(f"{source}: skipped finished Workload {meta.get('namespace')}/{name}")
        return
    if not meta.get("namespace"):
        out.notes.append(
            f"{source}: Workload {name} has no metadata.namespace; taken to be in namespace {DEFAULT_NAMESPACE}"
        )
    wl = _workload(meta, spec, _m(obj.get("status")), source)
    ctx.dra.note_claims(wl, spec)
    ref_obj = _m(spec.get("priorityClassRef"))
    ref = ref_obj.get("name") or spec.get("priorityClassName")
    source_kind = str(ref_obj.get("kind") or spec.get("priorityClassSource") or "")
    pc_kind = (
        "PriorityClass"
        if source_kind in ("PriorityClass", "scheduling.k8s.io/priorityclass")
        else "WorkloadPriorityClass"
    )
    if spec.get("priority") is None and ref:
        ctx.wanted_class[id(wl)] = (pc_kind, str(ref))
    out.objects.append(wl)


def _object(obj: Mapping[str, Any], source: str, ctx: _Ctx) -> None:
    kind = str(obj.get("kind", ""))
    api = str(obj.get("apiVersion", ""))
    meta, spec = _m(obj.get("metadata")), _m(obj.get("spec"))
    name = str(meta.get("name", ""))
    out = ctx.out
    if kind == "List" or (kind.endswith("List") and "items" in obj):
        for item in _l(obj.get("items")):
            if isinstance(item, Mapping):
                _object(item, source, ctx)
        return
    if kind == "Namespace" and api == "v1":
        out.objects.append(Namespace(name, {str(k): str(v) for k, v in _m(meta.get("labels")).items()}))
    elif kind == "PriorityClass" and api.startswith("scheduling.k8s.io"):
        ctx.classes[("PriorityClass", name)] = PriorityClass(
            name, _int(obj.get("value", 0), ("value",)), kind, obj.get("globalDefault") is True
        )
    elif kind == "ConfigMap":
        for key, text in _m(obj.get("data")).items():
            if isinstance(text, str) and KUEUE_CONFIG_GROUP in text:
                _object(_m(_embedded(text, ("data", str(key)))), source, ctx)
    elif kind == "ResourceClaimTemplate" and api.startswith(DRA_GROUP + "/"):
        ctx.dra.add_template(str(meta.get("namespace") or ""), name, spec)
    elif kind == "Configuration" and api.startswith(KUEUE_CONFIG_GROUP):
        out.k8s.append(RawObject(obj, source))
        ctx.dra.add_mappings(_m(obj.get("resources")).get("deviceClassMappings"))
        fs = obj.get("fairSharing")
        if isinstance(fs, Mapping):
            strategies = tuple(str(s) for s in _l(fs.get("preemptionStrategies")))
            out.objects.append(
                FairSharingConfig(
                    fs.get("enable", True) is not False,
                    strategies or FairSharingConfig().preemption_strategies,
                )
            )
    elif not api.startswith(KUEUE_GROUP + "/"):
        auxiliary = kind in AUXILIARY_KINDS and (kind != "ClusterPolicy" or api.startswith(KYVERNO_GROUP))
        if auxiliary or (ctx.keep is not None and ctx.keep(obj)):
            out.k8s.append(RawObject(obj, source))  # read by jobframework / the node-fit check
            return
        out.notes.append(
            f"{source}: skipped {kind or 'object without kind'} {name} ({api or 'no apiVersion'})"
        )
    elif kind == "ResourceFlavor":
        taints = tuple(
            Taint(str(t.get("key", "")), str(t.get("value", "")), str(t.get("effect", "NoSchedule")))
            for t in _l(spec.get("nodeTaints"))
            if isinstance(t, Mapping)
        )
        labels = {str(k): str(v) for k, v in _m(spec.get("nodeLabels")).items()}
        topo = spec.get("topologyName")
        out.objects.append(
            ResourceFlavor(
                name, labels, taints, _tolerations(spec.get("tolerations")), str(topo) if topo else None
            )
        )
    elif kind == "Topology":
        levels = tuple(str(_m(lv).get("nodeLabel", "")) for lv in _l(spec.get("levels")))
        out.objects.append(Topology(name, levels))
    elif kind == "ClusterQueue":
        out.objects.append(_cluster_queue(name, spec))
    elif kind == "Cohort":
        parent = _name_ref(spec, ("parentName", "parent"))
        out.objects.append(Cohort(name, parent, _groups(spec, ("spec",)), _weight(spec, ("spec",))))
    elif kind == "LocalQueue":
        if not meta.get("namespace"):
            out.notes.append(
                f"{source}: LocalQueue {name} has no metadata.namespace; "
                f"taken to be in namespace {DEFAULT_NAMESPACE} (as kubectl apply without -n)"
            )
        out.objects.append(
            LocalQueue(
                str(meta.get("namespace") or DEFAULT_NAMESPACE),
                name,
                str(spec.get("clusterQueue", "")),
                str(spec.get("stopPolicy") or "None"),
            )
        )
    elif kind == "WorkloadPriorityClass":
        ctx.classes[("WorkloadPriorityClass", name)] = PriorityClass(
            name, _int(obj.get("value", 0), ("value",))
        )
    elif kind == "Workload":
        _workload_object(obj, source, ctx)
    else:
        out.notes.append(f"{source}: skipped {kind} {name} (not used for admission)")


def parse_documents(
    docs: Iterable[Document], keep: Callable[[Mapping[str, Any]], bool] | None = None
) -> Parsed:
    """Parse YAML documents into Kueue records; raises InputError for bad queue quantities.

    Objects of other API groups are skipped with a note, except auxiliary kinds (nodes, claims)
    and those `keep` accepts (job objects, for `gpuplane.explain`): those go to `Parsed.k8s`.
    """
    ctx = _Ctx(Parsed(), keep=keep)
    problems: list[Problem] = []
    for doc in docs:
        ctx.out.notes += [str(w) for w in doc.warnings]  # duplicate keys: the later value won
        if not isinstance(doc.data, Mapping):
            ctx.out.notes.append(f"{doc.file}:{doc.line}: skipped a document that is not a mapping")
            continue
        try:
            _object(doc.data, f"{doc.file}:{doc.line}", ctx)
        except _Bad as bad:
            pos = locate(doc.data, bad.path)
            problems.append(
                Problem(
                    doc.file,
                    pos[0] if pos else doc.line,
                    pos[1] if pos else None,
                    ".".join(str(p) for p in bad.path),
                    bad.message,
                )
            )
        except (TypeError, ValueError) as exc:
            problems.append(Problem(doc.file, doc.line, None, "", f"cannot read object: {exc}"))
    if problems:
        raise InputError(problems)
    ctx.dra.charge_claims(ctx.out.objects)
    ctx.out.dra = ctx.dra
    return _resolve_priorities(ctx)


def parse_objects(
    objects: Iterable[Mapping[str, Any]],
    source: str = "<api>",
    keep: Callable[[Mapping[str, Any]], bool] | None = None,
) -> Parsed:
    """Parse plain dicts (e.g. from the Kubernetes API) into Kueue records (`keep`: as above)."""
    docs = [Document(data=o, file=source, line=0, index=i) for i, o in enumerate(objects)]
    return parse_documents(docs, keep)


def _resolve_priorities(ctx: _Ctx) -> Parsed:
    out = ctx.out
    for obj in out.objects:
        if isinstance(obj, Workload) and id(obj) in ctx.wanted_class:
            cls = ctx.classes.get(ctx.wanted_class[id(obj)])
            if cls is not None:
                obj.priority = cls.value
    out.objects.extend(ctx.classes.values())
    return out
