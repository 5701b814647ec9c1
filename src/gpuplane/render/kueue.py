"""Kueue objects from the spec: ResourceFlavors, Cohorts, ClusterQueues, LocalQueues and
WorkloadPriorityClasses, for Kueue's API `v1beta2` (default) or `v1beta1`.

One flavor per pool (its node labels and taints); one ClusterQueue per team with one resource
group covering cpu, memory and every GPU resource its pools offer, so the flavor Kueue picks for a
pod set is the pool all of the pod's resources come from (kueue.md section 1). CPU pools come
first in the group with cpu and memory only, so CPU-only pod sets land on CPU nodes and GPU pod
sets pass on to the GPU flavors (`quotas.team_all_flavor_quotas`).
"""

from __future__ import annotations

from typing import Any

from gpuplane.catalog.topology import fabrics
from gpuplane.render import dra
from gpuplane.render.common import effective_taints, k8s_object, metadata, taint_dict, toleration_for
from gpuplane.render.quotas import FlavorQuota, cpu_pools, team_all_flavor_quotas
from gpuplane.spec import derived
from gpuplane.spec.models import NodePool, PlatformSpec, Team
from gpuplane.spec.topology import pool_levels, topology_name
from gpuplane.vocab import (
    ANNOTATION_DEFAULT_PRIORITY,
    GROUP,
    KUEUE_CONFIG_GROUP,
    KUEUE_GROUP,
    LABEL_POOL,
    LABEL_TEAM,
)

KUEUE_APIS: tuple[str, ...] = ("v1beta1", "v1beta2")
# ResourceFlavor limits from the Kueue CRDs (nodeLabels maxProperties 8, nodeTaints maxItems 8).
MAX_FLAVOR_LABELS = 8
MAX_FLAVOR_TAINTS = 8
# Flavor fungibility names accepted by both API versions (kueue.md section 1).
FUNGIBILITY = {"Borrow": "MayStopSearch", "Preempt": "TryNextFlavor"}


def _api(api: str) -> str:
    if api not in KUEUE_APIS:
        raise ValueError(f"unknown Kueue API version {api!r}; expected one of {', '.join(KUEUE_APIS)}")
    return api


def _api_version(api: str) -> str:
    return f"{KUEUE_GROUP}/{_api(api)}"


def flavor_node_labels(pool: NodePool) -> dict[str, str]:
    """The pool's node labels as flavor nodeLabels: gpuplane's schema first, at most 8."""
    labels = derived.node_labels(pool)
    ours = {k: v for k, v in labels.items() if k.startswith(f"{GROUP}/")}
    theirs = {k: v for k, v in labels.items() if k not in ours}
    chosen = dict(ours)
    for key, value in theirs.items():
        if len(chosen) >= MAX_FLAVOR_LABELS:
            break
        chosen[key] = value
    return dict(sorted(chosen.items()))


def resource_flavor(spec: PlatformSpec, pool: NodePool, api: str = "v1beta2") -> dict[str, Any]:
    """The pool's ResourceFlavor: its node labels, its taints, and tolerations for them.

    The flavor tolerates its own taints, so every workload Kueue admits to the flavor can land on
    the pool's nodes; which teams may use a pool is decided by the ClusterQueues that list it.
    """
    taints = effective_taints(spec, pool)[:MAX_FLAVOR_TAINTS]
    body: dict[str, Any] = {"nodeLabels": flavor_node_labels(pool)}
    if taints:
        body["nodeTaints"] = [taint_dict(t) for t in taints]
        body["tolerations"] = [toleration_for(t) for t in taints]
    if pool_levels(spec, pool):
        body["topologyName"] = topology_name(pool)
    meta = metadata(derived.flavor_name(pool), labels={LABEL_POOL: pool.name})
    return k8s_object(_api_version(api), "ResourceFlavor", meta, spec=body)


def topology_objects(spec: PlatformSpec, api: str = "v1beta2") -> list[dict[str, Any]]:
    """One Kueue `Topology` per pool that declares a topology (levels coarse to fine)."""
    out = []
    for pool in spec.node_pools:
        levels = pool_levels(spec, pool) if pool.is_gpu else None
        if levels:
            meta = metadata(topology_name(pool), labels={LABEL_POOL: pool.name})
            body = {"levels": [{"nodeLabel": level} for level in levels]}
            out.append(k8s_object(_api_version(api), "Topology", meta, spec=body))
    return out


def _cohort_names(spec: PlatformSpec) -> dict[str, str | None]:
    """Every cohort the spec declares or a team joins, with its parent (declared order first)."""
    cohorts: dict[str, str | None] = {c.name: c.parent for c in spec.queueing.cohorts}
    referenced = [derived.cohort_of(spec, t) for t in spec.teams] + [c.parent for c in spec.queueing.cohorts]
    for name in referenced:
        if name and name not in cohorts:
            cohorts[name] = None
    return cohorts


def cohort_objects(spec: PlatformSpec, api: str = "v1beta2") -> list[dict[str, Any]]:
    """Cohort objects (parents make a hierarchy); a Cohort holds no quota of its own here."""
    out = []
    for name, parent in _cohort_names(spec).items():
        body: dict[str, Any] = {}
        if parent:
            body["parentName"] = parent
        out.append(k8s_object(_api_version(api), "Cohort", metadata(name), spec=body))
    return out


def _resource_entry(
    name: str, nominal: int | str, borrowing: int | str | None, lending: int | str | None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "nominalQuota": nominal}
    if borrowing is not None:
        entry["borrowingLimit"] = borrowing
    if lending is not None:
        entry["lendingLimit"] = lending
    return entry


def _resource_group(flavors: list[FlavorQuota], in_cohort: bool) -> dict[str, Any]:
    """One group: every resource of every flavor; a flavor lists each (0 where it has none)."""
    covered = sorted({name for fq in flavors for name in fq.resources})
    group_flavors = []
    for fq in flavors:
        resources = []
        for name in covered:
            quota = fq.resources.get(name)
            if quota is None:
                resources.append(_resource_entry(name, 0, None, None))
            else:
                resources.append(
                    _resource_entry(
                        name,
                        quota.nominal,
                        quota.borrowing if in_cohort else None,
                        quota.lending if in_cohort else None,
                    )
                )
        group_flavors.append({"name": fq.flavor, "resources": resources})
    return {"coveredResources": covered, "flavors": group_flavors}


def _preemption(spec: PlatformSpec) -> dict[str, Any]:
    pre = spec.queueing.preemption
    out: dict[str, Any] = {
        "withinClusterQueue": pre.within_cluster_queue,
        "reclaimWithinCohort": pre.reclaim_within_cohort,
    }
    # borrowWithinCohort is classical preemption only, and must be Never when reclaim is Never.
    if not spec.queueing.fair_sharing.enabled and pre.reclaim_within_cohort != "Never":
        borrow: dict[str, Any] = {"policy": pre.borrow_within_cohort.policy}
        if (
            pre.borrow_within_cohort.policy != "Never"
            and pre.borrow_within_cohort.max_priority_threshold is not None
        ):
            borrow["maxPriorityThreshold"] = pre.borrow_within_cohort.max_priority_threshold
        out["borrowWithinCohort"] = borrow
    return out


def cluster_queue(spec: PlatformSpec, team: Team, api: str = "v1beta2") -> dict[str, Any]:
    """The team's ClusterQueue: cohort, namespace selector, resource group, preemption, fairness."""
    cohort = derived.cohort_of(spec, team)
    body: dict[str, Any] = {}
    if cohort:
        body["cohortName" if api == "v1beta2" else "cohort"] = cohort
    body["namespaceSelector"] = {"matchLabels": {LABEL_TEAM: team.name}}
    body["queueingStrategy"] = spec.queueing.queueing_strategy
    flavors = team_all_flavor_quotas(spec, team)
    if flavors:
        body["resourceGroups"] = [_resource_group(flavors, in_cohort=bool(cohort))]
    body["preemption"] = _preemption(spec)
    body["flavorFungibility"] = {"whenCanBorrow": FUNGIBILITY[spec.queueing.flavor_fungibility]}
    if spec.queueing.fair_sharing.enabled:
        weight = team.fair_sharing_weight
        body["fairSharing"] = {"weight": int(weight) if weight.is_integer() else f"{weight:g}"}
    meta = metadata(derived.cluster_queue_name(team), labels={LABEL_TEAM: team.name})
    return k8s_object(_api_version(api), "ClusterQueue", meta, spec=body)


# Kueue has no per-queue default priority; the team's default is recorded for people and tools
# (jobs pick a class with Kueue's `PRIORITY_CLASS_LABEL`).


def local_queues(team: Team, api: str = "v1beta2") -> list[dict[str, Any]]:
    """One LocalQueue per team namespace, pointing at the team's ClusterQueue."""
    annotations = {ANNOTATION_DEFAULT_PRIORITY: team.priority_class} if team.priority_class else None
    return [
        k8s_object(
            _api_version(api),
            "LocalQueue",
            metadata(
                derived.local_queue_name(team),
                namespace=ns,
                labels={LABEL_TEAM: team.name},
                annotations=annotations,
            ),
            spec={"clusterQueue": derived.cluster_queue_name(team)},
        )
        for ns in team.namespaces
    ]


def workload_priority_classes(spec: PlatformSpec, api: str = "v1beta2") -> list[dict[str, Any]]:
    """Kueue WorkloadPriorityClasses mirroring the spec's priority classes (same names/values)."""
    out = []
    for pc in spec.queueing.priority_classes:
        obj = k8s_object(_api_version(api), "WorkloadPriorityClass", metadata(pc.name), value=pc.value)
        if pc.description:
            obj["description"] = pc.description
        out.append(obj)
    return out


def kueue_objects(spec: PlatformSpec, api: str = "v1beta2") -> list[dict[str, Any]]:
    """Every Kueue object of the platform, in apply order (flavors and cohorts before queues)."""
    _api_version(api)
    objects = topology_objects(spec, api)
    objects += [resource_flavor(spec, p, api) for p in cpu_pools(spec)]
    objects += [resource_flavor(spec, p, api) for p in spec.node_pools if p.is_gpu]
    objects += cohort_objects(spec, api)
    objects += [cluster_queue(spec, t, api) for t in spec.teams]
    for team in spec.teams:
        objects += local_queues(team, api)
    objects += workload_priority_classes(spec, api)
    return objects


# Kueue serves the ClusterQueue resource metrics (kueue_cluster_queue_resource_usage,
# _nominal_quota, ...) that `gpuplane account` reads only with this set: ControllerMetrics
# `enableClusterQueueResources` (default false) in apis/config/{v1beta1,v1beta2}/configuration_types.go,
# read by cmd/kueue/main.go (schdcache.WithResourceMetrics), kubernetes-sigs/kueue v0.19.2 and @ff69552e.
CLUSTER_QUEUE_RESOURCE_METRICS = {"enableClusterQueueResources": True}


def kueue_configuration(spec: PlatformSpec, api: str = "v1beta2") -> dict[str, Any]:
    """The part of Kueue's own `Configuration` the spec decides: the ClusterQueue resource metrics
    `gpuplane account` reads (always), fair sharing when it is on, and
    `resources.deviceClassMappings` when pools use DRA.

    Kueue turns fair sharing on for the whole installation when its Configuration has a
    `fairSharing` section (v1beta1 also needs `enable: true`; v1beta2 has no such field, and Kueue
    decodes its Configuration strictly: pkg/config/config.go `serializer.EnableStrict`); DRA claims
    are charged to the quota name their DeviceClass maps to. `gpuplane explain` reads the same
    object, so feeding it the rendered kueue/ folder reproduces the cluster's mode and mappings.
    """
    config: dict[str, Any] = {"apiVersion": f"{KUEUE_CONFIG_GROUP}/{_api(api)}", "kind": "Configuration"}
    config["metrics"] = dict(CLUSTER_QUEUE_RESOURCE_METRICS)
    if spec.queueing.fair_sharing.enabled:
        section: dict[str, Any] = {}
        if api == "v1beta1":
            section["enable"] = True
        section["preemptionStrategies"] = list(spec.queueing.fair_sharing.preemption_strategies)
        config["fairSharing"] = section
    # TopologyAwareScheduling needs no switch: beta and on by default since Kueue v0.14
    # (pkg/features/kube_features.go @v0.19.2); featureGates stays unset because it cannot be
    # combined with the Deployment's --feature-gates flag (configuration_types.go FeatureGates).
    fabric_devices = sorted(
        {
            str(fabrics()[p.topology.fabric.type].device_resource)
            for p in spec.node_pools
            if p.topology is not None and fabrics()[p.topology.fabric.type].device_resource
        }
    )
    if fabric_devices:
        # Pods request the fabric's devices (e.g. EFA); no ClusterQueue covers them, and Kueue
        # rejects a pod set with an uncovered resource unless the prefix is excluded from quota.
        config.setdefault("resources", {})["excludeResourcePrefixes"] = fabric_devices
    mappings = dra.device_class_mappings(spec)
    if mappings:
        config.setdefault("resources", {})["deviceClassMappings"] = mappings
    return config
