"""Device stack: GPU Operator values, the mig-parted ConfigMap (mig-parted v1 format) and the
device-plugin ConfigMap, with node labels that select them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from render_helpers import REPO, SMALL_SPEC, rendered, small_spec, spec_from

from gpuplane.render import operator
from gpuplane.sharing import mig

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
    cm = operator.mig_parted_configmap(spec)
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
            name = operator.mig_config_name(pool)
            if name is None:
                continue
            acc = load_catalog().accelerator(pool.accelerator or "")
            assert acc is not None
            devices = config["mig-configs"][name][0]["mig-devices"]
            layout = [p for p, n in devices.items() for _ in range(n)]
            assert mig.check_layout(acc, layout).fits


def test_mig_pool_nodes_select_their_config_and_shared_pools_their_plugin_key() -> None:
    spec = spec_from(SMALL_SPEC)
    labels = {p.name: operator.provisioning_labels(spec, p) for p in spec.node_pools}
    assert labels["a100-mig"][operator.MIG_CONFIG_LABEL] == "gpuplane-a100-mig"
    assert labels["t4"][operator.DEVICE_PLUGIN_CONFIG_LABEL] == "t4"
    assert operator.MIG_CONFIG_LABEL not in labels["a100-spot"]
    plugin = operator.device_plugin_configmap(spec)
    assert plugin is not None
    assert set(plugin["data"]) == {"default", "t4"}
    t4 = yaml.safe_load(plugin["data"]["t4"])
    assert t4["sharing"]["timeSlicing"]["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]


def test_operator_values_wire_the_configmaps_and_the_mig_strategy() -> None:
    spec = spec_from(SMALL_SPEC)
    values = operator.operator_values(spec)
    assert values["devicePlugin"]["config"] == {
        "create": False,
        "name": operator.DEVICE_PLUGIN_CONFIGMAP,
        "default": "default",
    }
    assert values["migManager"]["enabled"] is True
    assert values["migManager"]["config"]["name"] == operator.MIG_CONFIGMAP
    assert values["mig"]["strategy"] == "mixed"
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
    assert operator.operator_values(spec)["driver"]["version"] == "550.90.07"


def test_gke_uses_its_own_gpu_stack_and_writes_no_sharing_configmaps() -> None:
    spec = small_spec("gke")
    values = operator.operator_values(spec)
    assert values["driver"]["enabled"] is False
    assert values["devicePlugin"]["enabled"] is False
    assert values["migManager"]["enabled"] is False
    assert operator.mig_parted_configmap(spec) is None
    assert operator.device_plugin_configmap(spec) is None


# GPU Operator chart values keys render may set: nvidia.md section 5 (values.yaml @ v26.7.0) and the
# chart's `hostPaths` block (rootFS, driverInstallDir).
KNOWN_VALUE_KEYS = {
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
    assert _leaf_keys(operator.operator_values(small_spec(provider))) <= KNOWN_VALUE_KEYS
