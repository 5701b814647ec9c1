"""Dynamic Resource Allocation for the spec's DRA pools, with NVIDIA's DRA driver and Kueue's
ResourceClaimTemplate path (`gpuplane.sharing.dra` names the kinds, classes and quota names):

- a DeviceClass per kind of device the DRA pools offer: whole GPUs and each MIG profile by CEL on
  the driver's device attributes (as the driver's own classes and its per-profile example do),
  time-slicing and MPS with the driver's GpuConfig sharing in the class's opaque config, so claims
  carry no per-request config (Kueue does not support it);
- a ResourceClaimTemplate per kind in each namespace of a team holding quota on such a pool;
- Kueue's `resources.deviceClassMappings` (class -> quota name), for the Configuration fragment;
- the DRA driver's Helm values (only on the DRA pools' nodes, the feature gates sharing needs);
- example Jobs that claim each kind through Kueue (`render.dra_examples`).

Sources: kubernetes-sigs/dra-driver-nvidia-gpu v0.4.1 (templates/deviceclass-*.yaml, values.yaml,
demo/specs); kubernetes-sigs/kueue site/content/en/docs/concepts/dynamic_resource_allocation.md and
tasks/manage/setup_dra.md @ff69552e; NVIDIA/cloud-native-docs gpu-operator/dra-intro-install.rst.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import yaml

from gpuplane.catalog.providers import chart_facts
from gpuplane.k8s_versions import version_at_least
from gpuplane.render.common import effective_taints, gpu_pools, k8s_object, metadata, toleration_for
from gpuplane.render.operator import chart, operator_values
from gpuplane.render.output import to_yaml
from gpuplane.render.quotas import team_pools
from gpuplane.sharing.dra import DraKind
from gpuplane.spec import derived
from gpuplane.spec.models import PlatformSpec, Team
from gpuplane.vocab import (
    DRA_ATTRIBUTE_DOMAIN,
    DRA_CONFIG_API_VERSION,
    DRA_DRIVER,
    DRA_GPU_CONFIG_KIND,
    DRA_GROUP,
    DRA_SHARING_STRATEGIES,
    GPU_TAINT_KEY,
    LABEL_POOL,
    LABEL_TEAM,
)


@functools.cache
def dra_facts() -> dict[str, Any]:
    """render/data/dra.yaml: DRA API versions per Kubernetes minor, the example workloads' image and requests."""
    text = resources.files("gpuplane.render").joinpath("data/dra.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def api_version(spec: PlatformSpec) -> str:
    """`<DRA_GROUP>/<v>`: the DRA API version the spec's Kubernetes serves newest (v1 from 1.34)."""
    chosen = "v1beta1"
    for minor, version in sorted(
        dra_facts()["api_versions"].items(), key=lambda i: [int(p) for p in i[0].split(".")]
    ):
        if version_at_least(spec.cluster.kubernetes_version, minor):
            chosen = version
    return f"{DRA_GROUP}/{chosen}"


def dra_kinds(spec: PlatformSpec) -> list[DraKind]:
    """Every kind of device the spec's DRA pools offer, by name."""
    kinds = {kind for pool in gpu_pools(spec) for kind in derived.dra_kinds_per_gpu(pool)}
    return sorted(kinds, key=lambda k: k.kind)


def _selector(kind: DraKind) -> str:
    attrs = f"device.attributes['{DRA_ATTRIBUTE_DOMAIN}']"
    expression = (
        f"device.driver == '{DRA_DRIVER}' && {attrs}.type == '{'mig' if kind.mig_profile else 'gpu'}'"
    )
    if kind.mig_profile:
        expression += f" && {attrs}.profile == '{kind.mig_profile}'"
    return expression


def device_class(spec: PlatformSpec, kind: DraKind) -> dict[str, Any]:
    """The DeviceClass of one kind; shared kinds carry the driver's sharing config."""
    body: dict[str, Any] = {"selectors": [{"cel": {"expression": _selector(kind)}}]}
    if kind.sharing in DRA_SHARING_STRATEGIES:
        parameters = {
            "apiVersion": DRA_CONFIG_API_VERSION,
            "kind": DRA_GPU_CONFIG_KIND,
            "sharing": {"strategy": DRA_SHARING_STRATEGIES[kind.sharing]},
        }
        body["config"] = [{"opaque": {"driver": DRA_DRIVER, "parameters": parameters}}]
    return k8s_object(api_version(spec), "DeviceClass", metadata(kind.device_class), spec=body)


def _request(spec: PlatformSpec, kind: DraKind) -> dict[str, Any]:
    exact = {"deviceClassName": kind.device_class, "allocationMode": "ExactCount", "count": 1}
    if api_version(spec).endswith("/v1beta1"):
        return {"name": kind.kind, **exact}
    return {"name": kind.kind, "exactly": exact}


def claim_template(spec: PlatformSpec, kind: DraKind, team: Team, ns: str) -> dict[str, Any]:
    """A ResourceClaimTemplate for one device of `kind` in a team namespace (Kueue counts `count`)."""
    meta = metadata(kind.template, namespace=ns, labels={LABEL_TEAM: team.name})
    body = {"spec": {"devices": {"requests": [_request(spec, kind)]}}}
    return k8s_object(api_version(spec), "ResourceClaimTemplate", meta, spec=body)


def team_kinds(spec: PlatformSpec, team: Team) -> list[DraKind]:
    """The DRA kinds of the pools a team has quota on."""
    kinds = {kind for pool in team_pools(spec, team) for kind in derived.dra_kinds_per_gpu(pool)}
    return sorted(kinds, key=lambda k: k.kind)


def claim_templates(spec: PlatformSpec) -> list[dict[str, Any]]:
    """Every team namespace's ResourceClaimTemplates."""
    return [
        claim_template(spec, kind, team, ns)
        for team in spec.teams
        for ns in team.namespaces
        for kind in team_kinds(spec, team)
    ]


def device_class_mappings(spec: PlatformSpec) -> list[dict[str, Any]]:
    """Kueue `resources.deviceClassMappings`: each gpuplane class to its own quota name."""
    return [{"name": k.resource, "deviceClassNames": [k.device_class]} for k in dra_kinds(spec)]


def _driver_root(spec: PlatformSpec) -> str:
    """Where the DRA driver finds the NVIDIA driver: the operator's install dir when the operator
    installs it, the provider's path (GKE), else the host's root."""
    values = operator_values(spec) or {}
    if values.get("driver", {}).get("enabled"):
        return str(chart()["driver_install_dir"])
    return str(
        values.get("hostPaths", {}).get("driverInstallDir") or chart_facts()["dra_driver"]["host_driver_root"]
    )


def _kubelet_plugin(spec: PlatformSpec) -> dict[str, Any]:
    pools = [p for p in gpu_pools(spec) if derived.is_dra(p)]
    tolerations = [{"key": GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}]
    for pool in pools:
        for taint in effective_taints(spec, pool):
            tol = toleration_for(taint)
            if tol not in tolerations:
                tolerations.append(tol)
    term = {"matchExpressions": [{"key": LABEL_POOL, "operator": "In", "values": [p.name for p in pools]}]}
    affinity = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
    }
    return {"tolerations": tolerations, "affinity": affinity}


def driver_values(spec: PlatformSpec) -> dict[str, Any] | None:
    """Helm values of NVIDIA's DRA driver chart for the DRA pools (None without DRA pools)."""
    kinds = dra_kinds(spec)
    if not kinds:
        return None
    facts = chart_facts()["dra_driver"]
    gates = {facts["feature_gates"][k.sharing]: True for k in kinds if k.sharing in facts["feature_gates"]}
    values: dict[str, Any] = {
        "nvidiaDriverRoot": _driver_root(spec),
        "resourceApiVersion": api_version(spec),
        # Allowed because the device plugin is off on the DRA pools (DEPLOY_DEVICE_PLUGIN_LABEL=false)
        # and the kubelet plugin runs only there (affinity below).
        facts["gpus_override_key"]: True,
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}},
    }
    if gates:
        values["featureGates"] = dict(sorted(gates.items()))
    values["kubeletPlugin"] = _kubelet_plugin(spec)
    return values


def dra_notes(spec: PlatformSpec, *, with_examples: bool = True) -> list[str]:
    """What the reader of a DRA platform should know (pointing at the example Jobs when written)."""
    if not dra_kinds(spec):
        return []
    example = " (dra/example-workloads.yaml)" if with_examples else ""
    return [
        "DRA pools: apply dra/device-classes.yaml and dra/resource-claim-templates.yaml, install the DRA driver "
        "(devices/dra-driver-values.yaml) and merge kueue/kueue-configuration.yaml into Kueue's Configuration; "
        f"pods claim devices through the templates{example}; Kubernetes does not preempt "
        "DRA devices, and the GPUPodsPendingTooLong alert (extended-resource requests) does not see claims"
    ]


def driver_values_text(spec: PlatformSpec) -> str | None:
    """The DRA driver values file with its install command."""
    values = driver_values(spec)
    if values is None:
        return None
    facts = chart_facts()["dra_driver"]
    header = (
        "# Helm values for NVIDIA's DRA driver, generated by gpuplane render for the DRA pools.\n"
        f"# Install: helm upgrade --install dra-driver-nvidia-gpu {facts['chart']} --version {facts['version']} \\\n"
        f"#   --namespace {facts['namespace']} --create-namespace -f dra-driver-values.yaml\n"
        "# Apply dra/device-classes.yaml and the claim templates too; Kueue needs the deviceClassMappings\n"
        "# of kueue/kueue-configuration.yaml.\n"
    )
    return header + to_yaml(values)
