"""In-cluster exporter objects (render/exporter.py): valid Kubernetes, least privilege, hardened container."""

from __future__ import annotations

from pathlib import Path

import kubernetes_validate
import pytest

from gpuplane.render.exporter import exporter_manifests
from gpuplane.spec import PlatformSpec, load_spec, parse_spec


@pytest.fixture(scope="module")
def spec(repo_dir: Path) -> PlatformSpec:
    return load_spec(repo_dir / "examples" / "aks-platform.yaml")


def test_core_objects_validate_against_kubernetes_schemas(spec: PlatformSpec) -> None:
    objects = exporter_manifests(spec)
    kinds = [o["kind"] for o in objects]
    assert kinds == [
        "ServiceAccount",
        "Role",
        "RoleBinding",
        "ConfigMap",
        "Deployment",
        "Service",
        "ServiceMonitor",
    ]
    for obj in objects:
        if obj["kind"] != "ServiceMonitor":  # a CRD; kubernetes-validate knows only built-in kinds
            kubernetes_validate.validate(obj, "1.30.0", strict=True)
        assert obj["metadata"]["namespace"] == spec.monitoring.namespace


def test_rbac_grants_only_reading_its_own_spec(spec: PlatformSpec) -> None:
    objects = {o["kind"]: o for o in exporter_manifests(spec)}
    rules = objects["Role"]["rules"]
    assert rules == [
        {
            "apiGroups": [""],
            "resources": ["configmaps"],
            "resourceNames": [objects["ConfigMap"]["metadata"]["name"]],
            "verbs": ["get"],
        }
    ]
    assert objects["ServiceAccount"]["automountServiceAccountToken"] is False
    assert not any(o["kind"].startswith("Cluster") for o in objects.values())


def test_container_is_hardened_and_points_at_the_mounted_spec(spec: PlatformSpec) -> None:
    deployment = next(o for o in exporter_manifests(spec) if o["kind"] == "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    sc = container["securityContext"]
    assert sc["runAsNonRoot"] and sc["readOnlyRootFilesystem"] and not sc["allowPrivilegeEscalation"]
    assert sc["capabilities"] == {"drop": ["ALL"]}
    assert container["args"][:2] == ["exporter", "--prometheus"]
    assert "http://prometheus-operated.gpu-monitoring.svc:9090" in container["args"]
    # the exporter listens on 127.0.0.1 by default; in a pod Prometheus and the probes come from outside
    address = container["args"][container["args"].index("--address") + 1]
    assert address == "0.0.0.0"


def test_configmap_spec_loads_back_to_the_same_spec(spec: PlatformSpec) -> None:
    config = next(o for o in exporter_manifests(spec) if o["kind"] == "ConfigMap")
    again, problems = parse_spec(config["data"]["platform.yaml"], "configmap.yaml")
    assert again == spec and not [p for p in problems if p.severity == "error"]


def test_service_monitor_selects_the_service(spec: PlatformSpec) -> None:
    objects = {o["kind"]: o for o in exporter_manifests(spec, service_monitor_labels={"release": "kps"})}
    monitor = objects["ServiceMonitor"]
    assert (
        monitor["spec"]["selector"]["matchLabels"].items() <= objects["Service"]["metadata"]["labels"].items()
    )
    assert monitor["metadata"]["labels"]["release"] == "kps"
    assert monitor["spec"]["endpoints"][0]["port"] == objects["Service"]["spec"]["ports"][0]["name"]
