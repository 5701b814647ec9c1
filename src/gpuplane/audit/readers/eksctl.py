"""eksctl node groups: the `managedNodeGroups` and `nodeGroups` of an eksctl `ClusterConfig`.

Field names and defaults are eksctl's ClusterConfig schema (eksctl.io/v1alpha5: `instanceType`,
`instanceTypes`, `instancesDistribution`, `minSize`, `desiredCapacity`, `spot`,
`availabilityZones`, `subnets`, `taints` as a list or the older map, `labels`, `efaEnabled`,
`placement.groupName`; eksctl.io schema docs, read 2026-12-01).
"""

from __future__ import annotations

from typing import Any

from gpuplane.audit.objects import as_list, as_str, get
from gpuplane.audit.pools import (
    AWS_GPU_INSTANCE,
    Pool,
    Taint,
    classes_from,
    single_accelerator,
    str_labels,
    to_int,
)
from gpuplane.audit.readers.registry import Document, Inputs, Reader, register_reader
from gpuplane.catalog import load_catalog
from gpuplane.vocab import GPU_RESOURCE

EKSCTL_DEFAULT_NODES = 2  # eksctl: desiredCapacity defaults to 2 and minSize to desiredCapacity


def is_eksctl(data: Any) -> bool:
    """An eksctl `ClusterConfig` (apiVersion `eksctl.io/...`)."""
    return (
        isinstance(data, dict)
        and as_str(data.get("kind")) == "ClusterConfig"
        and "eksctl.io" in as_str(data.get("apiVersion"))
    )


def _eksctl_taints(value: Any) -> list[Taint]:
    """eksctl taints: a list of {key, value, effect} or the older map `key: value:effect`."""
    out: list[Taint] = []
    if isinstance(value, list):
        for t in value:
            if isinstance(t, dict):
                out.append((as_str(t.get("key")), as_str(t.get("value")), as_str(t.get("effect"))))
    elif isinstance(value, dict):
        for k, v in value.items():
            text = as_str(v)
            val, _, effect = text.rpartition(":") if ":" in text else (text, "", "")
            out.append((str(k), val, effect))
    return out


def eksctl_pools(doc: Any, file: str) -> list[Pool]:
    """Node groups of an eksctl ClusterConfig."""
    pools: list[Pool] = []
    cluster_zones = [as_str(z) for z in as_list(doc.get("availabilityZones"))] or None
    catalog = load_catalog()
    for section in ("managedNodeGroups", "nodeGroups"):
        for i, ng in enumerate(as_list(doc.get(section))):
            if not isinstance(ng, dict):
                continue
            types = [as_str(ng.get("instanceType"))] if ng.get("instanceType") else []
            types += [as_str(t) for t in as_list(ng.get("instanceTypes"))]
            types += [as_str(t) for t in as_list(get(ng, "instancesDistribution", "instanceTypes"))]
            types = [t for t in types if t]
            p = Pool(
                name=as_str(ng.get("name")),
                source="eksctl",
                file=file,
                root=doc,
                path=(section, i),
                kind="NodeGroup" if section == "nodeGroups" else "ManagedNodeGroup",
            )
            p.gpu = any(AWS_GPU_INSTANCE.match(t) for t in types)
            counts = [sku.gpus for t in types if (sku := catalog.vm_sku("eks", t)) is not None]
            p.gpus_per_node = min(counts) if counts else None
            p.accelerator = single_accelerator("eks", types)
            if counts and len(counts) == len(types) and max(counts):
                # a pod may land on the largest type; an unknown type leaves the size unknown
                p.resources = {GPU_RESOURCE: max(counts)}
            _eksctl_size(p, ng)
            pct = get(ng, "instancesDistribution", "onDemandPercentageAboveBaseCapacity")
            p.spot = ng.get("spot") is True or (pct is not None and (to_int(pct) or 0) < 100)
            p.fields["spot"] = ("spot",) if "spot" in ng else ("instancesDistribution",)
            _eksctl_zones(p, ng, cluster_zones)
            p.taints = _eksctl_taints(ng.get("taints"))
            p.fields["taints"] = ("taints",) if "taints" in ng else ()
            p.labels = str_labels(ng.get("labels"))
            p.classes = classes_from(p.name, p.labels)
            p.compact_placement = bool(ng.get("efaEnabled")) or bool(get(ng, "placement", "groupName"))
            p.fabric = "EFA" if ng.get("efaEnabled") else ""
            pools.append(p)
    return pools


def _eksctl_size(p: Pool, ng: dict[str, Any]) -> None:
    if "minSize" in ng:
        p.min_nodes, p.fields["min"] = to_int(ng.get("minSize")), ("minSize",)
    elif "desiredCapacity" in ng:
        p.min_nodes, p.fields["min"] = to_int(ng.get("desiredCapacity")), ("desiredCapacity",)
        p.min_note = " (eksctl sets minSize to desiredCapacity when minSize is omitted)"
    else:
        p.min_nodes, p.fields["min"] = EKSCTL_DEFAULT_NODES, ()
        p.min_note = " (eksctl's default when minSize and desiredCapacity are omitted)"


def _eksctl_zones(p: Pool, ng: dict[str, Any], cluster_zones: list[str] | None) -> None:
    if ng.get("availabilityZones"):
        p.zones, p.fields["zones"] = (
            [as_str(z) for z in as_list(ng["availabilityZones"])],
            ("availabilityZones",),
        )
    elif isinstance(ng.get("subnets"), list) and ng["subnets"]:
        p.zones, p.fields["zones"] = [as_str(s) for s in ng["subnets"]], ("subnets",)
    elif cluster_zones:
        p.zones = cluster_zones
    else:
        p.zones_known = False  # eksctl spreads over every cluster subnet by default


def read(doc: Document) -> Inputs:
    """The node groups of one ClusterConfig."""
    return Inputs(pools=eksctl_pools(doc.data, doc.file))


READER = register_reader(
    Reader(name="eksctl", reads="eksctl `ClusterConfig` node groups", recognises=is_eksctl, read=read)
)
