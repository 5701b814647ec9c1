"""batch/v1 Job and CronJob, and JobSet: their pod templates and Kueue pod sets.

Kueue sources (kubernetes-sigs/kueue @ff69552e): pkg/controller/jobs/job/job_controller.go
(one pod set `main`, count = min(parallelism, completions), minCount from Kueue's
job-min-parallelism annotation (`vocab.JOB_MIN_PARALLELISM_ANNOTATION`), suspended when `spec.suspend`, finished on a Complete or
Failed condition) and pkg/controller/jobs/jobset/jobset_controller.go (a pod set per replicated
job, named after it, count = replicas x min(parallelism, completions)). A CronJob is not a Kueue
integration: each Job it creates is, with the labels of `spec.jobTemplate`; explain shows the next
one.
"""

from __future__ import annotations

from typing import Any

from gpuplane.vocab import JOB_MIN_PARALLELISM_ANNOTATION
from gpuplane.workloads.common import condition_true, flag, object_name, one_workload
from gpuplane.workloads.fields import Path, as_dict, as_int, as_list, as_str, count, get
from gpuplane.workloads.model import PodSetSpec, PodTemplate, WorkloadSpec
from gpuplane.workloads.names import workload_name
from gpuplane.workloads.registry import BATCH, TRAINING, KueueIntegration, Lookup, WorkloadKind, register
from gpuplane.workloads.templates import present, template_at

MAIN = "main"  # kueue.DefaultPodSetName


def job_pods(job_spec: dict[str, Any], path: Path = ("spec",)) -> int:
    """Pods a Job runs at once: parallelism (default 1), capped by completions (job_controller.podsCount).

    Both are counts as the API server validates them (`count`: an integer >= 0; FieldError at
    `path` + the field otherwise)."""
    parallelism = count(job_spec.get("parallelism"), (*path, "parallelism"), 1)
    completions = job_spec.get("completions")
    if completions is not None:
        parallelism = min(parallelism, count(completions, (*path, "completions"), parallelism))
    return parallelism


def _min_count(data: dict[str, Any]) -> int | None:
    raw = get(data, "metadata", "annotations", JOB_MIN_PARALLELISM_ANNOTATION)
    if raw is None:
        return None
    value = as_int(raw, -1)
    return value if value >= 0 else None


def _job_templates(data: dict[str, Any]) -> list[PodTemplate]:
    return present(template_at(data, ("spec", "template")))


def _job_workloads(data: dict[str, Any], _: Lookup) -> list[WorkloadSpec]:
    templates = _job_templates(data)
    if not templates:
        return []
    spec = as_dict(data.get("spec"))
    ps = PodSetSpec(MAIN, job_pods(spec), templates[0], _min_count(data))
    return one_workload(data, "Job", "batch", [ps])


def _job_deadline(data: dict[str, Any]) -> float | None:
    value = get(data, "spec", "activeDeadlineSeconds")
    seconds = as_int(value, 0) if value is not None else 0
    return float(seconds) if seconds > 0 else None


JOB = register(
    WorkloadKind(
        "Job",
        ("batch", "", "apps", "extensions"),
        BATCH,
        _job_templates,
        KueueIntegration(
            "pkg/controller/jobs/job/job_controller.go",
            _job_workloads,
            suspended=lambda d: flag(get(d, "spec", "suspend")),
            finished=lambda d: condition_true(d, "Complete", "Failed"),
            active=lambda d: as_int(get(d, "status", "active"), 0) > 0,
            deadline=_job_deadline,
        ),
        group_sensitive=True,
    )
)


def _cron_templates(data: dict[str, Any]) -> list[PodTemplate]:
    return present(template_at(data, ("spec", "jobTemplate", "spec", "template")))


def _cron_workloads(data: dict[str, Any], _: Lookup) -> list[WorkloadSpec]:
    templates = _cron_templates(data)
    if not templates:
        return []
    job_spec = as_dict(get(data, "spec", "jobTemplate", "spec"))
    ps = PodSetSpec(MAIN, job_pods(job_spec, ("spec", "jobTemplate", "spec")), templates[0])
    name = f"{object_name(data)}-<scheduled time>"
    note = "the CronJob's next Job (named after its scheduled time); each Job it creates is one Workload"
    return [WorkloadSpec(workload_name(name, "", "Job", "batch"), [ps], note)]


CRONJOB = register(
    WorkloadKind(
        "CronJob",
        ("batch",),
        BATCH,
        _cron_templates,
        KueueIntegration(
            "pkg/controller/jobs/job/job_controller.go (the Jobs a CronJob creates)",
            _cron_workloads,
            suspended=lambda d: flag(get(d, "spec", "suspend")),
            finished=lambda d: False,
        ),
        group_sensitive=True,
    )
)


def _jobset_templates(data: dict[str, Any]) -> list[PodTemplate]:
    out: list[PodTemplate] = []
    for i, rj in enumerate(as_list(get(data, "spec", "replicatedJobs"))):
        found = template_at(
            data, ("spec", "replicatedJobs", i, "template", "spec", "template"), as_str(get(rj, "name"))
        )
        if found:
            out.append(found)
    return out


def jobset_pod_sets(data: dict[str, Any], base: tuple[str | int, ...] = ("spec",)) -> list[PodSetSpec]:
    """A pod set per replicated job: replicas (default 1) x pods per Job (jobset_controller.PodSets)."""
    out: list[PodSetSpec] = []
    for i, rj in enumerate(as_list(get(data, *base, "replicatedJobs"))):
        if not isinstance(rj, dict):
            continue
        t = template_at(
            data, (*base, "replicatedJobs", i, "template", "spec", "template"), as_str(rj.get("name"))
        )
        if t is None:
            continue
        rj_path = (*base, "replicatedJobs", i)
        per_job = job_pods(as_dict(get(rj, "template", "spec")), (*rj_path, "template", "spec"))
        replicas = count(rj.get("replicas"), (*rj_path, "replicas"), 1)
        out.append(PodSetSpec(as_str(rj.get("name")).lower(), replicas * per_job, t))
    return out


JOBSET = register(
    WorkloadKind(
        "JobSet",
        ("jobset.x-k8s.io",),
        TRAINING,
        _jobset_templates,
        KueueIntegration(
            "pkg/controller/jobs/jobset/jobset_controller.go",
            lambda d, _: one_workload(d, "JobSet", "jobset.x-k8s.io", jobset_pod_sets(d)),
            suspended=lambda d: flag(get(d, "spec", "suspend")),
            finished=lambda d: condition_true(d, "Completed", "Failed"),
        ),
    )
)
