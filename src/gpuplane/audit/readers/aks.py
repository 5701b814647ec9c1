"""AKS agent pools: `az aks nodepool list -o json` (a list), `az aks nodepool show` (one pool) and
`az aks show` (the cluster, its pools under `agentPoolProfiles`).

Field names are the AKS AgentPool resource's as the az CLI prints them (camelCase: `vmSize`,
`count`, `enableAutoScaling`, `minCount`, `scaleSetPriority`, `availabilityZones`, `nodeTaints`,
`nodeLabels`, `gpuInstanceProfile`, `mode`; Azure AKS REST API AgentPool / ManagedClusterAgentPoolProfile,
read 2026-12-01).
"""

from __future__ import annotations

import re
from typing import Any

from gpuplane.audit.objects import Path, as_list, as_str
from gpuplane.audit.pools import Pool, Taint, classes_from, single_accelerator, str_labels, to_int
from gpuplane.audit.readers.registry import Document, Inputs, Reader, register_reader
from gpuplane.catalog import load_catalog
from gpuplane.catalog.providers import provider_facts
from gpuplane.vocab import GPU_RESOURCE

# Azure N-family with GPUs: NC (compute), ND (deep learning), NV (visualization); NP is FPGA.
AKS_GPU_VM = re.compile(r"^standard_n[cdv]", re.IGNORECASE)
PROFILES_KEY = "agentPoolProfiles"  # `az aks show`


def is_aks_list(data: Any) -> bool:
    """An agent pool (`nodepool show`) or a non-empty list of them (`nodepool list`)."""
    items = data if isinstance(data, list) else [data]
    return bool(items) and all(isinstance(i, dict) and "vmSize" in i for i in items)


def _aks_taint(text: str) -> Taint:
    rest, _, effect = text.rpartition(":")
    key, _, value = rest.partition("=")
    return (key, value, effect)


def aks_pools(items: list[Any], file: str, root: Any, prefix: Path = ()) -> list[Pool]:
    """Agent pools from `az aks nodepool list -o json` (a list), `nodepool show` (one object) or
    `az aks show` (`agentPoolProfiles`)."""
    catalog = load_catalog()
    pools: list[Pool] = []
    for i, ap in enumerate(items):
        if not isinstance(ap, dict):
            continue
        vm = as_str(ap.get("vmSize"))
        path: Path = (*prefix, i) if prefix or isinstance(root, list) else ()
        p = Pool(name=as_str(ap.get("name")), source="aks", file=file, root=root, path=path, kind="AgentPool")
        p.gpu = bool(AKS_GPU_VM.match(vm))
        sku = catalog.vm_sku("aks", vm)
        p.gpus_per_node = sku.gpus if sku else None
        p.accelerator = single_accelerator("aks", [vm])
        if p.gpus_per_node:
            p.resources = {GPU_RESOURCE: p.gpus_per_node}
        if as_str(ap.get("gpuInstanceProfile")).upper().startswith("MIG"):
            # AKS partitions the GPUs (MIG1g..MIG7g); whether pods see the whole-GPU resource or
            # the MIG ones depends on the device plugin's MIG strategy, not on the pool.
            p.sharing, p.mig_layout_unknown = "mig", True
        if ap.get("enableAutoScaling") is True:
            p.min_nodes, p.fields["min"] = to_int(ap.get("minCount")), ("minCount",)
        else:
            p.min_nodes, p.fields["min"] = to_int(ap.get("count")), ("count",)
            p.min_note = " (autoscaling is off, so count is the minimum)"
        p.spot = as_str(ap.get("scaleSetPriority")).lower() == "spot"
        p.fields["spot"] = ("scaleSetPriority",)
        p.zones = [as_str(z) for z in as_list(ap.get("availabilityZones"))]
        p.fields["zones"] = ("availabilityZones",) if "availabilityZones" in ap else ("name",)
        p.taints = [_aks_taint(as_str(t)) for t in as_list(ap.get("nodeTaints"))]
        if p.spot:  # AKS taints every spot pool itself (catalog/data/providers.yaml aks.spot.taint)
            taint = provider_facts("aks")["spot"].get("taint")
            p.taints.append((taint["key"], taint["value"], taint["effect"]))
        p.fields["taints"] = ("nodeTaints",) if "nodeTaints" in ap else ("name",)
        p.labels = str_labels(ap.get("nodeLabels"))
        p.classes = classes_from(p.name, p.labels)
        p.compact_placement = bool(ap.get("proximityPlacementGroupId") or ap.get("proximityPlacementGroupID"))
        if as_str(ap.get("mode")).lower() == "system":
            p.classes.add("system")
        pools.append(p)
    return pools


def recognises(data: Any) -> bool:
    """A pool, a list of pools, or a cluster whose `agentPoolProfiles` are pools."""
    return is_aks_list(data) or (isinstance(data, dict) and is_aks_list(data.get(PROFILES_KEY)))


def read(doc: Document) -> Inputs:
    """The agent pools of one document."""
    data = doc.data
    if isinstance(data, dict) and PROFILES_KEY in data and "vmSize" not in data:
        return Inputs(pools=aks_pools(data[PROFILES_KEY], doc.file, data, (PROFILES_KEY,)))
    return Inputs(pools=aks_pools(data if isinstance(data, list) else [data], doc.file, data))


READER = register_reader(
    Reader(
        name="aks",
        reads="AKS node pools (`az aks nodepool list/show -o json`, `az aks show`)",
        recognises=recognises,
        read=read,
    )
)
