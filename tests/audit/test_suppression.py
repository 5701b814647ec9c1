"""Suppression by annotation and config, and the GPU system-component exemption."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplane.audit import AuditConfig, load_config
from gpuplane.audit.config import Selector
from gpuplane.errors import InputError
from tests.audit.helpers import RULE_FIXTURES, audit_files, audit_yaml, rule_ids

GPU_POD = """apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: team-a
  annotations: {ANNOT}
spec:
  containers:
    - name: c
      image: vllm/vllm-openai:latest
      resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_ignore_annotation_drops_only_the_named_rules() -> None:
    noisy = rule_ids(audit_yaml(GPU_POD.replace("{ANNOT}", "{}")))
    quiet = rule_ids(audit_yaml(GPU_POD.replace("{ANNOT}", '{gpuplane.io/ignore: "GPU010,GPU014"}')))
    assert {"GPU010", "GPU014"} <= noisy
    assert quiet == noisy - {"GPU010", "GPU014"}


def test_ignore_annotation_all_drops_everything_about_the_object() -> None:
    assert audit_yaml(GPU_POD.replace("{ANNOT}", "{gpuplane.io/ignore: all}")) == []


def test_config_ignore_and_exclude() -> None:
    text = GPU_POD.replace("{ANNOT}", "{}")
    assert "GPU010" not in rule_ids(audit_yaml(text, AuditConfig(ignore=["GPU010"])))
    cfg = AuditConfig(exclude=[Selector(rule="GPU0*", namespace="team-*", kind="Pod")])
    assert audit_yaml(text, cfg) == []
    cfg = AuditConfig(exclude=[Selector(rule="GPU010", namespace="other")])
    assert "GPU010" in rule_ids(audit_yaml(text, cfg))


def test_system_components_are_exempt_by_default_and_configurable() -> None:
    path = RULE_FIXTURES / "GPU003" / "pass.yaml"
    assert "GPU003" not in rule_ids(audit_files(path))
    assert "GPU003" in rule_ids(audit_files(path, config=AuditConfig(exempt_system_components=False)))
    only_operator = AuditConfig(system_components=[Selector(namespace="gpu-operator")])
    # the fixture is NVIDIA's device plugin image in kube-system: a system node agent by its image too
    assert "GPU003" not in rule_ids(audit_files(path, config=only_operator))
    no_images = AuditConfig(system_components=[Selector(namespace="gpu-operator")], system_images=[])
    assert "GPU003" in rule_ids(audit_files(path, config=no_images))


def test_cve_rule_still_applies_to_system_components() -> None:
    text = """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: nvidia-container-toolkit-daemonset, namespace: gpu-operator}
spec:
  template:
    spec:
      containers: [{name: t, image: "nvcr.io/nvidia/k8s/container-toolkit:v1.16.1-ubuntu20.04"}]
"""
    assert rule_ids(audit_yaml(text)) == {"GPU013"}


def test_severity_override_from_config() -> None:
    found = audit_yaml(GPU_POD.replace("{ANNOT}", "{}"), AuditConfig(severity={"GPU014": "high"}))
    assert next(f for f in found if f.rule == "GPU014").severity == "high"


def test_config_file_loads_and_bad_keys_are_located(tmp_path: Path) -> None:
    good = tmp_path / "audit.yaml"
    good.write_text("ignore: [GPU014]\nexclude:\n  - {rule: GPU010, namespace: team-a}\n")
    cfg = load_config(good)
    assert cfg.ignore == ["GPU014"] and cfg.exclude[0].namespace == "team-a"
    bad = tmp_path / "bad.yaml"
    bad.write_text("ignore: [GPU014]\nexclud:\n  - {rule: GPU010}\n")
    with pytest.raises(InputError) as exc:
        load_config(bad)
    assert exc.value.problems[0].line == 2
