"""Kubernetes objects: any mapping with a `kind` (manifests, Helm/kustomize output, custom
resources), and `kind: <Kind>List` with `items` (`kubectl get -o yaml`), whose items inherit the
list's kind when they name none.

This is the general reader: it reads a document only when no specific reader recognises it (an
eksctl ClusterConfig or a Karpenter NodePool also has a `kind`). A mapping without a `kind` is not
a Kubernetes object and is not read here.
"""

from __future__ import annotations

from typing import Any

from gpuplane.audit.objects import K8sObject, as_str
from gpuplane.audit.readers.registry import Document, Inputs, Reader, register_reader

LIST_SUFFIX = "List"


def recognises(data: Any) -> bool:
    """A mapping with a non-empty `kind`."""
    return isinstance(data, dict) and bool(as_str(data.get("kind")))


def read(doc: Document) -> Inputs:
    """The object, or the items of a List."""
    data: dict[str, Any] = doc.data
    kind = as_str(data.get("kind"))
    items = data.get("items")
    if not (kind.endswith(LIST_SUFFIX) and isinstance(items, list)):
        return Inputs(objects=[K8sObject(data, doc.file, doc.line)])
    item_kind = kind.removesuffix(LIST_SUFFIX)
    out = Inputs()
    for item in items:
        if isinstance(item, dict):
            if not item.get("kind") and item_kind:
                item["kind"] = item_kind
            pos = getattr(item, "pos", None)
            out.objects.append(K8sObject(item, doc.file, pos[0] if pos else doc.line))
    return out


READER = register_reader(
    Reader(
        name="kubernetes",
        reads="Kubernetes objects (any `kind`, also `kind: List`)",
        recognises=recognises,
        read=read,
        general=True,
    )
)
