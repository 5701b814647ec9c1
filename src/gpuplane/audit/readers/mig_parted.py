"""mig-parted config files (`version: v1`, `mig-configs:`): read as one `MigPartedConfig` object.

The format is NVIDIA/mig-parted's (api/spec/v1/spec.go @bd7160f; `gpuplane.audit.migparted`). The
same text inside a ConfigMap (the GPU Operator MIG manager's `config.yaml` key) is a Kubernetes
object and is read by the kubernetes reader; the MIG rules read both.
"""

from __future__ import annotations

from typing import Any

from gpuplane.audit.migparted import MIG_PARTED_CONFIG, is_mig_parted
from gpuplane.audit.objects import K8sObject
from gpuplane.audit.readers.registry import Document, Inputs, Reader, register_reader


def recognises(data: Any) -> bool:
    """A mapping without `kind` holding `mig-configs`."""
    return is_mig_parted(data)


def read(doc: Document) -> Inputs:
    """One `MigPartedConfig` object."""
    doc.data["kind"] = MIG_PARTED_CONFIG
    return Inputs(objects=[K8sObject(doc.data, doc.file, doc.line)])


READER = register_reader(
    Reader(name="mig-parted", reads="mig-parted configs (`mig-configs`)", recognises=recognises, read=read)
)
