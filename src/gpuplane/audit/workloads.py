"""The audit's view of workload kinds: pod templates and GPU requests, from `gpuplane.workloads`.

The kinds themselves (where each keeps its pod templates) live in the shared registry
`gpuplane.workloads`, which explain uses too; this module adapts it to audit objects and keeps the
audit's own classification of kinds (batch vs serving) that several rules rely on.
"""

from __future__ import annotations

from typing import Any

from gpuplane.audit.objects import K8sObject, Path
from gpuplane.errors import InputError
from gpuplane.kube.quantity import QuantityRangeError
from gpuplane.workloads import (
    BATCH,
    GPU_RESOURCE_PREFIXES,
    NON_WORKLOAD_KINDS,
    SERVING,
    TRAINING,
    Container,
    PodTemplate,
    is_gpu_resource,
    kind_names,
    not_understood,
    quantity,
)
from gpuplane.workloads import pod_templates as _templates
from gpuplane.workloads.serving import KNATIVE_GROUP

__all__ = [
    "BATCH_KINDS",
    "GPU_RESOURCE_PREFIXES",
    "KNATIVE_GROUP",
    "NON_WORKLOAD_KINDS",
    "SERVING_KINDS",
    "Container",
    "PodTemplate",
    "check_gpu_quantities",
    "checked_quantity",
    "is_gpu_resource",
    "not_understood",
    "pod_templates",
    "quantity",
]

#: Kinds audit treats as batch work and as serving work: the workload registry's categories
#: (`gpuplane.workloads`), never a hand list (issue 20: the lists had drifted from the registry).
BATCH_KINDS = kind_names(BATCH, TRAINING)
SERVING_KINDS = kind_names(SERVING)


def pod_templates(obj: K8sObject) -> list[PodTemplate]:
    """Every pod template of a workload object (empty for non-workloads)."""
    return _templates(obj.data)


def checked_quantity(obj: K8sObject, path: Path, value: Any) -> float | None:
    """`quantity`, with a value out of range as a located InputError at `path` of `obj`."""
    try:
        return quantity(value)
    except QuantityRangeError as exc:
        line, column = obj.pos(path, key=False)
        raise InputError.single(
            obj.file, str(exc), line=line, column=column, path=".".join(map(str, path))
        ) from None


def check_gpu_quantities(obj: K8sObject, templates: list[PodTemplate]) -> None:
    """Every GPU request and limit of the templates is a readable quantity in range (InputError if not)."""
    for template in templates:
        for c in template.containers:
            for section in ("requests", "limits"):
                for key, value in c.resources(section).items():
                    if is_gpu_resource(str(key)):
                        checked_quantity(obj, (*c.path, "resources", section, str(key)), value)
