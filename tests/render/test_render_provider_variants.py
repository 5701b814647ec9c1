"""A variant per provider with MIG (both strategies), MPS, time-slicing, spot and DRA pools: what
render writes agrees with the provider's facts and with the consumers' own types (Kubernetes and
Kueue schemas, the device plugin's and mig-parted's config formats, what the device plugin then
advertises)."""

from __future__ import annotations

from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from gpuplane import providers
from gpuplane.render import render_all
from gpuplane.render.device_configs import DEFAULT_PLUGIN_KEY, provisioning_labels
from gpuplane.spec import derived
from tests.render.render_helpers import PROVIDERS, REPO, VARIANT, all_objects, rendered, spec_from
from tests.render.test_render_schema import CRD_KINDS, kueue_schemas
from tests.support.device_plugin_model import advertised, mig_layout, node_config

MIG_STRATEGIES = {"none", "single", "mixed"}  # k8s-device-plugin api/config/v1 consts.go
SHARING_KEYS = {"renameByDefault", "failRequestsGreaterThanOne", "resources"}  # api/config/v1 sharing.go


def _render(provider: str) -> tuple[Any, Any]:
    spec = spec_from(VARIANT.format(provider=provider))
    return spec, render_all(spec)


def _doc(result: Any, path: str) -> dict[str, Any] | None:
    text = result.files.get(path)
    return next(d for d in yaml.safe_load_all(text) if d) if text else None


@pytest.mark.parametrize("provider", PROVIDERS)
def test_variant_objects_pass_the_kubernetes_and_kueue_schemas(provider: str, shared_dir: Any) -> None:
    _, result = _render(provider)
    schemas = kueue_schemas(str(shared_dir / "crds" / "kueue"))
    objects = all_objects(result)
    assert {"DeviceClass", "ResourceClaimTemplate", "ClusterQueue"} <= {o["kind"] for o in objects}
    for obj in objects:
        if obj["apiVersion"].startswith("kueue.x-k8s.io/"):
            jsonschema.validate(obj, schemas[(obj["kind"], "v1beta2")])
        elif obj["kind"] not in CRD_KINDS:
            kubernetes_validate.validate(obj, "1.34.0", strict=True)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_variant_device_configs_have_the_consumers_shapes(provider: str) -> None:
    _, result = _render(provider)
    plugin = _doc(result, "devices/device-plugin-config.yaml")
    assert plugin is not None
    for key, text in plugin["data"].items():
        config = yaml.safe_load(text)
        assert config["version"] == "v1" and config["flags"]["migStrategy"] in MIG_STRATEGIES, key
        for mode, body in config.get("sharing", {}).items():
            assert mode in ("timeSlicing", "mps") and set(body) == SHARING_KEYS, key
            assert all(set(r) == {"name", "replicas"} and r["replicas"] >= 2 for r in body["resources"])
    migs = _doc(result, "devices/mig-parted-config.yaml")
    assert migs is not None
    config = yaml.safe_load(migs["data"]["config.yaml"])
    assert config["version"] == "v1" and "all-disabled" in config["mig-configs"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_variant_pools_agree_with_the_device_plugin_and_the_provider_facts(provider: str) -> None:
    spec, result = _render(provider)
    plugin = _doc(result, "devices/device-plugin-config.yaml")
    migs = _doc(result, "devices/mig-parted-config.yaml")
    facts = providers.get(provider).facts
    flavors = {f["metadata"]["name"]: f for f in all_objects(result) if f["kind"] == "ResourceFlavor"}
    classes = {o["metadata"]["name"] for o in all_objects(result) if o["kind"] == "DeviceClass"}
    for pool in spec.node_pools:
        labels = provisioning_labels(spec, pool)
        if derived.is_dra(pool):
            assert labels["nvidia.com/gpu.deploy.device-plugin"] == "false"
            assert {k.device_class for k in derived.dra_kinds_per_gpu(pool)} <= classes
        else:
            seen = advertised(
                node_config(plugin, labels, DEFAULT_PLUGIN_KEY), mig_layout(migs, labels), pool.gpus
            )
            assert seen == derived.resources_per_node(pool), pool.name
        taint = facts["spot"].get("taint")
        keys = {t["key"] for t in flavors[pool.name]["spec"].get("nodeTaints", [])}
        assert (bool(taint) and pool.spot.enabled) == (bool(taint) and taint["key"] in keys), pool.name


def test_variant_pool_files_carry_each_providers_gpu_stack_flags() -> None:
    aks = _render("aks")[1].files["nodepools/aks-node-pools.sh"]
    assert aks.count("--gpu-driver None") == 7  # NV-AKS: skip AKS's driver, the operator installs it
    gke = _render("gke")[1].files["nodepools/gke-node-pools.sh"]
    assert (
        gke.count(",gpu-driver-version=disabled") == 7
        and "gke-no-default-nvidia-gpu-device-plugin=true" in gke
    )
    eks = yaml.safe_load(_render("eks")[1].files["nodepools/eks-nodegroups.yaml"])
    groups = {g["name"]: g for g in eks["managedNodeGroups"]}
    tag = "k8s.io/cluster-autoscaler/node-template/resources/"
    assert not [k for k in groups["dra"]["tags"] if k.startswith(tag)]  # DRA devices are in ResourceSlices
    assert groups["mps"]["tags"][tag + "nvidia.com/gpu.shared"] == "8"
    values = yaml.safe_load(_render("eks")[1].files["devices/gpu-operator-values.yaml"])
    assert values["driver"] == {"enabled": False} and values["toolkit"] == {"enabled": False}


# eksctl's own config types: eksctl-io/eksctl pkg/apis/eksctl.io/v1alpha5/assets/schema.json
# @99984adb (v0.230.0, 2026-08-22), where ClusterConfig, ClusterMeta, ManagedNodeGroup and
# NodeGroupTaint set additionalProperties: false. The keys render uses, and the amiFamily variants.
EKSCTL_KEYS = {
    "ClusterConfig": {"apiVersion", "kind", "metadata", "managedNodeGroups"},
    "ClusterMeta": {"name", "region", "version", "tags", "annotations"},
    "ManagedNodeGroup": {
        "name", "amiFamily", "instanceTypes", "minSize", "maxSize", "desiredCapacity", "spot",
        "availabilityZones", "labels", "taints", "propagateASGTags", "tags", "efaEnabled",
    },
    "NodeGroupTaint": {"key", "value", "effect"},
}  # fmt: skip
EKSCTL_AMI_FAMILIES = {"AmazonLinux2023", "AmazonLinux2", "Bottlerocket", "Ubuntu2404", "Ubuntu2204"}


def test_eksctl_config_uses_only_eksctls_own_fields() -> None:
    for example in ("eks-mixed.yaml", "eks-dra.yaml", "eks-p5-tas.yaml"):
        _, result = rendered(REPO / "examples" / example)
        config = yaml.safe_load(result.files["nodepools/eks-nodegroups.yaml"])
        assert set(config) <= EKSCTL_KEYS["ClusterConfig"]
        assert set(config["metadata"]) <= EKSCTL_KEYS["ClusterMeta"]
        for group in config["managedNodeGroups"]:
            assert set(group) <= EKSCTL_KEYS["ManagedNodeGroup"], group["name"]
            assert group["amiFamily"] in EKSCTL_AMI_FAMILIES
            assert all(set(t) <= EKSCTL_KEYS["NodeGroupTaint"] for t in group.get("taints", []))
            assert all(isinstance(v, str) for v in {**group["labels"], **group["tags"]}.values())
