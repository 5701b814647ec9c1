"""DRA output as its consumers take it: the resource.k8s.io objects pass kubernetes-validate (strict)
at the spec's version (v1 from 1.34, v1beta2 on 1.33, v1beta1 on 1.32); the DeviceClasses select
and configure devices exactly as NVIDIA's DRA driver's own classes and examples do; the Kueue
Configuration's deviceClassMappings pass Kueue's own validation rules; the DRA driver's values use
its chart's keys and run only on the DRA pools, where the device plugin is off."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from gpuplane.render import device_configs, dra, dra_examples, operator
from gpuplane.render import kueue as render_kueue
from tests.render.render_helpers import REPO, objects_of, rendered, spec_from

DRA_EXAMPLE = REPO / "examples" / "eks-dra.yaml"
DRA_DRIVER = "nvidia-dra-driver"


def _example_with(version: str) -> str:
    return DRA_EXAMPLE.read_text(encoding="utf-8").replace(
        'kubernetesVersion: "1.34"', f'kubernetesVersion: "{version}"'
    )


@pytest.mark.parametrize(("version", "api"), [("1.34", "v1"), ("1.33", "v1beta2"), ("1.32", "v1beta1")])
def test_dra_objects_pass_strict_validation_at_the_specs_version(version: str, api: str) -> None:
    spec = spec_from(_example_with(version))
    objects = [dra.device_class(spec, kind) for kind in dra.dra_kinds(spec)] + dra.claim_templates(spec)
    assert objects and {o["apiVersion"] for o in objects} == {f"resource.k8s.io/{api}"}
    for obj in objects:
        kubernetes_validate.validate(obj, f"{version}.0", strict=True)
    jobs = dra_examples.example_workloads(spec)
    assert len(jobs) == len(dra.dra_kinds(spec))
    for job in jobs:
        kubernetes_validate.validate(job, f"{version}.0", strict=True)


def test_kubernetes_validate_rejects_the_v1_request_shape_under_v1beta1() -> None:
    # Guards the guard: the `exactly` wrapper does not exist in resource.k8s.io/v1beta1.
    spec = spec_from(_example_with("1.34"))
    template = dra.claim_templates(spec)[0]
    template["apiVersion"] = "resource.k8s.io/v1beta1"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(template, "1.32.0", strict=True)


def _upstream(shared_dir: Path, name: str) -> list[dict[str, Any]]:
    path = shared_dir / "crds" / DRA_DRIVER / name
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


def _template_expressions(shared_dir: Path, name: str) -> list[str]:
    """CEL expressions of a Helm-templated DeviceClass of the driver's chart (read as text)."""
    text = (shared_dir / "crds" / DRA_DRIVER / "helm-templates" / name).read_text(encoding="utf-8")
    return re.findall(r'expression: "([^"]+)"', text)


def test_device_classes_select_devices_as_the_drivers_own_classes_do(shared_dir: Path) -> None:
    spec = spec_from(_example_with("1.34"))
    classes = {c["metadata"]["name"]: c for c in (dra.device_class(spec, k) for k in dra.dra_kinds(spec))}

    def expression(name: str) -> str:
        return str(classes[name]["spec"]["selectors"][0]["cel"]["expression"])

    # The chart's gpu.nvidia.com and mig.nvidia.com classes (templates/deviceclass-{gpu,mig}.yaml v0.4.1).
    assert expression("gpu.gpuplane.io") == _template_expressions(shared_dir, "deviceclass-gpu.yaml")[0]
    mig_type = _template_expressions(shared_dir, "deviceclass-mig.yaml")[0]
    # The driver's per-profile example (demo/specs/extended-resources/mig-1g-12gb.yaml).
    [upstream] = [
        o
        for o in _upstream(shared_dir, "examples/extended-resources/mig-1g-12gb.yaml")
        if o["kind"] == "DeviceClass"
    ]
    per_profile = upstream["spec"]["selectors"][0]["cel"]["expression"]
    assert per_profile.startswith(mig_type)
    for profile in ("1g.10gb", "2g.20gb", "3g.40gb"):
        assert expression(f"mig-{profile}.gpuplane.io") == per_profile.replace("1g.12gb", profile)
    assert "extendedResourceName" not in classes["gpu.gpuplane.io"]["spec"]  # not in Kueue's other path


def test_shared_classes_carry_the_drivers_sharing_config_as_its_examples_write_it(shared_dir: Path) -> None:
    upstream = {}
    for name in ("examples/tests-bats-specs/gpu-timeslicing.yaml", "examples/tests-bats-specs/gpu-mps.yaml"):
        for obj in _upstream(shared_dir, name):
            if obj["kind"] == "ResourceClaimTemplate":
                opaque = obj["spec"]["spec"]["devices"]["config"][0]["opaque"]
                upstream[opaque["parameters"]["sharing"]["strategy"]] = opaque
    assert set(upstream) == {"TimeSlicing", "MPS"}
    text = _example_with("1.34")
    both = spec_from(
        text.replace(
            "  - name: l4-plugin",
            "  - name: l4-mps\n    accelerator: L4\n    vmSize: g6.12xlarge\n    maxNodes: 1\n"
            "    sharing: {mode: mps}\n  - name: l4-plugin",
        )
    )
    for kind in dra.dra_kinds(both):
        if kind.sharing not in ("time-slicing", "mps"):
            continue
        [config] = dra.device_class(both, kind)["spec"]["config"]
        theirs = upstream["TimeSlicing" if kind.sharing == "time-slicing" else "MPS"]
        assert config["opaque"]["driver"] == theirs["driver"]
        ours = config["opaque"]["parameters"]
        assert (ours["apiVersion"], ours["kind"]) == (
            theirs["parameters"]["apiVersion"],
            theirs["parameters"]["kind"],
        )
        assert ours["sharing"]["strategy"] == theirs["parameters"]["sharing"]["strategy"]
    gates = dra.driver_values(both)
    assert gates is not None and gates["featureGates"] == {"MPSSupport": True, "TimeSlicingSettings": True}


def _is_label_key(name: str) -> bool:
    """apimachinery IsQualifiedName, as Kueue's content.IsLabelKey applies it."""
    prefix, _, local = name.rpartition("/")
    label = r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
    subdomain = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
    if prefix and (len(prefix) > 253 or not re.fullmatch(subdomain, prefix)):
        return False
    return 0 < len(local) <= 63 and bool(re.fullmatch(label, local))


def test_device_class_mappings_pass_kueues_configuration_validation() -> None:
    # pkg/config/validation.go validateDeviceClassMappings @ff69552e: at most 16 mappings, names and
    # class names qualified names, unique names, 1..8 classes each, no class under two names.
    spec = spec_from(_example_with("1.34"))
    config = render_kueue.kueue_configuration(spec)
    assert config is not None and config["apiVersion"] == "config.kueue.x-k8s.io/v1beta2"
    mappings = config["resources"]["deviceClassMappings"]
    assert 0 < len(mappings) <= 16
    names = [m["name"] for m in mappings]
    assert len(set(names)) == len(names) and all(_is_label_key(n) for n in names)
    owner: dict[str, str] = {}
    for m in mappings:
        assert 1 <= len(m["deviceClassNames"]) <= 8
        for device_class in m["deviceClassNames"]:
            assert _is_label_key(device_class) and owner.setdefault(device_class, m["name"]) == m["name"]
    _, result = rendered(DRA_EXAMPLE)
    covered = {
        r
        for cq in objects_of(result, "ClusterQueue")
        for g in cq["spec"]["resourceGroups"]
        for r in g["coveredResources"]
    }
    assert {n for n in names} <= covered  # every mapped name is a quota some ClusterQueue holds


# Keys of kubernetes-sigs/dra-driver-nvidia-gpu deployments/helm/dra-driver-nvidia-gpu/values.yaml
# @v0.4.1 that render sets (the chart's top-level and kubeletPlugin keys).
KNOWN_DRA_VALUE_KEYS = {
    "nvidiaDriverRoot",
    "resourceApiVersion",
    "gpuResourcesEnabledOverride",
    "resources.gpus.enabled",
    "resources.computeDomains.enabled",
    "featureGates",
    "kubeletPlugin.tolerations",
    "kubeletPlugin.affinity",
}


def _keys(tree: dict[str, Any], prefix: str = "") -> set[str]:
    out: set[str] = set()
    for key, value in tree.items():
        path = prefix + key
        if isinstance(value, dict) and path not in ("featureGates", "kubeletPlugin.affinity"):
            out |= _keys(value, path + ".")
        else:
            out.add(path)
    return out


@pytest.mark.parametrize(
    ("provider", "root"),
    [("eks", "/"), ("aks", "/run/nvidia/driver"), ("gke", "/home/kubernetes/bin/nvidia")],
)
def test_dra_driver_values_use_its_chart_keys_and_the_providers_driver_root(provider: str, root: str) -> None:
    text = _example_with("1.34").replace("provider: eks", f"provider: {provider}")
    text = text.replace("vmSize: p5.48xlarge", "gpusPerNode: 8").replace(
        "vmSize: p4de.24xlarge", "gpusPerNode: 8"
    )
    text = text.replace("vmSize: g6.12xlarge", "gpusPerNode: 4").replace(
        "vmSize: g6.xlarge", "gpusPerNode: 1"
    )
    spec = spec_from(text)
    values = dra.driver_values(spec)
    assert values is not None and _keys(values) <= KNOWN_DRA_VALUE_KEYS
    assert values["nvidiaDriverRoot"] == root
    [term] = values["kubeletPlugin"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert term["matchExpressions"][0]["values"] == ["h100-train", "a100-mig", "l4-notebooks"]
    for pool in spec.node_pools:
        labels = device_configs.provisioning_labels(spec, pool)
        off = labels.get("nvidia.com/gpu.deploy.device-plugin") == "false"
        assert off == (pool.name != "l4-plugin"), pool.name


def test_an_all_dra_cluster_runs_no_device_plugin() -> None:
    spec = spec_from(_example_with("1.34").replace("    deviceApi: devicePlugin\n", ""))
    values = operator.operator_values(spec)
    assert values is not None and values["devicePlugin"]["enabled"] is False
    assert values["dcgmExporter"]["enabled"] is True and values["migManager"]["enabled"] is True
