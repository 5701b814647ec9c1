"""Device stack: GPU Operator values, the mig-parted ConfigMap (mig-parted v1 format) and the
device-plugin ConfigMap, with node labels that select them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuplane import providers
from gpuplane.render import device_configs, operator, render_all
from gpuplane.sharing import mig
from gpuplane.vocab import DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL
from tests.render.render_helpers import REPO, SMALL_SPEC, rendered, small_spec, spec_from

MIG_PARTED_TOP = {"version", "mig-configs"}
MIG_PARTED_ENTRY = {"device-filter", "devices", "mig-enabled", "mig-devices"}


def _check_mig_parted_format(config: dict[str, Any]) -> None:
    """The mig-parted api/spec/v1 rules (nvidia.md 2.1)."""
    assert set(config) == MIG_PARTED_TOP and config["version"] == "v1"
    assert config["mig-configs"]
    for entries in config["mig-configs"].values():
        assert entries
        for entry in entries:
            assert set(entry) <= MIG_PARTED_ENTRY and {"devices", "mig-enabled"} <= set(entry)
            if entry["mig-enabled"]:
                assert "mig-devices" in entry
            else:
                assert not entry.get("mig-devices")


def test_mig_parted_configmap_has_each_pool_layout_in_mig_parted_format() -> None:
    spec = spec_from(SMALL_SPEC)
    cm = device_configs.mig_parted_configmap(spec)
    assert cm is not None and cm["metadata"]["namespace"] == "gpu-operator"
    config = yaml.safe_load(cm["data"]["config.yaml"])
    _check_mig_parted_format(config)
    assert config["mig-configs"]["all-disabled"] == [{"devices": "all", "mig-enabled": False}]
    [entry] = config["mig-configs"]["gpuplane-a100-mig"]
    assert entry["mig-devices"] == dict(Counter(["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]))


def test_mig_layouts_in_the_configmap_fit_their_gpu() -> None:
    from gpuplane.catalog import load_catalog

    for example in sorted((REPO / "examples").glob("*.yaml")):
        spec, result = rendered(example)
        cm = result.files.get("devices/mig-parted-config.yaml")
        if cm is None:
            continue
        config = yaml.safe_load(next(d for d in yaml.safe_load_all(cm) if d)["data"]["config.yaml"])
        _check_mig_parted_format(config)
        for pool in spec.node_pools:
            name = device_configs.mig_config_name(pool)
            if name is None:
                continue
            acc = load_catalog().accelerator(pool.accelerator or "")
            assert acc is not None
            devices = config["mig-configs"][name][0]["mig-devices"]
            layout = [p for p, n in devices.items() for _ in range(n)]
            assert mig.check_layout(acc, layout).fits


def test_mig_and_shared_pools_select_their_own_plugin_config() -> None:
    spec = spec_from(SMALL_SPEC)
    labels = {p.name: device_configs.provisioning_labels(spec, p) for p in spec.node_pools}
    assert labels["a100-mig"][MIG_CONFIG_LABEL] == "gpuplane-a100-mig"
    assert labels["a100-mig"][DEVICE_PLUGIN_CONFIG_LABEL] == "a100-mig"
    assert labels["t4"][DEVICE_PLUGIN_CONFIG_LABEL] == "t4"
    assert MIG_CONFIG_LABEL not in labels["a100-spot"]
    assert DEVICE_PLUGIN_CONFIG_LABEL not in labels["a100-spot"]  # the default key
    plugin = device_configs.device_plugin_configmap(spec)
    assert plugin is not None
    assert set(plugin["data"]) == {"default", "a100-mig", "t4"}
    assert yaml.safe_load(plugin["data"]["default"]) == {"version": "v1", "flags": {"migStrategy": "none"}}
    assert yaml.safe_load(plugin["data"]["a100-mig"]) == {"version": "v1", "flags": {"migStrategy": "mixed"}}
    t4 = yaml.safe_load(plugin["data"]["t4"])
    assert t4["sharing"]["timeSlicing"]["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]


def test_operator_values_wire_the_configmaps_and_leave_the_mig_strategy_to_each_node() -> None:
    spec = spec_from(SMALL_SPEC)
    values = operator.operator_values(spec)
    assert values is not None
    assert values["devicePlugin"]["config"] == {
        "create": False,
        "name": device_configs.DEVICE_PLUGIN_CONFIGMAP,
        "default": "default",
    }
    assert values["migManager"]["enabled"] is True
    assert values["migManager"]["config"]["name"] == device_configs.MIG_CONFIGMAP
    # An empty strategy keeps MIG_STRATEGY off the plugin and GFD (clusterpolicy.yaml @v26.7.0
    # omits it), so each node's config.flags.migStrategy decides.
    assert values["mig"]["strategy"] == ""
    assert values["dcgmExporter"]["serviceMonitor"]["enabled"] is True
    assert values["dcgmExporter"]["serviceMonitor"]["honorLabels"] is True  # account joins on pod labels
    assert values["driver"]["enabled"] is True


def test_operator_values_files_parse_as_yaml(example: Path) -> None:
    spec, result = rendered(example)
    values = yaml.safe_load(result.files["devices/gpu-operator-values.yaml"])
    assert values == operator.operator_values(spec)
    assert {"driver", "toolkit", "devicePlugin", "dcgmExporter", "migManager", "mig"} <= set(values)


def test_driver_version_comes_from_the_pools() -> None:
    spec = spec_from(
        SMALL_SPEC.replace(
            "    sharing: {mode: exclusive}", '    driverVersion: "550.90.07"\n    sharing: {mode: exclusive}'
        )
    )
    values = operator.operator_values(spec)
    assert values is not None and values["driver"]["version"] == "550.90.07"


def test_aks_driver_defaults_to_the_chart_release_the_values_target() -> None:
    # GPU Operator v26.7.0 values.yaml: driver.version "595.91.07".
    values = operator.operator_values(spec_from(SMALL_SPEC))
    assert values is not None and values["driver"] == {"enabled": True, "version": "595.91.07"}


def test_gke_operator_values_and_quota_follow_nvidias_gke_guide() -> None:
    # NVIDIA GKE guide (google-gke.rst): driver.enabled=false, toolkit and driver paths at
    # /home/kubernetes/bin/nvidia, CDI on, MIG Manager WITH_REBOOT=true, and the quota below.
    spec = small_spec("gke")
    values = operator.operator_values(spec)
    assert values is not None
    assert values["driver"] == {"enabled": False}
    assert values["toolkit"] == {"enabled": True, "installDir": "/home/kubernetes/bin/nvidia"}
    assert values["hostPaths"] == {"driverInstallDir": "/home/kubernetes/bin/nvidia"}
    assert values["cdi"] == {"enabled": True}
    assert values["migManager"]["env"] == [{"name": "WITH_REBOOT", "value": "true"}]
    assert values["devicePlugin"]["enabled"] is True
    assert device_configs.mig_parted_configmap(spec) is not None
    [quota] = providers.get("gke").namespace_objects(spec, "gpu-operator")
    assert quota == {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "gpu-operator-quota", "namespace": "gpu-operator"},
        "spec": {
            "hard": {"pods": 100},
            "scopeSelector": {
                "matchExpressions": [
                    {
                        "operator": "In",
                        "scopeName": "PriorityClass",
                        "values": ["system-node-critical", "system-cluster-critical"],
                    }
                ]
            },
        },
    }


def test_gke_133_and_later_toolkit_reads_the_runtime_config_from_file() -> None:
    # NVIDIA GKE guide note: GKE 1.33+ needs RUNTIME_CONFIG_SOURCE=file in the toolkit container.
    old = operator.operator_values(small_spec("gke"))
    new = operator.operator_values(
        small_spec("gke", SMALL_SPEC.replace('kubernetesVersion: "1.30"', 'kubernetesVersion: "1.33"'))
    )
    assert old is not None and new is not None
    assert "env" not in old["toolkit"]
    assert new["toolkit"]["env"] == [{"name": "RUNTIME_CONFIG_SOURCE", "value": "file"}]


def test_gke_own_stack_installs_no_gpu_operator() -> None:
    spec = small_spec("gke").model_copy(deep=True)
    spec.cluster.gpu_stack = "provider"
    assert operator.operator_values(spec) is None
    assert device_configs.mig_parted_configmap(spec) is None
    assert device_configs.device_plugin_configmap(spec) is None


def test_gke_own_stack_note_asks_for_virtual_gpus_on_time_shared_pools() -> None:
    # dcgm-exporter pkg/cmd/app.go @4.5.3-4.8.2: flag kubernetes-virtual-gpus, env
    # KUBERNETES_VIRTUAL_GPUS, default false; without it a shared GPU's series names one pod.
    spec = small_spec("gke").model_copy(deep=True)
    spec.cluster.gpu_stack = "provider"
    (note,) = [n for n in render_all(spec).notes if "install dcgm-exporter yourself" in n]
    assert "pool(s) t4 share GPUs" in note
    assert "KUBERNETES_VIRTUAL_GPUS=true" in note and "--kubernetes-virtual-gpus" in note
    exclusive = spec.model_copy(deep=True)
    exclusive.node_pools = [p for p in exclusive.node_pools if p.name != "t4"]
    exclusive.teams = []
    (plain,) = [n for n in operator.operator_notes(exclusive) if "dcgm-exporter" in n]
    assert "KUBERNETES_VIRTUAL_GPUS" not in plain
    # With the GPU Operator the values set it instead, and no note asks the user to.
    operator_stack = small_spec("gke")
    assert not [n for n in operator.operator_notes(operator_stack) if "dcgm-exporter" in n]
    values = operator.operator_values(operator_stack)
    assert values is not None
    assert {"name": "KUBERNETES_VIRTUAL_GPUS", "value": "true"} in values["dcgmExporter"]["env"]


def test_aks_own_stack_keeps_aks_driver_and_toolkit_and_no_mig_manager() -> None:
    # NVIDIA AKS page, "Installing the Operator for Preinstalled Driver and Toolkit".
    spec = spec_from(SMALL_SPEC).model_copy(deep=True)
    spec.cluster.gpu_stack = "provider"
    values = operator.operator_values(spec)
    assert values is not None
    assert values["driver"] == {"enabled": False} and values["toolkit"] == {"enabled": False}
    assert values["operator"] == {"runtimeClass": "nvidia-container-runtime"}
    assert values["migManager"]["enabled"] is False
    assert device_configs.mig_parted_configmap(spec) is None
    plugin = device_configs.device_plugin_configmap(spec)  # the operator's device plugin still runs
    assert (
        plugin is not None and yaml.safe_load(plugin["data"]["a100-mig"])["flags"]["migStrategy"] == "mixed"
    )


# GPU Operator chart values keys render may set: nvidia.md section 5 (values.yaml @ v26.7.0), the
# chart's `hostPaths` block (rootFS, driverInstallDir), and keys read in deployments/gpu-operator/
# values.yaml and templates/clusterpolicy.yaml @v26.7.0: cdi.enabled, toolkit.installDir, toolkit.env,
# migManager.env, operator.runtimeClass (the chart has no cdi.default any more).
KNOWN_VALUE_KEYS = {
    "cdi.enabled",
    "toolkit.installDir",
    "toolkit.env",
    "migManager.env",
    "operator.runtimeClass",
    "driver.enabled",
    "driver.version",
    "toolkit.enabled",
    "devicePlugin.enabled",
    "devicePlugin.config.create",
    "devicePlugin.config.name",
    "devicePlugin.config.default",
    "dcgmExporter.enabled",
    "dcgmExporter.serviceMonitor.enabled",
    "dcgmExporter.serviceMonitor.interval",
    "dcgmExporter.serviceMonitor.honorLabels",
    "dcgmExporter.env",  # a list of EnvVar (values.yaml `env: []`, templates/clusterpolicy.yaml)
    "migManager.enabled",
    "migManager.config.create",
    "migManager.config.name",
    "migManager.config.default",
    "mig.strategy",
    "hostPaths.driverInstallDir",
}


def _leaf_keys(tree: dict[str, Any], prefix: str = "") -> set[str]:
    keys: set[str] = set()
    for key, value in tree.items():
        path = f"{prefix}{key}"
        keys |= _leaf_keys(value, path + ".") if isinstance(value, dict) else {path}
    return keys


@pytest.mark.parametrize("provider", ["aks", "gke", "eks", "generic"])
def test_operator_values_use_only_known_chart_keys(provider: str) -> None:
    values = operator.operator_values(small_spec(provider))
    assert values is not None and _leaf_keys(values) <= KNOWN_VALUE_KEYS
