"""Pods, the apps/v1 controllers and LeaderWorkerSet: pod templates and Kueue pod sets.

Kueue sources (kubernetes-sigs/kueue @ff69552e):
- pkg/controller/jobs/pod/pod_controller.go: a plain Pod is one Workload `pod-<name>-<hash>` with
  pod set `main`, count 1; pods carrying Kueue's pod-group-name label (`vocab.POD_GROUP_NAME_LABEL`)
  form one Workload named after the group, with a pod set per role (Kueue's role-hash annotation,
  `vocab.POD_ROLE_HASH_ANNOTATION`, else a hash of the pod's shape), counted over the group's pods;
  gated by Kueue's scheduling gate (`vocab.KUEUE_ADMISSION_GATE`) until admitted; finished when
  Succeeded or Failed.
- pkg/controller/jobs/deployment/deployment_webhook.go: the Deployment's pods carry its queue
  label and each becomes a plain-pod Workload.
- pkg/controller/jobs/statefulset/: the StatefulSet's pods form one pod group,
  `statefulset-<name>-<hash>`, pod set `main`, count = replicas (default 1).
- pkg/controller/jobs/leaderworkerset/: one Workload per replica (group) i, named from
  `<name>-<i>`, with pod sets `leader` (1) and `worker` (size - 1), or `main` (size) without a
  leader template.
DaemonSets, ReplicaSets and ReplicationControllers have no Kueue integration.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from gpuplane.vocab import (
    KUEUE_ADMISSION_GATE,
    POD_GROUP_NAME_LABEL,
    POD_GROUP_TOTAL_COUNT_ANNOTATION,
    POD_ROLE_HASH_ANNOTATION,
)
from gpuplane.workloads.batch import MAIN
from gpuplane.workloads.common import object_name, one_workload, uid
from gpuplane.workloads.fields import as_dict, as_int, as_list, as_str, count, get
from gpuplane.workloads.model import PodSetSpec, PodTemplate, WorkloadSpec
from gpuplane.workloads.names import workload_name
from gpuplane.workloads.registry import (
    NODE_AGENT,
    POD,
    SERVING,
    KueueIntegration,
    Lookup,
    WorkloadKind,
    register,
)
from gpuplane.workloads.templates import inline_spec, present, template_at

LWS_GROUP = "leaderworkerset.x-k8s.io"
BUILTIN_GROUPS = ("", "apps", "batch", "extensions")
SHAPE_FIELDS = (
    "nodeSelector",
    "affinity",
    "tolerations",
    "runtimeClassName",
    "priority",
    "topologySpreadConstraints",
    "overhead",
    "resourceClaims",
)


def _pod_templates(data: dict[str, Any]) -> list[PodTemplate]:
    spec = data.get("spec")
    if not isinstance(spec, dict):
        return []
    return [inline_spec(spec, ("spec",), as_dict(data.get("metadata")))]


def role_name(data: dict[str, Any]) -> str:
    """A pod's role in its group: Kueue's role-hash annotation, else a hash of its scheduling shape.

    Kueue's own hash (pkg/util/pod GenerateRoleHash) is SHA-256 over the Go JSON encoding of these
    fields; this one hashes the same fields as canonical JSON, so pods of one shape share a role,
    but the 8 hex digits differ from Kueue's unless the annotation is set.
    """
    annotated = as_str(get(data, "metadata", "annotations", POD_ROLE_HASH_ANNOTATION))
    if annotated:
        return annotated.lower()
    spec = as_dict(data.get("spec"))
    shape = {k: spec.get(k) for k in SHAPE_FIELDS}
    for key in ("initContainers", "containers"):
        shape[key] = [
            {"requests": get(c, "resources", "requests"), "ports": get(c, "ports")}
            for c in as_list(spec.get(key))
            if isinstance(c, dict)
        ]
    return hashlib.sha256(json.dumps(shape, sort_keys=True, default=str).encode()).hexdigest()[:8]


def _pod_workloads(data: dict[str, Any], _: Lookup) -> list[WorkloadSpec]:
    templates = _pod_templates(data)
    if not templates:
        return []
    group = as_str(get(data, "metadata", "labels", POD_GROUP_NAME_LABEL))
    if group:
        total = as_int(get(data, "metadata", "annotations", POD_GROUP_TOTAL_COUNT_ANNOTATION), 0)
        spec = WorkloadSpec(group, [PodSetSpec(role_name(data), 1, templates[0])])
        spec.group_total = total
        return [spec]
    return one_workload(data, "Pod", "", [PodSetSpec(MAIN, 1, templates[0])])


def _gated(data: dict[str, Any]) -> bool:
    return any(
        as_str(get(g, "name")) == KUEUE_ADMISSION_GATE for g in as_list(get(data, "spec", "schedulingGates"))
    )


POD_KIND = register(
    WorkloadKind(
        "Pod",
        ("",),
        POD,
        _pod_templates,
        KueueIntegration(
            "pkg/controller/jobs/pod/pod_controller.go",
            _pod_workloads,
            suspended=_gated,
            finished=lambda d: as_str(get(d, "status", "phase")) in ("Succeeded", "Failed"),
            active=lambda d: (
                not _gated(d)
                and as_str(get(d, "status", "phase")) in ("Running", "Pending")
                and bool(get(d, "spec", "nodeName"))
            ),
        ),
        group_sensitive=True,
    )
)


def _spec_template(data: dict[str, Any]) -> list[PodTemplate]:
    return present(template_at(data, ("spec", "template")))


def _deployment_workloads(data: dict[str, Any], _: Lookup) -> list[WorkloadSpec]:
    templates = _spec_template(data)
    if not templates:
        return []
    name = object_name(data)
    note = "Kueue names each pod's Workload pod-<pod name>-<hash>; the ReplicaSet generates the pod names"
    return [
        WorkloadSpec(
            workload_name(f"{name}-pod{i}", "", "Pod", ""), [PodSetSpec(MAIN, 1, templates[0])], note
        )
        for i in range(count(get(data, "spec", "replicas"), ("spec", "replicas"), 1))
    ]


def _statefulset_workloads(data: dict[str, Any], _: Lookup) -> list[WorkloadSpec]:
    templates = _spec_template(data)
    if not templates:
        return []
    return one_workload(
        data,
        "StatefulSet",
        "apps",
        [PodSetSpec(MAIN, count(get(data, "spec", "replicas"), ("spec", "replicas"), 1), templates[0])],
    )


for _kind, _category, _build, _source in (
    ("Deployment", SERVING, _deployment_workloads, "pkg/controller/jobs/deployment/deployment_webhook.go"),
    (
        "StatefulSet",
        SERVING,
        _statefulset_workloads,
        "pkg/controller/jobs/statefulset/statefulset_webhook.go",
    ),
):
    register(
        WorkloadKind(
            _kind,
            ("apps", *(g for g in BUILTIN_GROUPS if g != "apps")),
            _category,
            _spec_template,
            KueueIntegration(_source, _build, suspended=lambda d: False, finished=lambda d: False),
            group_sensitive=True,
        )
    )

for _kind, _category in (
    ("DaemonSet", NODE_AGENT),
    ("ReplicaSet", SERVING),
    ("ReplicationController", SERVING),
):
    register(
        WorkloadKind(
            _kind,
            ("apps", *(g for g in BUILTIN_GROUPS if g != "apps")),
            _category,
            _spec_template,
            group_sensitive=True,
        )
    )


def _lws_templates(data: dict[str, Any]) -> list[PodTemplate]:
    base = ("spec", "leaderWorkerTemplate")
    return present(
        template_at(data, (*base, "leaderTemplate"), "leader"),
        template_at(data, (*base, "workerTemplate"), "worker"),
    )


def _lws_workloads(data: dict[str, Any], _: Lookup) -> list[WorkloadSpec]:
    base = ("spec", "leaderWorkerTemplate")
    worker = template_at(data, (*base, "workerTemplate"), "worker")
    if worker is None:
        return []
    leader = template_at(data, (*base, "leaderTemplate"), "leader")
    size = count(get(data, *base, "size"), (*base, "size"), 1)
    pod_sets = (
        [PodSetSpec("leader", 1, leader), PodSetSpec("worker", size - 1, worker)]
        if leader
        else [PodSetSpec(MAIN, size, worker)]
    )
    name, owner_uid = object_name(data), uid(data)
    note = (
        ""
        if owner_uid
        else "the hash suffix depends on the UID the API server assigns when the object is created"
    )
    return [
        WorkloadSpec(
            workload_name(f"{name}-{i}", owner_uid, "LeaderWorkerSet", LWS_GROUP), list(pod_sets), note
        )
        for i in range(count(get(data, "spec", "replicas"), ("spec", "replicas"), 1))
    ]


LWS = register(
    WorkloadKind(
        "LeaderWorkerSet",
        (LWS_GROUP,),
        SERVING,
        _lws_templates,
        KueueIntegration(
            "pkg/controller/jobs/leaderworkerset/leaderworkerset_reconciler.go",
            _lws_workloads,
            suspended=lambda d: False,
            finished=lambda d: False,
        ),
    )
)
