"""NVIDIA's own system components (GFD, device plugin, DCGM exporter, MIG manager, DRA driver,
validator) are recognised as such wherever they are deployed: no false alarm on the vendor's
manifests (fixtures/vendor/README.md names what each is modelled on)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplane.audit import AuditConfig
from gpuplane.audit.model import severity_rank
from tests.audit.helpers import FIXTURES, audit_files, audit_yaml, rule_ids

VENDOR = FIXTURES / "vendor"
CASES = sorted(VENDOR.glob("*.yaml"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_no_high_finding_on_nvidia_manifests(path: Path) -> None:
    found = [f for f in audit_files(path) if severity_rank(f.severity) >= severity_rank("high")]
    assert found == []


def test_gfd_for_mig_mixed_sets_the_monitor_env_without_a_gpu_and_is_not_gpu002() -> None:
    text = (VENDOR / "gfd-mig-mixed.yaml").read_text()
    assert "NVIDIA_MIG_MONITOR_DEVICES" in text and "namespace" not in text
    assert "GPU002" not in rule_ids(audit_yaml(text))


def test_the_same_daemonset_with_a_tenant_image_is_still_judged() -> None:
    text = (VENDOR / "gfd-mig-mixed.yaml").read_text()
    text = text.replace("nvcr.io/nvidia/k8s-device-plugin:v0.20.1", "docker.io/acme/gfd:v1")
    assert "GPU002" in rule_ids(audit_yaml(text))


def test_a_vendor_image_in_a_deployment_is_not_a_node_agent() -> None:
    text = (VENDOR / "gfd-mig-mixed.yaml").read_text().replace("kind: DaemonSet", "kind: Deployment")
    assert "GPU002" in rule_ids(audit_yaml(text))


def test_one_tenant_container_beside_a_vendor_one_keeps_the_daemonset_judged() -> None:
    text = (VENDOR / "gfd-mig-mixed.yaml").read_text()
    text = text.replace(
        "      containers:\n",
        "      containers:\n        - {name: sidecar, image: busybox:1.36}\n",
        1,
    )
    assert "GPU002" in rule_ids(audit_yaml(text))


def test_exemption_off_judges_vendor_images_too() -> None:
    findings = audit_files(VENDOR / "gfd-mig-mixed.yaml", config=AuditConfig(exempt_system_components=False))
    assert "GPU002" in rule_ids(findings)


def test_system_images_are_configurable() -> None:
    config = AuditConfig(system_images=[])
    assert "GPU002" in rule_ids(audit_files(VENDOR / "gfd-mig-mixed.yaml", config=config))


def test_a_vendor_daemonset_in_a_tenant_namespace_is_judged() -> None:
    text = (VENDOR / "gfd-mig-mixed.yaml").read_text()
    text = text.replace(
        "  name: gpu-feature-discovery\n", "  name: gpu-feature-discovery\n  namespace: team-a\n", 1
    )
    assert "GPU002" in rule_ids(audit_yaml(text))
