"""Kubeflow training jobs: Training Operator v1 kinds, MPIJob and Kubeflow Trainer's TrainJob.

Kueue sources (kubernetes-sigs/kueue @ff69552e):
- pkg/controller/jobs/kubeflow/kubeflowjob/kubeflowjob_controller.go and
  pkg/controller/jobs/kubeflow/jobs/*/ : a pod set per replica type present, in the kind's order
  (PyTorchJob Master, Worker; TFJob Chief, Master, PS, Worker, Evaluator; XGBoostJob and PaddleJob
  Master, Worker; JAXJob Worker), named by the lower-cased type, count = replicas (default 1);
  suspended by `runPolicy.suspend`; priority from `runPolicy.schedulingPolicy.priorityClass`,
  else the first replica's `priorityClassName`.
- pkg/controller/jobs/mpijob/mpijob_controller.go: Launcher then Worker (kubeflow.org/v2beta1).
- pkg/controller/jobs/trainjob/trainjob_controller.go: the pod sets of the JobSet the TrainJob's
  runtime (TrainingRuntime or ClusterTrainingRuntime) would create, with the trainer's `numNodes`
  and `resourcesPerNode` applied to the trainer job (`node`).
Replica-type keys are matched without regard to case (the Training Operator's defaulting webhook
canonicalises them).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from gpuplane.workloads.batch import jobset_pod_sets
from gpuplane.workloads.common import condition_true, flag, one_workload
from gpuplane.workloads.fields import Path, as_dict, as_int, as_list, as_str, count, get
from gpuplane.workloads.model import Container, PodSetSpec, PodTemplate, WorkloadSpec
from gpuplane.workloads.registry import (
    TRAINING,
    KueueIntegration,
    Lookup,
    NotModelled,
    WorkloadKind,
    register,
    register_fallback,
)
from gpuplane.workloads.templates import template_at

KUBEFLOW_GROUP = "kubeflow.org"
TRAINER_GROUP = "trainer.kubeflow.org"
TRAINER_STEP_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
TRAINER_NODE = "node"

REPLICA_ORDER: dict[str, tuple[str, tuple[str, ...]]] = {
    "PyTorchJob": ("pytorchReplicaSpecs", ("Master", "Worker")),
    "TFJob": ("tfReplicaSpecs", ("Chief", "Master", "PS", "Worker", "Evaluator")),
    "XGBoostJob": ("xgbReplicaSpecs", ("Master", "Worker")),
    "PaddleJob": ("paddleReplicaSpecs", ("Master", "Worker")),
    "JAXJob": ("jaxReplicaSpecs", ("Worker",)),
    "MPIJob": ("mpiReplicaSpecs", ("Launcher", "Worker")),
}


def _replica_specs(data: dict[str, Any]) -> list[PodTemplate]:
    """Every `*ReplicaSpecs` entry's template, by key order (audit: any replica-spec kind)."""
    spec = as_dict(data.get("spec"))
    out: list[PodTemplate] = []
    for key in sorted(spec):
        if key.endswith("ReplicaSpecs") and isinstance(spec[key], dict):
            for role in sorted(spec[key]):
                t = template_at(data, ("spec", key, role, "template"), str(role))
                if t:
                    out.append(t)
    return out


def _ordered(data: dict[str, Any], kind: str) -> list[tuple[str, str]]:
    """(replica type, key in the object) in Kueue's order, for the types present."""
    field_name, order = REPLICA_ORDER[kind]
    present = {str(k).lower(): str(k) for k, v in as_dict(get(data, "spec", field_name)).items() if v}
    return [(t, present[t.lower()]) for t in order if t.lower() in present]


def _replica_workloads(kind: str, group: str) -> Callable[[dict[str, Any], Lookup], list[WorkloadSpec]]:
    field_name = REPLICA_ORDER[kind][0]

    def build(data: dict[str, Any], _: Lookup) -> list[WorkloadSpec]:
        pod_sets = []
        for rtype, key in _ordered(data, kind):
            t = template_at(data, ("spec", field_name, key, "template"), rtype)
            if t is None:
                continue
            pods = count(
                get(data, "spec", field_name, key, "replicas"), ("spec", field_name, key, "replicas"), 1
            )
            pod_sets.append(PodSetSpec(rtype.lower(), pods, t))
        specs = one_workload(data, kind, group, pod_sets)
        specs[0].priority_class = _priority_class(data, kind)
        return specs

    return build


def _priority_class(data: dict[str, Any], kind: str) -> str:
    """runPolicy.schedulingPolicy.priorityClass, else the first replica's priorityClassName."""
    run_policy = as_dict(get(data, "spec", "runPolicy"))
    explicit = as_str(get(run_policy, "schedulingPolicy", "priorityClass"))
    if explicit:
        return explicit
    field_name = REPLICA_ORDER[kind][0]
    for _, key in _ordered(data, kind):
        name = as_str(get(data, "spec", field_name, key, "template", "spec", "priorityClassName"))
        if name:
            return name
    return ""


def _run_policy_deadline(data: dict[str, Any]) -> float | None:
    value = as_int(get(data, "spec", "runPolicy", "activeDeadlineSeconds"), 0)
    return float(value) if value > 0 else None


for _kind in ("PyTorchJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob"):
    register(
        WorkloadKind(
            _kind,
            (KUBEFLOW_GROUP,),
            TRAINING,
            _replica_specs,
            KueueIntegration(
                f"pkg/controller/jobs/kubeflow/jobs/{_kind.lower()}/{_kind.lower()}_controller.go",
                _replica_workloads(_kind, KUBEFLOW_GROUP),
                suspended=lambda d: flag(get(d, "spec", "runPolicy", "suspend")),
                finished=lambda d: condition_true(d, "Succeeded", "Failed"),
                deadline=_run_policy_deadline,
            ),
        )
    )

register_fallback(
    lambda d: (
        as_str(d.get("kind")).endswith("Job")
        and any(k.endswith("ReplicaSpecs") for k in as_dict(d.get("spec")))
    ),
    _replica_specs,
)

MPIJOB = register(
    WorkloadKind(
        "MPIJob",
        (KUBEFLOW_GROUP,),
        TRAINING,
        _replica_specs,
        KueueIntegration(
            "pkg/controller/jobs/mpijob/mpijob_controller.go",
            _replica_workloads("MPIJob", KUBEFLOW_GROUP),
            suspended=lambda d: flag(get(d, "spec", "runPolicy", "suspend")),
            finished=lambda d: condition_true(d, "Succeeded", "Failed"),
            deadline=_run_policy_deadline,
        ),
    )
)


# --- TrainJob ---------------------------------------------------------------------------------
def _trainjob_templates(data: dict[str, Any]) -> list[PodTemplate]:
    """Kubeflow Trainer v2 TrainJob: no pod template, the trainer block is container-like."""
    trainer = get(data, "spec", "trainer")
    if not isinstance(trainer, dict):
        return []
    container = dict(trainer)
    container.setdefault("name", "trainer")
    if "resourcesPerNode" in trainer:
        container["resources"] = trainer["resourcesPerNode"]
    spec, path = _trainjob_overrides(data)
    t = PodTemplate(spec=spec, path=path, meta=as_dict(data.get("metadata")), role="trainer")
    t.containers = [Container(container, ("spec", "trainer"))]
    return [t]


def _trainjob_overrides(data: dict[str, Any]) -> tuple[dict[str, Any], Path]:
    """The pod-level fields a TrainJob sets for its trainer nodes (nodeSelector, tolerations,
    volumes): `podTemplateOverrides[].spec` (Trainer v2.1+) or inline `podSpecOverrides[]` (v2.0),
    preferring the entry that targets the `node` job. Without one, the TrainJob spec itself."""
    spec = as_dict(data.get("spec"))
    for key, inner in (("podTemplateOverrides", "spec"), ("podSpecOverrides", "")):
        entries = [(i, e) for i, e in enumerate(as_list(spec.get(key))) if isinstance(e, dict)]
        targets_node = [
            (i, e)
            for i, e in entries
            if any(as_str(get(t, "name")) == TRAINER_NODE for t in as_list(e.get("targetJobs")))
        ]
        for i, entry in targets_node or entries:
            found = as_dict(entry.get(inner)) if inner else entry
            if found:
                return found, ("spec", key, i, *((inner,) if inner else ()))
    return spec, ("spec",)


def _is_trainer_job(rj: dict[str, Any]) -> bool:
    label = as_str(get(rj, "template", "metadata", "labels", TRAINER_STEP_LABEL))
    return as_str(rj.get("name")) == TRAINER_NODE or label == "trainer"


def _apply_trainer(runtime_spec: dict[str, Any], trainjob: dict[str, Any]) -> dict[str, Any]:
    """The runtime's JobSet spec with the TrainJob's numNodes and resourcesPerNode applied."""
    jobset = copy.deepcopy(as_dict(get(runtime_spec, "template", "spec")))
    trainer = as_dict(get(trainjob, "spec", "trainer"))
    nodes = trainer.get("numNodes", get(runtime_spec, "mlPolicy", "numNodes"))
    for rj in as_list(jobset.get("replicatedJobs")):
        if not isinstance(rj, dict) or not _is_trainer_job(rj):
            continue
        job_spec = rj.setdefault("template", {}).setdefault("spec", {})
        if nodes is not None:
            job_spec["parallelism"] = job_spec["completions"] = as_int(nodes, 1)
        resources = trainer.get("resourcesPerNode")
        containers = as_list(get(job_spec, "template", "spec", "containers"))
        target = [c for c in containers if isinstance(c, dict) and as_str(c.get("name")) == TRAINER_NODE]
        if isinstance(resources, dict) and (target or containers):
            (target or containers)[0]["resources"] = resources
    return {"spec": jobset}


def _trainjob_workloads(data: dict[str, Any], lookup: Lookup) -> list[WorkloadSpec]:
    ref = as_dict(get(data, "spec", "runtimeRef"))
    kind = as_str(ref.get("kind")) or "ClusterTrainingRuntime"
    namespace = (
        "" if kind == "ClusterTrainingRuntime" else as_str(get(data, "metadata", "namespace")) or "default"
    )
    runtime = lookup.find(kind, namespace, as_str(ref.get("name")))
    if runtime is None:
        where = f"{namespace}/" if namespace else ""
        raise NotModelled(f"its runtime {kind} {where}{as_str(ref.get('name'))} is not in the input")
    jobset = _apply_trainer(as_dict(runtime.get("spec")), data)
    return one_workload(data, "TrainJob", TRAINER_GROUP, jobset_pod_sets(jobset))


def _trainjob_deadline(data: dict[str, Any]) -> float | None:
    value = as_int(get(data, "spec", "activeDeadlineSeconds"), 0)
    return float(value) if value > 0 else None


TRAINJOB = register(
    WorkloadKind(
        "TrainJob",
        (TRAINER_GROUP,),
        TRAINING,
        _trainjob_templates,
        KueueIntegration(
            "pkg/controller/jobs/trainjob/trainjob_controller.go",
            _trainjob_workloads,
            suspended=lambda d: flag(get(d, "spec", "suspend")),
            finished=lambda d: condition_true(d, "Complete", "Failed"),
            deadline=_trainjob_deadline,
        ),
    )
)
