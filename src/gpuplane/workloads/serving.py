"""Serving kinds without a Kueue integration: KServe InferenceService and LLMInferenceService,
Knative Service, NVIDIA Dynamo's DynamoGraphDeployment.

KServe components embed a pod spec inline plus one runtime container (`model`, `pytorch`...);
multi-node serving adds a `workerSpec` pod spec. Kueue has no integration for these kinds (their
pods are Deployments, LeaderWorkerSets or Knative revisions); explain reports them as not managed
by Kueue.

KServe's `LLMInferenceService` (serving.kserve.io v1alpha1 and v1alpha2; the API llm-d deploys
through) keeps its pods as bare PodSpecs (kserve/kserve pkg/apis/serving/v1alpha1/
llm_inference_service_types.go, read at 01bfd23): the inline `WorkloadSpec` of the spec has
`replicas`, `labels`, `annotations` (added to the pods), `template` (the main or decode pod; the
head pod when multi-node) and `worker` (multi-node workers); `prefill` is a second `WorkloadSpec`
for disaggregated serving. `LLMInferenceServiceConfig` has the same spec but is a base the
services inherit (`baseRefs`), not a workload: it runs nothing (registry.NON_WORKLOAD_KINDS).

Dynamo's `DynamoGraphDeployment` (nvidia.com; ai-dynamo/dynamo deploy/operator api): in v1alpha1
`spec.services` maps a component name to `replicas`, `resources` (Dynamo's own items: `gpu`,
`cpu`, `memory` under `requests`/`limits`; the operator asks for the GPUs as the
vocab's GPU_RESOURCE names them), `envs` and `extraPodSpec` (pod fields plus `mainContainer`); v1beta1 has
`spec.components`, a list of `{name, type, replicas, podTemplate}` with an ordinary pod template.
"""

from __future__ import annotations

from typing import Any

from gpuplane.vocab import GPU_RESOURCE
from gpuplane.workloads.fields import Path, as_dict, as_list, as_str, get
from gpuplane.workloads.model import Container, PodTemplate
from gpuplane.workloads.registry import SERVING, WorkloadKind, register
from gpuplane.workloads.templates import containers_of, inline_spec, present, template_at

KNATIVE_GROUP = "serving.knative.dev"
KSERVE_GROUP = "serving.kserve.io"
KSERVE_COMPONENTS = ("predictor", "transformer", "explainer")
# KServe predictor keys that hold one container-like model server spec.
KSERVE_RUNTIMES = (
    "model",
    "pytorch",
    "tensorflow",
    "triton",
    "huggingface",
    "sklearn",
    "xgboost",
    "onnx",
    "lightgbm",
    "paddle",
    "pmml",
    "custom",
)
KSERVE_CONTAINER = "kserve-container"


def _kserve(data: dict[str, Any]) -> list[PodTemplate]:
    out: list[PodTemplate] = []
    for comp in KSERVE_COMPONENTS:
        spec = get(data, "spec", comp)
        if not isinstance(spec, dict):
            continue
        t = inline_spec(spec, ("spec", comp), as_dict(data.get("metadata")), comp)
        for runtime in KSERVE_RUNTIMES:
            if isinstance(spec.get(runtime), dict):
                server = spec[runtime]
                if "name" not in server:  # KServe names the runtime container kserve-container
                    server = {**server, "name": KSERVE_CONTAINER}
                t.containers.append(Container(server, ("spec", comp, runtime)))
        out.append(t)
        worker = spec.get("workerSpec")  # multi-node serving: the worker pods' inline PodSpec
        if isinstance(worker, dict):
            out.append(inline_spec(worker, ("spec", comp, "workerSpec"), t.meta, f"{comp}-worker"))
    return out


register(WorkloadKind("InferenceService", (KSERVE_GROUP,), SERVING, _kserve))
register(
    WorkloadKind(
        "Service",
        (KNATIVE_GROUP,),
        SERVING,
        lambda d: present(template_at(d, ("spec", "template"))),
        group_sensitive=True,
    )
)


LLM_WORKLOADS = ("", "prefill")  # the inline (decode/main) WorkloadSpec and the prefill one
LLM_PODS = (("template", ""), ("worker", "worker"))


def _llm_inference_service(data: dict[str, Any]) -> list[PodTemplate]:
    out: list[PodTemplate] = []
    for part in LLM_WORKLOADS:
        base: Path = ("spec", part) if part else ("spec",)
        workload = get(data, *base)
        if not isinstance(workload, dict):
            continue
        meta = {
            "labels": as_dict(workload.get("labels")),
            "annotations": as_dict(workload.get("annotations")),
        }
        for key, role in LLM_PODS:
            spec = workload.get(key)
            if isinstance(spec, dict):
                name = "-".join(r for r in (part or "main", role) if r)
                out.append(inline_spec(spec, (*base, key), meta, name))
    return out


DYNAMO_GROUP = "nvidia.com"
# Dynamo's resource item names and the Kubernetes resources the operator asks for.
DYNAMO_RESOURCES = {"gpu": GPU_RESOURCE, "cpu": "cpu", "memory": "memory"}


def _dynamo_container(service: dict[str, Any], path: Path) -> Container | None:
    """The main container of a v1alpha1 service, with Dynamo's resources in Kubernetes terms."""
    main = get(service, "extraPodSpec", "mainContainer")
    resources = as_dict(service.get("resources"))
    if not isinstance(main, dict) and not resources:
        return None
    data: dict[str, Any] = dict(main) if isinstance(main, dict) else {}
    data.setdefault("name", "main")
    if resources:
        data["resources"] = {
            section: {
                DYNAMO_RESOURCES.get(str(k), str(k)): v for k, v in as_dict(resources.get(section)).items()
            }
            for section in ("requests", "limits")
            if isinstance(resources.get(section), dict)
        }
    envs = [e for e in as_list(service.get("envs")) if isinstance(e, dict)]
    if envs:
        data["env"] = [*as_list(data.get("env")), *envs]
    return Container(data, path)


def _dynamo(data: dict[str, Any]) -> list[PodTemplate]:
    out: list[PodTemplate] = []
    for i, component in enumerate(as_list(get(data, "spec", "components"))):  # v1beta1
        if isinstance(component, dict):
            t = template_at(data, ("spec", "components", i, "podTemplate"), as_str(component.get("name")))
            if t is not None:
                out.append(t)
    for name, service in as_dict(get(data, "spec", "services")).items():  # v1alpha1
        if not isinstance(service, dict):
            continue
        path: Path = ("spec", "services", str(name))
        pod = as_dict(service.get("extraPodSpec"))
        t = PodTemplate(
            spec=pod, path=(*path, "extraPodSpec"), meta={"labels": as_dict(service.get("labels"))}
        )
        t.role = str(name)
        t.containers = containers_of(pod, t.path)
        main = _dynamo_container(service, path)
        if main is not None:
            t.containers.append(main)
        if t.containers:
            out.append(t)
    return out


register(WorkloadKind("LLMInferenceService", (KSERVE_GROUP,), SERVING, _llm_inference_service))
register(WorkloadKind("DynamoGraphDeployment", (DYNAMO_GROUP,), SERVING, _dynamo))
