"""GKE node pools: `gcloud container node-pools list --format=json` (a list), `node-pools describe`
(one pool) and `gcloud container clusters describe` (the cluster, its pools under `nodePools`).

Field names are the GKE NodePool REST resource's (container/v1 projects.locations.clusters.nodePools:
`config.machineType`, `config.accelerators[].acceleratorCount` and `gpuSharingConfig`,
`autoscaling`, `initialNodeCount`, `locations`, `config.taints`, `placementPolicy`; read 2026-12-01).
"""

from __future__ import annotations

import re
from typing import Any

from gpuplane.audit.objects import Path, as_dict, as_list, as_str, get
from gpuplane.audit.pools import Pool, classes_from, str_labels, to_int
from gpuplane.audit.readers.registry import Document, Inputs, Reader, register_reader
from gpuplane.catalog import load_catalog
from gpuplane.vocab import GPU_RESOURCE, GPU_TAINT_EFFECT, GPU_TAINT_KEY, GPU_TAINT_VALUE

GKE_GPU_MACHINE = re.compile(r"^(a2|a3|a4|g2|g4)-[a-z]+-?(\d+)?g?", re.IGNORECASE)
GKE_GPU_COUNT = re.compile(r"-(\d+)g$")
POOLS_KEY = "nodePools"  # `gcloud container clusters describe`


def is_gke_list(data: Any) -> bool:
    """A node pool (`node-pools describe`) or a non-empty list of them (`node-pools list`)."""
    items = data if isinstance(data, list) else [data]
    return bool(items) and all(
        isinstance(i, dict) and isinstance(i.get("config"), dict) and "machineType" in i["config"]
        for i in items
    )


_GKE_EFFECT = {
    "NO_SCHEDULE": "NoSchedule",
    "PREFER_NO_SCHEDULE": "PreferNoSchedule",
    "NO_EXECUTE": "NoExecute",
}


def gke_pools(items: list[Any], file: str, root: Any, prefix: Path = ()) -> list[Pool]:
    """Node pools from `gcloud container node-pools list --format=json` (or `clusters describe`'s `nodePools`)."""
    pools: list[Pool] = []
    for i, np in enumerate(items):
        if not isinstance(np, dict):
            continue
        path: Path = (*prefix, i) if prefix or isinstance(root, list) else ()
        pools.append(_gke_pool(np, file, root, path))
    # GKE taints GPU nodes with the device plugin's GPU taint itself when the cluster also has
    # non-GPU node pools (GKE docs, "Run GPUs in Standard node pools"). One pool on its own
    # (`node-pools describe`) does not show the others: give it the benefit of the doubt.
    if any(not p.gpu for p in pools) or (isinstance(root, dict) and not prefix):
        for p in pools:
            if p.gpu and not any(t[0] == GPU_TAINT_KEY for t in p.taints):
                p.taints.append((GPU_TAINT_KEY, GPU_TAINT_VALUE, GPU_TAINT_EFFECT))
    return pools


def _gke_pool(np: dict[str, Any], file: str, root: Any, path: Path) -> Pool:
    config = as_dict(np.get("config"))
    p = Pool(name=as_str(np.get("name")), source="gke", file=file, root=root, path=path, kind="NodePool")
    machine = as_str(config.get("machineType"))
    accels = [a for a in as_list(config.get("accelerators")) if isinstance(a, dict)]
    count = sum(to_int(a.get("acceleratorCount")) or 0 for a in accels)
    if not count:
        sku = load_catalog().vm_sku("gke", machine)
        m = GKE_GPU_COUNT.search(machine)
        count = sku.gpus if sku else (int(m.group(1)) if m and GKE_GPU_MACHINE.match(machine) else 0)
    p.gpu = bool(count) or bool(GKE_GPU_MACHINE.match(machine))
    p.gpus_per_node = count or None
    if count:
        p.resources = {GPU_RESOURCE: count}
    for a in accels:
        share = as_str(get(a, "gpuSharingConfig", "gpuSharingStrategy")).upper()
        if share == "TIME_SHARING":
            p.sharing = "time-slicing"
        elif share == "MPS":
            p.sharing = "mps"
        elif a.get("gpuPartitionSize"):
            p.sharing = "mig"
    auto = as_dict(np.get("autoscaling"))
    if auto.get("enabled") is True:
        key = "totalMinNodeCount" if "totalMinNodeCount" in auto else "minNodeCount"
        p.min_nodes, p.fields["min"] = to_int(auto.get(key)) or 0, ("autoscaling", key)
    else:
        p.min_nodes, p.fields["min"] = to_int(np.get("initialNodeCount")), ("initialNodeCount",)
        p.min_note = " (autoscaling is off, so the initial node count stays)"
    p.spot = config.get("spot") is True or config.get("preemptible") is True
    p.fields["spot"] = ("config", "spot") if "spot" in config else ("config", "preemptible")
    if "locations" in np:
        p.zones, p.fields["zones"] = [as_str(z) for z in as_list(np.get("locations"))], ("locations",)
    else:
        p.zones_known = False
    p.taints = [
        (
            as_str(t.get("key")),
            as_str(t.get("value")),
            _GKE_EFFECT.get(as_str(t.get("effect")), as_str(t.get("effect"))),
        )
        for t in as_list(config.get("taints"))
        if isinstance(t, dict)
    ]
    p.fields["taints"] = ("config", "taints") if "taints" in config else ("name",)
    p.labels = str_labels(config.get("labels"))
    p.classes = classes_from(p.name, p.labels)
    p.compact_placement = as_str(get(np, "placementPolicy", "type")).upper() == "COMPACT"
    return p


def recognises(data: Any) -> bool:
    """A pool, a list of pools, or a cluster whose `nodePools` are pools."""
    return is_gke_list(data) or (isinstance(data, dict) and is_gke_list(data.get(POOLS_KEY)))


def read(doc: Document) -> Inputs:
    """The node pools of one document."""
    data = doc.data
    if isinstance(data, dict) and POOLS_KEY in data and "config" not in data:
        return Inputs(pools=gke_pools(data[POOLS_KEY], doc.file, data, (POOLS_KEY,)))
    return Inputs(pools=gke_pools(data if isinstance(data, list) else [data], doc.file, data))


READER = register_reader(
    Reader(
        name="gke",
        reads="GKE node pools (`gcloud container node-pools list/describe --format=json`, `clusters describe`)",
        recognises=recognises,
        read=read,
    )
)
