"""GPU Operator Helm values (`values.yaml`, `-f` overrides): audited like a ClusterPolicy spec.

The values have no `kind`; they are recognised by the chart's top-level sections (NVIDIA/gpu-operator
deployments/gpu-operator/values.yaml: `toolkit` and `driver`, `devicePlugin`, `operator`,
`dcgmExporter`, `migManager`, `gfd`) and read as one object of the pseudo-kind `GPUOperatorValues`.
An override file (`-f`) that only pins the operator (`operator.version: v24.3.0`; the chart's
values.yaml: "If version is not specified, then default is to use chart.AppVersion") is one too.
"""

from __future__ import annotations

from typing import Any

from gpuplane.audit.objects import K8sObject, as_str
from gpuplane.audit.readers.registry import Document, Inputs, Reader, register_reader

GPU_OPERATOR_VALUES = "GPUOperatorValues"
HELM_VALUE_KEYS = ("driver", "devicePlugin", "operator", "dcgmExporter", "migManager", "gfd")


def recognises(data: Any) -> bool:
    """A mapping without `kind` holding the chart's `toolkit` section and one of its others, or
    an `operator` section that pins the operator's `version`."""
    if not isinstance(data, dict) or as_str(data.get("kind")):
        return False
    operator = data.get("operator")
    pins_operator = isinstance(operator, dict) and bool(as_str(operator.get("version")))
    return pins_operator or (
        isinstance(data.get("toolkit"), dict) and any(k in data for k in HELM_VALUE_KEYS)
    )


def read(doc: Document) -> Inputs:
    """One `GPUOperatorValues` object."""
    doc.data["kind"] = GPU_OPERATOR_VALUES
    return Inputs(objects=[K8sObject(doc.data, doc.file, doc.line)])


READER = register_reader(
    Reader(
        name="gpu-operator-values",
        reads="GPU Operator Helm values",
        recognises=recognises,
        read=read,
    )
)
