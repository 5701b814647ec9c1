"""Rules about Kueue topology-aware scheduling (TAS) and multi-node fabrics.

Kueue's rules are those of kubernetes-sigs/kueue v0.19.2: a Topology's levels are unique and
`kubernetes.io/hostname` may only be the last (`apis/kueue/v1beta2/topology_types.go` CEL rules);
nodes missing a level label are left out of the topology, and their capacity with them
(`pkg/cache/scheduler/tas_nodes_cache.go find`, `pkg/util/tas NodeMatchesFlavor`); a TAS flavor
needs node labels (ResourceFlavor webhook); TAS does not count DRA devices and places the pods of a
ProvisioningRequest-checked ClusterQueue only after provisioning, where the OSS cluster-autoscaler
is not topology-aware (TAS with DRA claims is GPU029, in rules/dra.py) (KEP 2724; ../shared/reference/topology.md sections 1 and 3). The fabric
device names come from `catalog/data/fabric.yaml`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpuplane.audit.bundle import Bundle
from gpuplane.audit.model import Finding, rule
from gpuplane.audit.objects import K8sObject, as_dict, as_list, as_str, get
from gpuplane.audit.rules.common import at, at_pool, at_workload
from gpuplane.catalog.topology import fabrics
from gpuplane.vocab import (
    HOSTNAME_LABEL,
    PROVISIONING_REQUEST_CONTROLLER,
    TAS_PREFERRED_ANNOTATION,
    TAS_REQUIRED_ANNOTATION,
    TAS_SLICE_REQUIRED_ANNOTATION,
    TAS_UNCONSTRAINED_ANNOTATION,
)

_TAS_ANNOTATIONS = (
    TAS_REQUIRED_ANNOTATION,
    TAS_PREFERRED_ANNOTATION,
    TAS_SLICE_REQUIRED_ANNOTATION,
    TAS_UNCONSTRAINED_ANNOTATION,
)


def _levels(topology: K8sObject) -> list[str]:
    return [as_str(as_dict(lv).get("nodeLabel")) for lv in as_list(get(topology.data, "spec", "levels"))]


def _tas_flavors(b: Bundle) -> list[tuple[K8sObject, K8sObject | None]]:
    """(TAS flavor, its Topology when the input has it)."""
    topologies = {t.name: t for t in b.by_kind.get("Topology", [])}
    out = []
    for rf in b.by_kind.get("ResourceFlavor", []):
        name = as_str(get(rf.data, "spec", "topologyName"))
        if name:
            out.append((rf, topologies.get(name)))
    return out


@rule(
    "GPU060",
    "tas-topology-levels-invalid",
    "Topology with kubernetes.io/hostname above the last level, or a level twice",
    "high",
    why="""Kueue rejects a Topology whose hostname level is not the lowest or whose levels repeat (the CRD's
    validation rules): the Topology is never created, every TAS flavor that names it stays without
    topology information, and its workloads wait with "information missing in TAS cache".""",
    fix=f"""List the levels coarse to fine, each once, with `{HOSTNAME_LABEL}` last (or not at all).""",
    tags=("kueue", "topology"),
)
def gpu060(b: Bundle) -> Iterator[Finding]:
    for topo in b.by_kind.get("Topology", []):
        levels = _levels(topo)
        for i, level in enumerate(levels):
            if level == HOSTNAME_LABEL and i != len(levels) - 1:
                yield at(
                    "GPU060",
                    b,
                    topo,
                    ("spec", "levels", i),
                    f"{HOSTNAME_LABEL} is level {i + 1} of {len(levels)}, not the last",
                )
            elif level in levels[:i]:
                yield at("GPU060", b, topo, ("spec", "levels", i), f"level {level} appears twice")


@rule(
    "GPU061",
    "tas-flavor-without-node-labels",
    "TAS ResourceFlavor without nodeLabels, or naming a Topology the input does not define",
    "high",
    why="""A ResourceFlavor with `topologyName` must have node labels (Kueue's webhook rejects it otherwise),
    and it is only usable once its Topology exists: until then Kueue has no domains for it and every
    workload on it waits.""",
    fix="""Give the flavor the node labels of its pool (`spec.nodeLabels`) and apply the Topology it names
    (`gpuplane render` writes both, kueue/topologies.yaml and kueue/resource-flavors.yaml).""",
    tags=("kueue", "topology"),
)
def gpu061(b: Bundle) -> Iterator[Finding]:
    have_topologies = bool(b.by_kind.get("Topology"))
    for rf, topo in _tas_flavors(b):
        if not as_dict(get(rf.data, "spec", "nodeLabels")):
            yield at("GPU061", b, rf, ("spec", "topologyName"), "TAS flavor has no spec.nodeLabels")
        if have_topologies and topo is None:
            name = as_str(get(rf.data, "spec", "topologyName"))
            yield at("GPU061", b, rf, ("spec", "topologyName"), f"Topology {name} is not in the input")


@rule(
    "GPU062",
    "tas-node-missing-level-label",
    "Node of a TAS flavor missing a topology level label (silently left out of TAS)",
    "high",
    why="""Kueue builds a TAS flavor's domains from the nodes that carry the flavor's node labels and every
    level label of its Topology. A node that lacks one level label is left out without a message: its
    GPUs count for quota but no TAS workload is ever placed on it.""",
    fix="""Label the node with every level of the Topology (the provider's topology labels, Topograph's, or
    your own), or remove the level from the Topology.""",
    tags=("kueue", "topology", "capacity"),
)
def gpu062(b: Bundle) -> Iterator[Finding]:
    flavors = [(rf, t) for rf, t in _tas_flavors(b) if t is not None]
    if not flavors:
        return
    for node in b.by_kind.get("Node", []):
        labels = {str(k): as_str(v) for k, v in as_dict(get(node.data, "metadata", "labels")).items()}
        for rf, topo in flavors:
            assert topo is not None
            wanted = {str(k): as_str(v) for k, v in as_dict(get(rf.data, "spec", "nodeLabels")).items()}
            if not wanted or any(labels.get(k) != v for k, v in wanted.items()):
                continue
            missing = [lv for lv in _levels(topo) if lv and lv not in labels]
            if missing:
                yield at(
                    "GPU062",
                    b,
                    node,
                    ("metadata", "labels"),
                    f"matches TAS flavor {rf.name} but lacks {', '.join(missing)} of Topology {topo.name}",
                )


@rule(
    "GPU063",
    "tas-with-provisioning-request",
    "TAS flavor in a ClusterQueue with a ProvisioningRequest admission check",
    "medium",
    why="""With a ProvisioningRequest admission check Kueue assigns the topology only after the nodes are
    provisioned, and the cluster-autoscaler does not place them by topology: a `required` level can
    keep failing (BookingExpired, requeue). (TAS with DRA claims is GPU029.)""",
    fix="""Use TAS on capacity that exists (reservations, fixed pools, compact placement) rather than behind a
    ProvisioningRequest, or use `preferred` there.""",
    tags=("kueue", "topology"),
)
def gpu063(b: Bundle) -> Iterator[Finding]:
    tas_names = {rf.name for rf, _ in _tas_flavors(b)}
    if not tas_names:
        return
    provreq = {
        ac.name
        for ac in b.by_kind.get("AdmissionCheck", [])
        if as_str(get(ac.data, "spec", "controllerName")) == PROVISIONING_REQUEST_CONTROLLER
    }
    for cq in b.by_kind.get("ClusterQueue", []):
        checks = [as_str(c) for c in as_list(get(cq.data, "spec", "admissionChecks"))]
        checks += [
            as_str(get(as_dict(s), "name"))
            for s in as_list(get(cq.data, "spec", "admissionChecksStrategy", "admissionChecks"))
        ]
        used = {
            as_str(as_dict(f).get("name"))
            for g in as_list(get(cq.data, "spec", "resourceGroups"))
            for f in as_list(as_dict(g).get("flavors"))
        }
        hit = sorted(set(checks) & provreq)
        tas = sorted(used & tas_names)
        if hit and tas:
            yield at(
                "GPU063",
                b,
                cq,
                ("spec", "resourceGroups"),
                f"TAS flavor(s) {', '.join(tas)} behind ProvisioningRequest check(s) {', '.join(hit)}",
            )


class _NoObjects:
    """A `workloads.Lookup` that finds nothing (runtimes and templates of other objects are not needed
    to count pods)."""

    def find(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        return None


def _pods(obj: K8sObject) -> int:
    """Pods of a workload object as Kueue's jobframework counts them (0 when it cannot tell)."""
    from gpuplane.workloads import lookup

    kind = lookup(obj.data)
    if kind is None or kind.kueue is None:
        return 0
    try:
        specs = kind.kueue.workloads(obj.data, _NoObjects())
    except (AttributeError, TypeError, ValueError):
        return 0
    return sum(int(ps.count) for spec in specs for ps in spec.pod_sets)


@rule(
    "GPU064",
    "multi-node-job-without-fabric-device",
    "multi-node GPU job on a fabric pool that requests no fabric device",
    "high",
    why="""On EFA (and RDMA) pools the fabric is a device the pod must request: without
    `vpc.amazonaws.com/efa` a multi-node job's NCCL traffic falls back to TCP on the primary network,
    several times slower, and the acceptance threshold measured for the fabric is never reached.""",
    fix="""Request the fabric devices in every pod of the job (e.g. `vpc.amazonaws.com/efa: 32` on p5.48xlarge)
    and set the fabric's NCCL environment; `gpuplane render` excludes the device from Kueue quota.""",
    tags=("gpu", "fabric", "performance"),
)
def gpu064(b: Bundle) -> Iterator[Finding]:
    devices = {name: str(f.device_resource) for name, f in fabrics().items() if f.device_resource}
    for w in b.gpu_workloads():
        t0 = w.gpu_templates()[0] if w.gpu_templates() else None
        if t0 is None:
            continue
        pools = [p for t in w.gpu_templates() for p in b.matching_pools(t) if p.fabric in devices]
        if not pools or _pods(w.obj) < 2:
            continue
        device = devices[pools[0].fabric]
        asks = any(
            device in as_dict(get(as_dict(c), "resources", "limits"))
            or device in as_dict(get(as_dict(c), "resources", "requests"))
            for t in w.gpu_templates()
            for c in as_list(t.spec.get("containers"))
        )
        if not asks:
            yield at_workload(
                "GPU064",
                b,
                w,
                (*t0.path, "spec", "containers"),
                f"{_pods(w.obj)} pods on {pools[0].fabric} pool {pools[0].name} and no {device} request",
            )


@rule(
    "GPU065",
    "efa-pool-spread-over-zones",
    "EFA pool spread over several availability zones",
    "medium",
    why="""EFA traffic does not cross availability zones, and an EFA node group's cluster placement group
    lives in one zone: a pool spread over zones gives multi-node jobs nodes they cannot connect over
    the fabric.""",
    fix="""Pin the EFA pool to one zone (spec `zones: [one]`, eksctl `availabilityZones: [one]`).""",
    tags=("gpu", "fabric", "reliability"),
)
def gpu065(b: Bundle) -> Iterator[Finding]:
    for pool in b.pools:
        if pool.fabric == "EFA" and pool.zones is not None and len(set(pool.zones)) > 1:
            yield at_pool("GPU065", pool, "zones", f"EFA pool {pool.name} spans {len(set(pool.zones))} zones")
