"""Karpenter NodePools (karpenter.sh/v1): GPU-ness, capacity type, zones and taints from the template.

Field names are Karpenter's NodePool v1 (`spec.template.spec.requirements`, `taints`,
`spec.template.metadata.labels`); the well-known requirement keys of the AWS provider, EKS Auto
Mode and the Azure provider, and the capacity-type key, come from `gpuplane.vocab` (sources in
vocab/names.yaml).
"""

from __future__ import annotations

import re
from typing import Any

from gpuplane.audit.objects import as_dict, as_list, as_str, get
from gpuplane.audit.pools import AWS_GPU_INSTANCE, Pool, classes_from, single_accelerator, str_labels
from gpuplane.audit.readers.registry import Document, Inputs, Reader, register_reader
from gpuplane.catalog import load_catalog
from gpuplane.vocab import (
    GPU_RESOURCE,
    INSTANCE_TYPE_LABEL,
    KARPENTER_CAPACITY_TYPE_LABEL,
    KARPENTER_GPU_KEYS,
    KARPENTER_GROUP,
    KARPENTER_INSTANCE_CATEGORY_KEYS,
    KARPENTER_INSTANCE_FAMILY_KEYS,
    KARPENTER_NODEPOOL_LABEL,
    ZONE_LABEL,
)

_AWS_GPU_FAMILY = re.compile(r"^(p[2-9][a-z]*|g[3-9][a-z]*|gr6)$")


def is_karpenter(data: Any) -> bool:
    """A Karpenter `NodePool` (apiVersion `karpenter.sh/...`)."""
    return (
        isinstance(data, dict)
        and as_str(data.get("kind")) == "NodePool"
        and as_str(data.get("apiVersion")).startswith(f"{KARPENTER_GROUP}/")
    )


Requirements = dict[str, tuple[int, str, list[str]]]  # key -> (index, operator, values)


def _allowed(reqs: Requirements, key: str) -> list[str]:
    """The values a requirement allows: those of an `In` term (a `NotIn` term allows the others)."""
    _index, operator, values = reqs.get(key, (0, "", []))
    return values if operator == "In" else []


def karpenter_pools(doc: dict[str, Any], file: str) -> list[Pool]:
    """A Karpenter NodePool (karpenter.sh/v1): GPU-ness, capacity type, zones and taints from its template."""
    spec = as_dict(get(doc, "spec", "template", "spec"))
    name = as_str(get(doc, "metadata", "name"))
    p = Pool(name=name, source="karpenter", file=file, root=doc, path=(), kind="NodePool")
    reqs: Requirements = {
        as_str(get(r, "key")): (i, as_str(get(r, "operator")), [as_str(v) for v in as_list(get(r, "values"))])
        for i, r in enumerate(as_list(spec.get("requirements")))
        if isinstance(r, dict)
    }
    types = _allowed(reqs, INSTANCE_TYPE_LABEL)
    families = [f for key in KARPENTER_INSTANCE_FAMILY_KEYS for f in _allowed(reqs, key)]
    categories = [_allowed(reqs, key) for key in KARPENTER_INSTANCE_CATEGORY_KEYS if key in reqs]
    p.gpu = (
        any(k in reqs and reqs[k][1] not in ("NotIn", "DoesNotExist") for k in KARPENTER_GPU_KEYS)
        or any(AWS_GPU_INSTANCE.match(t) for t in types)
        or any(_AWS_GPU_FAMILY.match(f) for f in families)
        or any(values and set(values) <= {"p", "g"} for values in categories)
    )
    counts = [sku.gpus for t in types if (sku := load_catalog().vm_sku("eks", t)) is not None]
    p.accelerator = single_accelerator("eks", types)
    if counts and len(counts) == len(types):
        p.gpus_per_node = max(counts)
        p.resources = {GPU_RESOURCE: p.gpus_per_node}
    p.min_nodes = 0  # Karpenter provisions on demand and has no minimum
    capacity = reqs.get(KARPENTER_CAPACITY_TYPE_LABEL)
    p.spot = capacity is not None and capacity[1] == "In" and "spot" in capacity[2]
    if capacity is not None:
        p.fields["spot"] = ("spec", "template", "spec", "requirements", capacity[0])
    zones = reqs.get(ZONE_LABEL)
    if zones is not None and zones[1] == "In":
        p.zones, p.fields["zones"] = zones[2], ("spec", "template", "spec", "requirements", zones[0])
    else:
        p.zones_known = False
    p.taints = [
        (as_str(t.get("key")), as_str(t.get("value")), as_str(t.get("effect")))
        for t in as_list(spec.get("taints"))
        if isinstance(t, dict)
    ]
    p.fields["taints"] = ("spec", "template", "spec", "taints") if "taints" in spec else ("metadata", "name")
    p.labels = str_labels(get(doc, "spec", "template", "metadata", "labels"))
    p.labels[KARPENTER_NODEPOOL_LABEL] = name
    p.classes = classes_from(name, p.labels)
    return [p]


def read(doc: Document) -> Inputs:
    """The one pool of a NodePool."""
    return Inputs(pools=karpenter_pools(doc.data, doc.file))


READER = register_reader(
    Reader(
        name="karpenter",
        reads="Karpenter `NodePool`s (also EKS Auto Mode's)",
        recognises=is_karpenter,
        read=read,
    )
)
