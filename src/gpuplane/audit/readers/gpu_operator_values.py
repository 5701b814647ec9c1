"""GPU Operator Helm values (`values.yaml`, `-f` overrides): audited like a ClusterPolicy spec.

The values have no `kind`; they are recognised by the chart's top-level sections (NVIDIA/gpu-operator
deployments/gpu-operator/values.yaml: `toolkit` and `driver`, `devicePlugin`, `operator`,
`dcgmExporter`, `migManager`, `gfd`) and read as one object of the pseudo-kind `GPUOperatorValues`.
"""

from __future__ import annotations

from typing import Any

from gpuplane.audit.objects import K8sObject, as_str
from gpuplane.audit.readers.registry import Document, Inputs, Reader, register_reader

GPU_OPERATOR_VALUES = "GPUOperatorValues"
HELM_VALUE_KEYS = ("driver", "devicePlugin", "operator", "dcgmExporter", "migManager", "gfd")


def recognises(data: Any) -> bool:
    """A mapping without `kind` holding the chart's `toolkit` section and one of its others."""
    return (
        isinstance(data, dict)
        and not as_str(data.get("kind"))
        and isinstance(data.get("toolkit"), dict)
        and any(k in data for k in HELM_VALUE_KEYS)
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
