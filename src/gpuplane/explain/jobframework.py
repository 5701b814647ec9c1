"""Job objects to Workloads, as Kueue's jobframework builds them (pkg/controller/jobframework).

For every job object of the input that Kueue integrates (see `gpuplane.workloads`), the Workloads
Kueue would create: pod sets and counts from the kind's integration, requests per pod as Kueue
computes them (`requests.py`), the queue from Kueue's queue-name label (`vocab.QUEUE_NAME_LABEL`;
or the namespace's LocalQueue `default`, LocalQueueDefaulting), priority from Kueue's
priority-class label (`vocab.PRIORITY_CLASS_LABEL`: a WorkloadPriorityClass, else the class named `default`,
WorkloadPriorityClassDefaulting) else the pod's PriorityClass, else the cluster's globalDefault
PriorityClass (`ExtractPriority`, pkg/util/priority/priority.go). A job without a queue name is
not managed unless the Configuration sets `manageJobsWithoutQueueName` and its namespace matches
`managedJobsNamespaceSelector` (reconciler.go). Finished jobs are skipped; a job the input already
has a Workload for (by owner reference) is not converted again. Sources: kubernetes-sigs/kueue
@ff69552e.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuplane.errors import InputError, Problem
from gpuplane.explain.jobcontext import JobContext
from gpuplane.kube.fields import FieldError, Path, api_group
from gpuplane.kube.requests import BadField, pod_requests, transform
from gpuplane.kube.runtime import runtime_seconds
from gpuplane.kueue.dra import ClaimError, pod_claim_units
from gpuplane.kueue.objects import PodSet, Workload
from gpuplane.kueue.parse import DEFAULT_NAMESPACE, Parsed, RawObject, parse_time, pod_set
from gpuplane.kueue.tas.model import topology_request
from gpuplane.vocab import (
    ANNOTATION_EXPECTED_RUNTIME,
    DEFAULT_LOCAL_QUEUE,
    DEFAULT_WORKLOAD_PRIORITY_CLASS,
    MAX_EXEC_TIME_SECONDS_LABEL,
    POD_GROUP_FAST_ADMISSION_ANNOTATION,
    POD_GROUP_NAME_LABEL,
    PRIORITY_CLASS_LABEL,
    QUEUE_NAME_LABEL,
)
from gpuplane.workloads import (
    BATCH,
    TRAINING,
    NotModelled,
    WorkloadKind,
    WorkloadSpec,
    as_dict,
    as_int,
    as_str,
    get,
    lookup,
    not_understood,
)
from gpuplane.workloads.common import GENERATED, object_name
from gpuplane.yamlio import locate


@dataclass
class JobWorkload:
    """A Workload built from a job object, and what it was built from.

    `new`: the input holds no Workload for the job (a submission: what-if). `claim_templates`:
    per pod set, the ResourceClaimTemplates its pods' `resourceClaims` name (DRA; not charged).
    `runtime`: seconds the job declares it runs at most (activeDeadlineSeconds, Kueue's
    max-exec-time label) or expects to run (`ANNOTATION_EXPECTED_RUNTIME`), for `--eta`.
    """

    workload: Workload
    kind: str
    namespace: str
    name: str
    source: str
    new: bool = True
    name_note: str = ""
    queue_note: str = ""
    runtime: float | None = None
    runtime_source: str = ""
    claim_templates: dict[str, list[str]] = field(default_factory=dict)

    @property
    def job(self) -> str:
        """`Kind namespace/name` for messages."""
        return f"{self.kind} {self.namespace}/{self.name}"


@dataclass
class Conversion:
    """Workloads built from job objects, jobs Kueue would not manage, and notes."""

    jobs: list[JobWorkload] = field(default_factory=list)
    unmanaged: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def by_key(self) -> dict[str, JobWorkload]:
        """The converted jobs by their Workload's key."""
        return {j.workload.key: j for j in self.jobs}


def _labels(data: Mapping[str, Any], kind: WorkloadKind) -> dict[str, str]:
    """The labels Kueue reads the queue and priority class from (a CronJob: its Jobs' labels)."""
    labels = {str(k): as_str(v) for k, v in as_dict(get(data, "metadata", "labels")).items()}
    if kind.kind == "CronJob":
        job_labels = as_dict(get(data, "spec", "jobTemplate", "metadata", "labels"))
        labels.update({str(k): as_str(v) for k, v in job_labels.items()})
    return labels


def _queue(labels: dict[str, str], namespace: str, ctx: JobContext) -> tuple[str | None, str]:
    """(queue name or None when unmanaged, note)."""
    queue = labels.get(QUEUE_NAME_LABEL, "")
    if queue:
        return queue, ""
    if ctx.has_local_queue(namespace, DEFAULT_LOCAL_QUEUE):
        return (
            DEFAULT_LOCAL_QUEUE,
            f"no {QUEUE_NAME_LABEL} label: Kueue sets the namespace's LocalQueue {DEFAULT_LOCAL_QUEUE}",
        )
    cfg = ctx.config
    if cfg.manage_without_queue_name and cfg.managed_namespaces.matches(ctx.namespace_labels(namespace)):
        return "", f"no {QUEUE_NAME_LABEL} label; managed anyway (manageJobsWithoutQueueName)"
    return None, f"no {QUEUE_NAME_LABEL} label and manageJobsWithoutQueueName is off"


def _priority(labels: dict[str, str], spec: WorkloadSpec, ctx: JobContext) -> tuple[int, str | None]:
    """(priority, problem): Kueue's ExtractPriority over the classes in the input."""
    wpc = labels.get(PRIORITY_CLASS_LABEL, "")
    if not wpc and ("WorkloadPriorityClass", DEFAULT_WORKLOAD_PRIORITY_CLASS) in ctx.classes:
        wpc = DEFAULT_WORKLOAD_PRIORITY_CLASS
    if wpc:
        found = ctx.classes.get(("WorkloadPriorityClass", wpc))
        if found is None:
            return (
                0,
                f"WorkloadPriorityClass {wpc} is not in the input: Kueue creates no Workload until it exists",
            )
        return found.value, None
    pc = spec.priority_class or next(
        (
            as_str(ps.template.spec.get("priorityClassName"))
            for ps in spec.pod_sets
            if ps.template.spec.get("priorityClassName")
        ),
        "",
    )
    if pc:
        found = ctx.classes.get(("PriorityClass", pc))
        if found is None:
            return 0, f"PriorityClass {pc} is not in the input: Kueue creates no Workload until it exists"
        return found.value, None
    defaults = sorted(
        (c.value, c.name) for c in ctx.classes.values() if c.kind == "PriorityClass" and c.global_default
    )
    return (defaults[0][0], None) if defaults else (0, None)


def _runtime(data: Mapping[str, Any], kind: WorkloadKind) -> tuple[float | None, str]:
    """(seconds, where it comes from) the job declares or expects to run."""
    expected = as_str(get(data, "metadata", "annotations", ANNOTATION_EXPECTED_RUNTIME))
    if expected:
        seconds = runtime_seconds(expected)
        if seconds is not None:
            return seconds, f"{ANNOTATION_EXPECTED_RUNTIME} {expected}"
    limit = as_int(get(data, "metadata", "labels", MAX_EXEC_TIME_SECONDS_LABEL), 0)
    if limit > 0:
        return float(limit), f"{MAX_EXEC_TIME_SECONDS_LABEL} {limit}"
    deadline = kind.kueue.deadline(dict(data)) if kind.kueue else None
    if deadline:
        return deadline, f"activeDeadlineSeconds {deadline:g}"
    return None, ""


def _pod_sets(spec: WorkloadSpec, namespace: str, ctx: JobContext) -> tuple[list[PodSet], str | None]:
    """The Workload's pod sets with per-pod requests as Kueue counts them, DRA claims charged
    (`kueue/dra.py`); the problem a claim Kueue cannot count gives the Workload, else None."""
    out = []
    problem = None
    defaults = ctx.container_defaults(namespace)
    for ps in spec.pod_sets:
        pod_spec = ps.template.spec
        per_pod = pod_requests(pod_spec, ps.template.path, overhead=ctx.overhead(pod_spec), defaults=defaults)
        per_pod = transform(per_pod, ctx.config.transformations, ctx.config.excluded_prefixes)
        try:
            for quota_name, units in pod_claim_units(pod_spec, namespace, ctx.dra).items():
                per_pod[quota_name] = per_pod.get(quota_name, 0) + units * 1000
        except ClaimError as exc:
            problem = problem or f"Inadmissible: {exc}"
        podset = pod_set(ps.name, ps.count, ps.min_count, pod_spec, per_pod)
        podset.topology = topology_request(None, ps.template.meta.get("annotations"))
        out.append(podset)
    return out, problem


def _existing(
    data: Mapping[str, Any], kind: WorkloadKind, namespace: str, names: list[str], ctx: JobContext
) -> list[Workload]:
    """The Workloads the input already has for this object (by owner reference or Kueue's name)."""
    uid = as_str(get(data, "metadata", "uid"))
    name = as_str(get(data, "metadata", "name"))

    def owned(w: Workload) -> bool:
        return any((uid and u == uid) or (k == kind.kind and n == name) for k, n, u in w.owners)

    found = [w for w in ctx.workloads.values() if w.namespace == namespace and (owned(w) or w.name in names)]
    return sorted(found, key=lambda w: w.key)


def _where(raw: RawObject, path: Path) -> str:
    """`file:line` of a field of a job object (its document's line when the field has no position)."""
    file = raw.source.rpartition(":")[0]
    pos = locate(raw.data, path)
    return f"{file}:{pos[0]}" if pos and file else raw.source


def _problem(raw: RawObject, path: Path, message: str) -> Problem:
    file, _, line = raw.source.rpartition(":")
    pos = locate(raw.data, path)
    return Problem(
        file or raw.source,
        pos[0] if pos else (int(line) if line.isdigit() and int(line) > 0 else None),
        pos[1] if pos else None,
        ".".join(map(str, path)),
        message,
    )


class _Converter:
    def __init__(self, parsed: Parsed, ctx: JobContext) -> None:
        self.parsed = parsed
        self.ctx = ctx
        self.out = Conversion(notes=list(ctx.problems))
        self.groups: dict[tuple[str, str], JobWorkload] = {}
        self.group_totals: dict[tuple[str, str], tuple[int, bool]] = {}
        self.generated: dict[tuple[str, str], int] = {}
        self.problems: list[Problem] = []  # fields the API server would refuse: a located InputError
        self.seen: dict[tuple[str, str, str, str], str] = {}  # (kind, group, namespace, name) -> where
        times = [0.0] + [w.creation_time for w in ctx.workloads.values()]
        self.arrival = max(times) + 0.5

    def run(self) -> Conversion:
        for raw in self.parsed.k8s:
            data = dict(raw.data)
            kind = lookup(data)
            if kind is None:
                gpus = not_understood(data)
                if gpus:
                    self.out.notes.append(self._unknown(raw, data, gpus))
                continue
            if self._first(raw, data, kind):
                try:
                    self.convert(raw, data, kind)
                except FieldError as bad:
                    self.problems.append(_problem(raw, bad.path, bad.message))
        if self.problems:
            raise InputError(self.problems)
        self._complete_groups()
        return self.out

    def _first(self, raw: RawObject, data: dict[str, Any], kind: WorkloadKind) -> bool:
        """False (and a problem naming both places) for an object the input already gave: the API
        server keeps one object per kind, namespace and name (a second create is AlreadyExists)."""
        name = as_str(get(data, "metadata", "name"))
        if not name:
            return True
        namespace = as_str(get(data, "metadata", "namespace")) or DEFAULT_NAMESPACE
        key = (kind.kind, api_group(data), namespace, name)
        first = self.seen.setdefault(key, _where(raw, ("metadata", "name")))
        if first == _where(raw, ("metadata", "name")):
            return True
        message = f"{kind.kind} {namespace}/{name} is given twice (also at {first}); the API server keeps one"
        self.problems.append(_problem(raw, ("metadata", "name"), message))
        return False

    def _complete_groups(self) -> None:
        """Kueue builds a pod group's Workload once all `pod-group-total-count` pods exist
        (pod_controller.go validatePodGroupMetadata), or at once from the first pod with fast
        admission (`POD_GROUP_FAST_ADMISSION_ANNOTATION: "true"`, count = the total)."""
        for (_, group), job in sorted(self.groups.items()):
            total, fast = self.group_totals[(job.namespace, group)]
            pods = sum(ps.count for ps in job.workload.pod_sets)
            if fast:
                first = job.workload.pod_sets[0]
                first.count = total
                job.workload.pod_sets = [first]
            elif pods < total:
                self.out.jobs.remove(job)
                self.out.notes.append(
                    f"{job.source}: pod group {job.namespace}/{group} has {pods} of {total} pods in the "
                    "input: Kueue creates its Workload once all exist"
                )

    def _unknown(self, raw: RawObject, data: dict[str, Any], gpus: list[str]) -> str:
        return (
            f"{raw.source}: {as_str(data.get('kind'))} {object_name(data)} ({as_str(data.get('apiVersion'))}) asks for "
            f"{', '.join(gpus)} but gpuplane does not know where its pods are: not understood, not explained"
        )

    def convert(self, raw: RawObject, data: dict[str, Any], kind: WorkloadKind) -> None:
        namespace = as_str(get(data, "metadata", "namespace")) or DEFAULT_NAMESPACE
        label = f"{kind.kind} {namespace}/{object_name(data)}"
        if kind.kueue is None:
            if any(t.is_gpu() for t in kind.templates(data)):
                self.out.unmanaged.append((label, "Kueue has no integration for this kind"))
            return
        if get(data, "metadata", "ownerReferences") and kind.kind == "Pod" and not self._grouped(data):
            return  # a pod of a job or controller: its owner is the workload
        if kind.kueue.finished(data):
            self.out.notes.append(f"{raw.source}: skipped finished {label}")
            return
        queue, queue_note = _queue(_labels(data, kind), namespace, self.ctx)
        if queue is None:
            if kind.category in (BATCH, TRAINING) or any(t.is_gpu() for t in kind.templates(data)):
                self.out.unmanaged.append((label, f"not managed by Kueue: {queue_note}"))
            return
        try:
            specs = kind.kueue.workloads(data, self.ctx)
        except NotModelled as exc:
            self.out.notes.append(f"{raw.source}: {label}: cannot build its Workload: {exc}")
            return
        except BadField as bad:
            self.out.notes.append(f"{raw.source}: {label}: {'.'.join(map(str, bad.path))}: {bad.message}")
            return
        if not specs:
            self.out.notes.append(f"{raw.source}: skipped {label}: no pod template")
            return
        existing = _existing(data, kind, namespace, [s.name for s in specs], self.ctx)
        if existing:
            runtime, runtime_source = _runtime(data, kind)
            for wl in existing:  # the job's own runtime limit applies to its Workload
                if runtime is not None and wl.runtime_hint is None:
                    wl.runtime_hint = (runtime, f"{label}: {runtime_source}")
            return
        for spec in specs:
            self._add(raw, data, kind, namespace, queue, queue_note, spec)

    def _grouped(self, data: dict[str, Any]) -> bool:
        return bool(as_str(get(data, "metadata", "labels", POD_GROUP_NAME_LABEL)))

    def _add(
        self,
        raw: RawObject,
        data: dict[str, Any],
        kind: WorkloadKind,
        namespace: str,
        queue: str,
        note: str,
        spec: WorkloadSpec,
    ) -> None:
        try:
            pod_sets, claim_problem = _pod_sets(spec, namespace, self.ctx)
        except BadField as bad:
            self.out.notes.append(
                f"{raw.source}: {kind.kind} {object_name(data)}: {'.'.join(map(str, bad.path))}: {bad.message}"
            )
            return
        if spec.group_total and self._merge_group(namespace, spec, pod_sets):
            return
        labels = _labels(data, kind)
        if PRIORITY_CLASS_LABEL not in labels:
            found = self.ctx.default_priority(namespace, api_group(data), kind.kind)
            if found is not None:
                labels[PRIORITY_CLASS_LABEL] = found[0]
                note = "; ".join(
                    n for n in (note, f"no {PRIORITY_CLASS_LABEL} label: {found[1]} sets {found[0]}") if n
                )
        priority, problem = _priority(labels, spec, self.ctx)
        problem = problem or claim_problem
        created = get(data, "metadata", "creationTimestamp")
        wl_name, name = self._distinct(namespace, spec.name, object_name(data))
        wl = Workload(
            namespace=namespace,
            name=wl_name,
            queue_name=queue,
            priority=priority,
            creation_time=parse_time(created) if created else self._next_arrival(),
            pod_sets=pod_sets,
            uid=as_str(get(data, "metadata", "uid")),
            source=raw.source,
            active=True,
            problem=problem,
        )
        if not queue and problem is None:
            wl.problem = (
                "the Workload has no spec.queueName (manageJobsWithoutQueueName): Kueue never admits it"
            )
        runtime, runtime_source = _runtime(data, kind)
        if runtime is not None:
            wl.runtime_hint = (runtime, f"{kind.kind} {namespace}/{name}: {runtime_source}")
        job = JobWorkload(
            wl, kind.kind, namespace, name, raw.source, True, spec.name_note, note, runtime, runtime_source
        )
        self._claims(raw, job, spec)
        if spec.group_total:
            self.groups[(namespace, spec.name)] = job
            fast = as_str(get(data, "metadata", "annotations", POD_GROUP_FAST_ADMISSION_ANNOTATION)) == "true"
            self.group_totals[(namespace, spec.name)] = (spec.group_total, fast)
        self.out.jobs.append(job)

    def _distinct(self, namespace: str, workload: str, job: str) -> tuple[str, str]:
        """Names for a job the API server has not named yet (`generateName`): the second job of the
        same generateName in a namespace becomes `<generated-2>`, so two submissions never share
        one Workload name (and one answer)."""
        if GENERATED not in workload:
            return workload, job
        key = (namespace, workload)
        self.generated[key] = count = self.generated.get(key, 0) + 1
        if count == 1:
            return workload, job
        mark = f"{GENERATED[:-1]}-{count}>"
        return workload.replace(GENERATED, mark), job.replace(GENERATED, mark)

    def _claims(self, raw: RawObject, job: JobWorkload, spec: WorkloadSpec) -> None:
        """Keep the DRA claim templates each pod set names on the record."""
        job.claim_templates = {
            ps.name: ps.template.claim_template_names()
            for ps in spec.pod_sets
            if ps.template.claim_template_names()
        }

    def _merge_group(self, namespace: str, spec: WorkloadSpec, pod_sets: list[PodSet]) -> bool:
        """Add a pod group member's pod to its group's Workload (one pod set per role)."""
        job = self.groups.get((namespace, spec.name))
        if job is None:
            return False
        for ps in pod_sets:
            same = next((p for p in job.workload.pod_sets if p.name == ps.name), None)
            if same is None:
                job.workload.pod_sets.append(ps)
                job.workload.pod_sets.sort(key=lambda p: p.name)
            else:
                same.count += ps.count
        return True

    def _next_arrival(self) -> float:
        self.arrival += 0.001
        return self.arrival


def convert_jobs(parsed: Parsed) -> Conversion:
    """The Workloads Kueue would create for the input's job objects (nothing is added to `parsed`)."""
    ctx = JobContext(parsed)
    return _Converter(parsed, ctx).run()


def add_job_workloads(parsed: Parsed) -> Conversion:
    """Convert the input's job objects and add their Workloads (and the notes) to `parsed`."""
    out = convert_jobs(parsed)
    ctx = JobContext(parsed)
    if ctx.config.transformations or ctx.config.excluded_prefixes:
        for obj in parsed.objects:  # Kueue transforms every Workload's pod set requests alike
            if isinstance(obj, Workload) and obj.admission is None:
                for ps in obj.pod_sets:
                    ps.per_pod = transform(
                        ps.per_pod, ctx.config.transformations, ctx.config.excluded_prefixes
                    )
    parsed.objects.extend(j.workload for j in out.jobs)
    parsed.notes.extend(out.notes)
    return out
