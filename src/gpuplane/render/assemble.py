"""Lay every family's objects out in files, with an index (index.yaml, README.md) saying why."""

from __future__ import annotations

from typing import Any

from gpuplane import providers
from gpuplane.render import (
    dashboard,
    default_priority,
    device_configs,
    dra,
    dra_examples,
    kueue,
    monitoring,
    operator,
    quotas,
    tenancy,
)
from gpuplane.render.common import GPU_OPERATOR_NAMESPACE, cpu_quantity, memory_quantity
from gpuplane.render.exporter import exporter_manifests
from gpuplane.render.nodepools import nodepool_file
from gpuplane.render.output import IndexEntry, RenderResult, index_markdown, index_yaml, yaml_documents
from gpuplane.spec import derived, priority_mechanism
from gpuplane.spec.models import PlatformSpec
from gpuplane.vocab import (
    DEVICE_PLUGIN_CONFIG_LABEL,
    MIG_CONFIG_LABEL,
    PRIORITY_CLASS_LABEL,
    QUEUE_NAME_LABEL,
)
from gpuplane.yamlemit import emit

KUEUE_CONFIGURATION_HEADER = (
    "# Merge into Kueue's controller_manager_config.yaml (ConfigMap kueue-manager-config in\n"
    "# kueue-system, or the Helm chart's managerConfig.controllerManagerConfigYaml): add these keys to\n"
    "# the sections already there (keep metrics.bindAddress), then restart the kueue controller. These\n"
    "# are installation-wide settings, not objects to apply.\n"
)


def _kueue_files(spec: PlatformSpec, api: str, result: RenderResult) -> None:
    objects = kueue.kueue_objects(spec, api)

    def of(kind: str) -> list[dict[str, Any]]:
        return [o for o in objects if o["kind"] == kind]

    result.add_objects(
        "kueue/topologies.yaml",
        "kueue",
        "one Topology per pool that declares one: its node-label levels, coarse to fine, for Kueue's "
        "topology-aware scheduling (the pool's flavor names it in topologyName)",
        of("Topology"),
    )
    result.add_objects(
        "kueue/resource-flavors.yaml",
        "kueue",
        "one ResourceFlavor per pool: its node labels and taints, so admitted pods land on that pool "
        "(CPU pools first: Kueue gives CPU-only pod sets the first flavor whose quota covers them)",
        of("ResourceFlavor"),
    )
    result.add_objects(
        "kueue/cohorts.yaml",
        "kueue",
        "cohorts the teams' ClusterQueues borrow and lend in (parents form the hierarchy)",
        of("Cohort"),
    )
    result.add_objects(
        "kueue/cluster-queues.yaml",
        "kueue",
        "one ClusterQueue per team: GPU quota per pool "
        "(nominal/borrowing/lending) with cpu and memory in proportion, preemption, fair sharing",
        of("ClusterQueue"),
    )
    result.add_objects(
        "kueue/local-queues.yaml",
        "kueue",
        f"one LocalQueue per team namespace: where the team submits workloads ({QUEUE_NAME_LABEL})",
        of("LocalQueue"),
    )
    result.add_objects(
        "kueue/workload-priority-classes.yaml",
        "kueue",
        "Kueue priorities with the spec's priority class names and values",
        of("WorkloadPriorityClass"),
    )
    defaults = default_priority.default_priority_objects(spec)
    if defaults:
        how = priority_mechanism.mechanism(spec)
        result.add_objects(
            "kueue/default-priority.yaml",
            "kueue",
            f"{how.why}, one per team: jobs created in the team's namespaces without the "
            f"{PRIORITY_CLASS_LABEL} label get the team's priorityClass",
            defaults,
        )
    result.notes.extend(default_priority.default_priority_notes(spec))
    config = kueue.kueue_configuration(spec, api)
    result.add_text(
        "kueue/kueue-configuration.yaml",
        "kueue",
        "Kueue Configuration fragment: " + "; ".join(_configuration_parts(config)),
        KUEUE_CONFIGURATION_HEADER + emit(config),
    )


def _configuration_parts(config: dict[str, Any]) -> list[str]:
    """What the Configuration fragment sets, for the index."""
    parts = [
        "ClusterQueue resource metrics on (metrics.enableClusterQueueResources, which gpuplane account reads)"
    ]
    if "fairSharing" in config:
        parts.append("fair sharing on, with the spec's preemption strategies")
    if "resources" in config:
        parts.append("DRA deviceClassMappings (DeviceClass -> quota name)")
    return parts


def _tenancy_files(spec: PlatformSpec, result: RenderResult) -> None:
    objs = tenancy.tenancy_objects(spec)
    result.add_objects(
        "tenancy/namespaces.yaml",
        "tenancy",
        "team namespaces with team, Pod Security "
        "(enforce baseline, warn restricted) and Kueue labels; the monitoring namespace",
        objs["namespaces"],
    )
    result.add_objects(
        "tenancy/resource-quotas.yaml",
        "tenancy",
        "requests.<gpu resource> capped at what the "
        "team can hold through Kueue, so pods that bypass Kueue cannot take more",
        objs["quotas"],
    )
    result.add_objects(
        "tenancy/limit-ranges.yaml",
        "tenancy",
        "default cpu/memory requests for containers "
        "that set none (no GPU max: it would reject every non-GPU container)",
        objs["limits"],
    )
    result.add_objects(
        "tenancy/role-bindings.yaml",
        "tenancy",
        "the teams' identity groups get `edit` and Kueue's batch-user role in their namespaces",
        objs["rbac"],
    )
    result.add_objects(
        "tenancy/network-policies.yaml",
        "tenancy",
        "default deny, with DNS, same-namespace traffic and the egress the spec declares "
        "(network.egress, teams[].egress) allowed",
        objs["network"],
    )
    result.add_objects(
        "tenancy/priority-classes.yaml",
        "tenancy",
        "pod PriorityClasses matching the Kueue WorkloadPriorityClasses",
        objs["priority"],
    )


def _device_files(spec: PlatformSpec, result: RenderResult) -> None:
    values = operator.operator_values_text(spec)
    if values is not None:
        result.add_text(
            "devices/gpu-operator-values.yaml",
            "devices",
            "GPU Operator Helm values: driver, toolkit, "
            "device plugin and its per-node configs, DCGM exporter with ServiceMonitor, MIG manager",
            values,
        )
    mig = device_configs.mig_parted_configmap(spec)
    if mig:
        result.add_objects(
            "devices/mig-parted-config.yaml",
            "devices",
            f"MIG layouts per pool; nodes select one with the {MIG_CONFIG_LABEL} label",
            [mig],
        )
    plugin = device_configs.device_plugin_configmap(spec)
    if plugin:
        result.add_objects(
            "devices/device-plugin-config.yaml",
            "devices",
            "device-plugin configs per pool (MIG strategy, time-slicing, MPS); "
            f"nodes select one with the {DEVICE_PLUGIN_CONFIG_LABEL} label",
            [plugin],
        )
    stack_objects = providers.get(spec.cluster.provider).namespace_objects(spec, GPU_OPERATOR_NAMESPACE)
    result.add_objects(
        "devices/gpu-operator-quota.yaml",
        "devices",
        "the ResourceQuota that admits the GPU Operator's system-critical pods (NVIDIA's GKE guide)",
        stack_objects,
    )
    result.notes.extend(operator.operator_notes(spec))


def _dra_files(spec: PlatformSpec, result: RenderResult) -> None:
    values = dra.driver_values_text(spec)
    if values is None:
        return
    result.add_text(
        "devices/dra-driver-values.yaml",
        "devices",
        "Helm values of NVIDIA's DRA driver: only on the DRA pools, with the feature gates their sharing needs",
        values,
    )
    result.add_objects(
        "dra/device-classes.yaml",
        "dra",
        "one DeviceClass per kind of device the DRA pools offer (whole GPU, MIG profile, shared GPU)",
        [dra.device_class(spec, kind) for kind in dra.dra_kinds(spec)],
    )
    result.add_objects(
        "dra/resource-claim-templates.yaml",
        "dra",
        "per team namespace, a ResourceClaimTemplate for each kind its pools offer (what Kueue counts)",
        dra.claim_templates(spec),
    )
    examples = dra_examples.example_workloads(spec)
    result.notes.extend(dra.dra_notes(spec, with_examples=bool(examples)))
    result.notes.extend(dra_examples.example_notes(spec))
    if examples:
        header = "# Example Jobs (not applied by render -o -): each claims one device through Kueue.\n"
        result.add_text(
            "dra/example-workloads.yaml",
            "dra",
            "example Jobs that claim each kind of device through their team's LocalQueue",
            yaml_documents(examples, header),
            tuple(f"Job {o['metadata']['namespace']}/{o['metadata']['name']}" for o in examples),
        )


def _monitoring_files(spec: PlatformSpec, result: RenderResult) -> None:
    result.add_objects(
        "monitoring/prometheus-rules.yaml",
        "monitoring",
        "alerts: GPU allocated but idle, XID errors, GPU work pending too long, pool at maxNodes",
        [monitoring.prometheus_rule(spec)],
    )
    result.add_text(
        "monitoring/grafana-dashboard.json",
        "monitoring",
        "Grafana dashboard: platform, workload and financial views (import it, or use the ConfigMap)",
        dashboard.dashboard_json(spec),
    )
    result.add_objects(
        "monitoring/grafana-dashboard-configmap.yaml",
        "monitoring",
        "the dashboard for Grafana's sidecar (label grafana_dashboard=1)",
        [dashboard.dashboard_configmap(spec)],
    )
    result.add_objects(
        "monitoring/gpuplane-exporter.yaml",
        "monitoring",
        "the gpuplane exporter that serves the gpuplane_* metrics the dashboard and alerts read",
        exporter_manifests(spec),
    )
    result.add_text(
        "monitoring/kube-state-metrics-values.yaml",
        "monitoring",
        "kube-state-metrics Helm values: "
        "export the node and pod labels gpuplane account and the dashboard join on",
        monitoring.kube_state_metrics_values_text(),
    )


def _quota_notes(spec: PlatformSpec) -> list[str]:
    """Pools whose cpu or memory per node is unknown: their cpu/memory quota is 0. CPU pools: how
    their cpu and memory are split between the teams' ClusterQueues."""
    notes = [
        f"pool {pool.name}: vCPUs or memory per node unknown (set cpuPerNode and memoryGiBPerNode); "
        "its cpu/memory quota in the ClusterQueues is 0"
        + ("" if pool.is_gpu else ", so CPU-only pod sets go on to the GPU flavors")
        for pool in spec.node_pools
        if not (pool.cpu_per_node and pool.memory_gib_per_node)
    ]
    for pool in quotas.cpu_pools(spec):
        if pool.cpu_per_node and pool.memory_gib_per_node and spec.teams:
            cpu, mem = quotas.cpu_pool_share(spec, pool)
            notes.append(
                f"CPU pool {pool.name}: flavor first in every ClusterQueue, so CPU-only pod sets (Ray heads "
                f"and submitters, MPI launchers, CPU Jobs) are admitted to it; its {pool.max_nodes} nodes "
                f"at maxNodes are split equally between {len(spec.teams)} teams: nominal "
                f"cpu {cpu_quantity(cpu)}, memory {memory_quantity(mem)} each"
                + (
                    ", the rest borrowable in the cohort"
                    if any(derived.cohort_of(spec, t) for t in spec.teams)
                    else ""
                )
            )
    return notes


def render_all(spec: PlatformSpec, kueue_api: str = "v1beta2") -> RenderResult:
    """Every file `gpuplane render` writes for the spec, with `index.yaml` and `README.md`."""
    result = RenderResult()
    _kueue_files(spec, kueue_api, result)
    result.notes.extend(_quota_notes(spec))
    _tenancy_files(spec, result)
    _device_files(spec, result)
    _dra_files(spec, result)
    pools = nodepool_file(spec)
    result.add_text(pools.path, "nodepools", pools.why, pools.text)
    result.notes.extend(pools.notes)
    _monitoring_files(spec, result)
    result.index.append(
        IndexEntry("index.yaml", "index", "this index, machine-readable: every file, its objects and why")
    )
    result.index.append(IndexEntry("README.md", "index", "this index for people"))
    result.files["index.yaml"] = index_yaml(result, spec.cluster.name)
    result.files["README.md"] = index_markdown(result, spec.cluster.name)
    return result
