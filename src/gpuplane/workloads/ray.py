"""KubeRay's RayJob, RayCluster and RayService: pod templates and Kueue pod sets.

Kueue sources (kubernetes-sigs/kueue @ff69552e): pkg/controller/jobs/raycluster/common.go
(`BuildPodSets`: pod set `head` count 1, plus an `autoscaler` container (500m CPU, 512Mi) when
`enableInTreeAutoscaling`, and the head's Ray container raised to at least 200m/256Mi when GCS
fault tolerance is on; a pod set per worker group named by the lower-cased `groupName`, count =
replicas (default 1) x numOfHosts), pkg/controller/jobs/rayjob/rayjob_controller.go (plus a
`submitter` pod set, count 1, in `K8sJobMode` (the CRD default), or a submitter container on the
head in `SidecarMode`; submitter resources 500m/200Mi requested) and
pkg/controller/jobs/rayservice/rayservice_controller.go. GCS fault tolerance: KubeRay @v1.7.0
ray-operator/controllers/ray/utils/util.go `IsGCSFaultToleranceEnabled` (annotation
`ray.io/ft-enabled: "true"` or `gcsFaultToleranceOptions` set).
"""

from __future__ import annotations

import copy
from typing import Any

from gpuplane.workloads.common import flag, one_workload
from gpuplane.workloads.fields import Path, as_dict, as_int, as_list, as_str, count, get
from gpuplane.workloads.model import PodSetSpec, PodTemplate, WorkloadSpec
from gpuplane.workloads.registry import BATCH, SERVING, KueueIntegration, Lookup, WorkloadKind, register
from gpuplane.workloads.templates import containers_of, template_at

RAY_GROUP = "ray.io"
HEAD = "head"
SUBMITTER = "submitter"
FT_ANNOTATION = "ray.io/ft-enabled"
AUTOSCALER = {
    "name": "autoscaler",
    "resources": {
        "requests": {"cpu": "500m", "memory": "512Mi"},
        "limits": {"cpu": "500m", "memory": "512Mi"},
    },
}
SUBMITTER_RESOURCES = {
    "requests": {"cpu": "500m", "memory": "200Mi"},
    "limits": {"cpu": "1", "memory": "1Gi"},
}
REDIS_CLEANUP = {"cpu": "200m", "memory": "256Mi"}


def ray_templates(data: dict[str, Any], base: Path) -> list[PodTemplate]:
    """The head and every worker group's template of a RayCluster spec at `base`."""
    out: list[PodTemplate] = []
    head = template_at(data, (*base, "headGroupSpec", "template"), HEAD)
    if head:
        out.append(head)
    for i, group in enumerate(as_list(get(data, *base, "workerGroupSpecs"))):
        if isinstance(group, dict):
            t = template_at(
                data,
                (*base, "workerGroupSpecs", i, "template"),
                as_str(group.get("groupName")) or f"worker{i}",
            )
            if t:
                out.append(t)
    return out


def _with_containers(t: PodTemplate, extra: list[dict[str, Any]], head_floor: bool) -> PodTemplate:
    """A copy of a template whose spec has `extra` containers and, with `head_floor`, the first
    container's requests raised to at least the Redis-cleanup amounts (keep-max merge)."""
    from gpuplane.kube.requests import quantity  # exact comparison; a bad value is a BadField

    spec = dict(t.spec)
    containers = [dict(c) if isinstance(c, dict) else c for c in as_list(spec.get("containers"))]
    if head_floor and containers and isinstance(containers[0], dict):
        head = containers[0]
        resources = dict(as_dict(head.get("resources")))
        requests = dict(as_dict(resources.get("requests")))
        path = (*t.path, "containers", 0, "resources", "requests")
        for res, floor in REDIS_CLEANUP.items():
            have = requests.get(res)
            if have is None or quantity(have, (*path, res)) < quantity(floor, ()):
                requests[res] = floor
        resources["requests"] = requests
        head["resources"] = resources
    spec["containers"] = [*containers, *copy.deepcopy(extra)]
    out = PodTemplate(spec=spec, path=t.path, meta=t.meta, role=t.role)
    out.containers = containers_of(spec, t.path)
    return out


def cluster_pod_sets(
    data: dict[str, Any], base: Path, head_extra: list[dict[str, Any]] | None = None
) -> list[PodSetSpec]:
    """raycluster.BuildPodSets for the RayCluster spec at `base` of `data`."""
    cluster = as_dict(get(data, *base))
    head = template_at(data, (*base, "headGroupSpec", "template"), HEAD)
    if head is None:
        return []
    extra = list(head_extra or [])
    if flag(cluster.get("enableInTreeAutoscaling")):
        extra.insert(0, AUTOSCALER)
    ft = (
        flag(get(data, "metadata", "annotations", FT_ANNOTATION))
        or cluster.get("gcsFaultToleranceOptions") is not None
    )
    if extra or ft:
        head = _with_containers(head, extra, ft)
    out = [PodSetSpec(HEAD, 1, head)]
    for i, group in enumerate(as_list(cluster.get("workerGroupSpecs"))):
        if not isinstance(group, dict):
            continue
        t = template_at(data, (*base, "workerGroupSpecs", i, "template"), as_str(group.get("groupName")))
        if t is None:
            continue
        # Kueue's effectiveWorkerCount reads replicas as the API server stored them: the CRD
        # defaults an absent `replicas` to 0 and `numOfHosts` to 1 (KubeRay v1.7.0 ray.io CRDs).
        at = (*base, "workerGroupSpecs", i)
        hosts = max(1, count(group.get("numOfHosts"), (*at, "numOfHosts"), 1))
        pods = count(group.get("replicas"), (*at, "replicas"), 0) * hosts
        out.append(PodSetSpec(as_str(group.get("groupName")).lower(), pods, t))
    return out


def _rayjob_workloads(data: dict[str, Any], _: Lookup) -> list[WorkloadSpec]:
    base: Path = ("spec", "rayClusterSpec")
    mode = as_str(get(data, "spec", "submissionMode")) or "K8sJobMode"
    sidecar = (
        [{"name": "ray-job-submitter", "resources": SUBMITTER_RESOURCES}] if mode == "SidecarMode" else []
    )
    pod_sets = cluster_pod_sets(data, base, sidecar)
    if mode == "K8sJobMode" and pod_sets:
        submitter = template_at(data, ("spec", "submitterPodTemplate"), SUBMITTER)
        if submitter is None:
            image = as_str(get(data, *base, "headGroupSpec", "template", "spec", "containers", 0, "image"))
            spec = {
                "containers": [
                    {"name": "ray-job-submitter", "image": image, "resources": SUBMITTER_RESOURCES}
                ],
                "restartPolicy": "Never",
            }
            submitter = PodTemplate(spec=spec, path=("spec",), meta={}, role=SUBMITTER)
            submitter.containers = containers_of(spec, ("spec",))
        pod_sets.append(PodSetSpec(SUBMITTER, 1, submitter))
    return one_workload(data, "RayJob", RAY_GROUP, pod_sets)


def _rayjob_deadline(data: dict[str, Any]) -> float | None:
    value = as_int(get(data, "spec", "activeDeadlineSeconds"), 0)
    return float(value) if value > 0 else None


RAYJOB = register(
    WorkloadKind(
        "RayJob",
        (RAY_GROUP,),
        BATCH,
        lambda d: ray_templates(d, ("spec", "rayClusterSpec")),
        KueueIntegration(
            "pkg/controller/jobs/rayjob/rayjob_controller.go",
            _rayjob_workloads,
            suspended=lambda d: flag(get(d, "spec", "suspend")),
            finished=lambda d: as_str(get(d, "status", "jobDeploymentStatus")) in ("Complete", "Failed"),
            active=lambda d: as_str(get(d, "status", "jobDeploymentStatus")) not in ("", "Suspended", "New"),
            deadline=_rayjob_deadline,
        ),
    )
)

RAYCLUSTER = register(
    WorkloadKind(
        "RayCluster",
        (RAY_GROUP,),
        BATCH,
        lambda d: ray_templates(d, ("spec",)),
        KueueIntegration(
            "pkg/controller/jobs/raycluster/raycluster_controller.go",
            lambda d, _: one_workload(d, "RayCluster", RAY_GROUP, cluster_pod_sets(d, ("spec",))),
            suspended=lambda d: flag(get(d, "spec", "suspend")),
            finished=lambda d: False,
        ),
    )
)

RAYSERVICE = register(
    WorkloadKind(
        "RayService",
        (RAY_GROUP,),
        SERVING,
        lambda d: ray_templates(d, ("spec", "rayClusterConfig")),
        KueueIntegration(
            "pkg/controller/jobs/rayservice/rayservice_controller.go",
            lambda d, _: one_workload(
                d, "RayService", RAY_GROUP, cluster_pod_sets(d, ("spec", "rayClusterConfig"))
            ),
            suspended=lambda d: flag(get(d, "spec", "rayClusterConfig", "suspend")),
            finished=lambda d: False,
        ),
    )
)
