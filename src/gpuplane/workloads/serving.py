"""Serving kinds without a Kueue integration: KServe InferenceService and Knative Service.

KServe components embed a pod spec inline plus one runtime container (`model`, `pytorch`...);
multi-node serving adds a `workerSpec` pod spec. Kueue has no integration for either kind (their
pods are Deployments or Knative revisions); explain reports them as not managed by Kueue.
"""

from __future__ import annotations

from typing import Any

from gpuplane.workloads.fields import as_dict, get
from gpuplane.workloads.model import Container, PodTemplate
from gpuplane.workloads.registry import SERVING, WorkloadKind, register
from gpuplane.workloads.templates import inline_spec, present, template_at

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
