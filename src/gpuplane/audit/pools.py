"""Node pools as the audit sees them, whatever they were declared in.

One `Pool` record for an eksctl node group, an AKS agent pool (`az aks nodepool list -o json`), a
GKE node pool (`gcloud container node-pools list --format=json`) or a gpuplane platform-spec pool,
with the position of each field in its file so findings point at the offending line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gpuplane.audit.objects import Path, Pos, as_dict, as_list, as_str, get, position
from gpuplane.catalog import load_catalog

Taint = tuple[str, str, str]  # key, value, effect (Kubernetes spelling)
CLASS_LABEL_KEYS = (
    "gpuplane.io/workload-class",
    "workload-class",
    "workloadClass",
    "workload",
    "workload-type",
    "purpose",
    "role",
    "tier",
    "node-role",
    "nodepool-type",
    "usage",
)
_AWS_GPU = re.compile(r"^(p[2-9]|g[3-9]|gr6|trn)[a-z0-9-]*\.", re.IGNORECASE)
# Azure N-family with GPUs: NC (compute), ND (deep learning), NV (visualization); NP is FPGA.
_AKS_GPU = re.compile(r"^standard_n[cdv]", re.IGNORECASE)
_GKE_GPU = re.compile(r"^(a2|a3|a4|g2|g4)-[a-z]+-?(\d+)?g?", re.IGNORECASE)
_GKE_COUNT = re.compile(r"-(\d+)g$")
EKSCTL_DEFAULT_NODES = 2  # eksctl: desiredCapacity defaults to 2 and minSize to desiredCapacity


@dataclass
class Pool:
    """A node pool with what the rules need, and where each field was written."""

    name: str
    source: str
    file: str
    root: Any
    path: Path
    kind: str
    gpu: bool = False
    gpus_per_node: int | None = None
    resources: dict[str, int] = field(default_factory=dict)
    min_nodes: int | None = None
    min_note: str = ""
    spot: bool = False
    zones: list[str] | None = None
    zones_known: bool = True
    taints: list[Taint] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    classes: set[str] = field(default_factory=set)
    driver_version: str | None = None
    sharing: str = "exclusive"
    waivers: set[str] = field(default_factory=set)
    compact_placement: bool = False
    mig_layout_unknown: bool = False
    fields: dict[str, Path] = field(default_factory=dict)

    def pos(self, name: str, *, key: bool = True) -> Pos:
        """Position of a named field of the pool (falls back to the pool entry itself)."""
        rel = self.fields.get(name)
        path = (*self.path, *rel) if rel is not None else self.path
        return position(self.root, path, key=key)

    def mig_resources(self) -> set[str]:
        return {r for r in self.resources if r.startswith("nvidia.com/mig-")}


def classes_from(name: str, labels: dict[str, str]) -> set[str]:
    """Workload classes a pool is meant for, from class-like labels, else from its name."""
    found: set[str] = set()
    texts = [labels[k].lower() for k in CLASS_LABEL_KEYS if k in labels]
    if not texts:
        texts = [t for t in re.split(r"[-_.]", name.lower()) if t]
    for text in texts:
        if "train" in text:
            found.add("training")
        if "batch" in text:
            found.add("batch")
        if "infer" in text or "serv" in text:
            found.add("inference")
    return found


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        return int(as_str(value))
    except ValueError:
        return None


def _str_labels(value: Any) -> dict[str, str]:
    return {str(k): as_str(v) for k, v in as_dict(value).items()}


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
            p.gpu = any(_AWS_GPU.match(t) for t in types)
            counts = [sku.gpus for t in types if (sku := catalog.vm_sku("eks", t)) is not None]
            p.gpus_per_node = min(counts) if counts else None
            if counts and len(counts) == len(types) and max(counts):
                # a pod may land on the largest type; an unknown type leaves the size unknown
                p.resources = {"nvidia.com/gpu": max(counts)}
            _eksctl_size(p, ng)
            pct = get(ng, "instancesDistribution", "onDemandPercentageAboveBaseCapacity")
            p.spot = ng.get("spot") is True or (pct is not None and (_int(pct) or 0) < 100)
            p.fields["spot"] = ("spot",) if "spot" in ng else ("instancesDistribution",)
            _eksctl_zones(p, ng, cluster_zones)
            p.taints = _eksctl_taints(ng.get("taints"))
            p.fields["taints"] = ("taints",) if "taints" in ng else ()
            p.labels = _str_labels(ng.get("labels"))
            p.classes = classes_from(p.name, p.labels)
            p.compact_placement = bool(ng.get("efaEnabled")) or bool(get(ng, "placement", "groupName"))
            pools.append(p)
    return pools


def _eksctl_size(p: Pool, ng: dict[str, Any]) -> None:
    if "minSize" in ng:
        p.min_nodes, p.fields["min"] = _int(ng.get("minSize")), ("minSize",)
    elif "desiredCapacity" in ng:
        p.min_nodes, p.fields["min"] = _int(ng.get("desiredCapacity")), ("desiredCapacity",)
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
        p.gpu = bool(_AKS_GPU.match(vm))
        sku = catalog.vm_sku("aks", vm)
        p.gpus_per_node = sku.gpus if sku else None
        if p.gpus_per_node:
            p.resources = {"nvidia.com/gpu": p.gpus_per_node}
        if as_str(ap.get("gpuInstanceProfile")).upper().startswith("MIG"):
            # AKS partitions the GPUs (MIG1g..MIG7g); whether pods see nvidia.com/gpu or
            # nvidia.com/mig-<profile> depends on the device plugin's MIG strategy, not on the pool.
            p.sharing, p.mig_layout_unknown = "mig", True
        if ap.get("enableAutoScaling") is True:
            p.min_nodes, p.fields["min"] = _int(ap.get("minCount")), ("minCount",)
        else:
            p.min_nodes, p.fields["min"] = _int(ap.get("count")), ("count",)
            p.min_note = " (autoscaling is off, so count is the minimum)"
        p.spot = as_str(ap.get("scaleSetPriority")).lower() == "spot"
        p.fields["spot"] = ("scaleSetPriority",)
        p.zones = [as_str(z) for z in as_list(ap.get("availabilityZones"))]
        p.fields["zones"] = ("availabilityZones",) if "availabilityZones" in ap else ("name",)
        p.taints = [_aks_taint(as_str(t)) for t in as_list(ap.get("nodeTaints"))]
        if p.spot:  # AKS taints every spot pool itself
            p.taints.append(("kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule"))
        p.fields["taints"] = ("nodeTaints",) if "nodeTaints" in ap else ("name",)
        p.labels = _str_labels(ap.get("nodeLabels"))
        p.classes = classes_from(p.name, p.labels)
        p.compact_placement = bool(ap.get("proximityPlacementGroupId") or ap.get("proximityPlacementGroupID"))
        if as_str(ap.get("mode")).lower() == "system":
            p.classes.add("system")
        pools.append(p)
    return pools


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
    # GKE taints GPU nodes nvidia.com/gpu=present:NoSchedule itself when the cluster also has
    # non-GPU node pools (GKE docs, "Run GPUs in Standard node pools"). One pool on its own
    # (`node-pools describe`) does not show the others: give it the benefit of the doubt.
    if any(not p.gpu for p in pools) or (isinstance(root, dict) and not prefix):
        for p in pools:
            if p.gpu and not any(t[0] == "nvidia.com/gpu" for t in p.taints):
                p.taints.append(("nvidia.com/gpu", "present", "NoSchedule"))
    return pools


def _gke_pool(np: dict[str, Any], file: str, root: Any, path: Path) -> Pool:
    config = as_dict(np.get("config"))
    p = Pool(name=as_str(np.get("name")), source="gke", file=file, root=root, path=path, kind="NodePool")
    machine = as_str(config.get("machineType"))
    accels = [a for a in as_list(config.get("accelerators")) if isinstance(a, dict)]
    count = sum(_int(a.get("acceleratorCount")) or 0 for a in accels)
    if not count:
        sku = load_catalog().vm_sku("gke", machine)
        m = _GKE_COUNT.search(machine)
        count = sku.gpus if sku else (int(m.group(1)) if m and _GKE_GPU.match(machine) else 0)
    p.gpu = bool(count) or bool(_GKE_GPU.match(machine))
    p.gpus_per_node = count or None
    if count:
        p.resources = {"nvidia.com/gpu": count}
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
        p.min_nodes, p.fields["min"] = _int(auto.get(key)) or 0, ("autoscaling", key)
    else:
        p.min_nodes, p.fields["min"] = _int(np.get("initialNodeCount")), ("initialNodeCount",)
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
    p.labels = _str_labels(config.get("labels"))
    p.classes = classes_from(p.name, p.labels)
    p.compact_placement = as_str(get(np, "placementPolicy", "type")).upper() == "COMPACT"
    return p


def is_aks_list(data: Any) -> bool:
    items = data if isinstance(data, list) else [data]
    return bool(items) and all(isinstance(i, dict) and "vmSize" in i for i in items)


def is_gke_list(data: Any) -> bool:
    items = data if isinstance(data, list) else [data]
    return bool(items) and all(
        isinstance(i, dict) and isinstance(i.get("config"), dict) and "machineType" in i["config"]
        for i in items
    )


def is_eksctl(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and as_str(data.get("kind")) == "ClusterConfig"
        and "eksctl.io" in as_str(data.get("apiVersion"))
    )


KARPENTER_GPU_KEYS = (
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "karpenter.azure.com/sku-gpu-count",
    "karpenter.azure.com/sku-gpu-name",
    "karpenter.azure.com/sku-gpu-manufacturer",
)
_AWS_GPU_FAMILY = re.compile(r"^(p[2-9][a-z]*|g[3-9][a-z]*|gr6)$")


def is_karpenter(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and as_str(data.get("kind")) == "NodePool"
        and as_str(data.get("apiVersion")).startswith("karpenter.sh/")
    )


def karpenter_pools(doc: dict[str, Any], file: str) -> list[Pool]:
    """A Karpenter NodePool (karpenter.sh/v1): GPU-ness, capacity type, zones and taints from its template."""
    spec = as_dict(get(doc, "spec", "template", "spec"))
    name = as_str(get(doc, "metadata", "name"))
    p = Pool(name=name, source="karpenter", file=file, root=doc, path=(), kind="NodePool")
    reqs = {
        as_str(get(r, "key")): (i, as_str(get(r, "operator")), [as_str(v) for v in as_list(get(r, "values"))])
        for i, r in enumerate(as_list(spec.get("requirements")))
        if isinstance(r, dict)
    }
    types = reqs.get("node.kubernetes.io/instance-type", (0, "", []))[2]
    families = reqs.get("karpenter.k8s.aws/instance-family", (0, "", []))[2]
    p.gpu = (
        any(k in reqs for k in KARPENTER_GPU_KEYS)
        or any(_AWS_GPU.match(t) for t in types)
        or any(_AWS_GPU_FAMILY.match(f) for f in families)
        or (
            set(reqs.get("karpenter.k8s.aws/instance-category", (0, "", []))[2]) <= {"p", "g"}
            and "karpenter.k8s.aws/instance-category" in reqs
        )
    )
    counts = [sku.gpus for t in types if (sku := load_catalog().vm_sku("eks", t)) is not None]
    if counts and len(counts) == len(types):
        p.gpus_per_node = max(counts)
        p.resources = {"nvidia.com/gpu": p.gpus_per_node}
    p.min_nodes = 0  # Karpenter provisions on demand and has no minimum
    capacity = reqs.get("karpenter.sh/capacity-type")
    p.spot = capacity is not None and capacity[1] == "In" and "spot" in capacity[2]
    if capacity is not None:
        p.fields["spot"] = ("spec", "template", "spec", "requirements", capacity[0])
    zones = reqs.get("topology.kubernetes.io/zone")
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
    p.labels = _str_labels(get(doc, "spec", "template", "metadata", "labels"))
    p.labels["karpenter.sh/nodepool"] = name
    p.classes = classes_from(name, p.labels)
    return [p]
