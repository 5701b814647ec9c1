"""Table tests for what counts as a default-deny NetworkPolicy and as tenant RBAC."""

from __future__ import annotations

from typing import Any

import pytest

from gpuplane.audit.objects import K8sObject
from gpuplane.audit.rules.rbac import grants
from gpuplane.audit.rules.tenancy import _default_deny


def _np(spec: dict[str, Any]) -> K8sObject:
    return K8sObject(
        {"kind": "NetworkPolicy", "metadata": {"name": "n", "namespace": "a"}, "spec": spec}, "f.yaml"
    )


@pytest.mark.parametrize(
    ("spec", "deny"),
    [
        ({"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}, True),
        ({"podSelector": {}}, True),
        ({"podSelector": {}, "policyTypes": ["Egress"]}, False),
        ({"podSelector": {"matchLabels": {"app": "db"}}, "policyTypes": ["Ingress"]}, False),
        ({"podSelector": {}, "ingress": [{}]}, False),
        ({"podSelector": {}, "ingress": [{"from": [{"podSelector": {}}]}]}, True),
    ],
)
def test_default_deny(spec: dict[str, Any], deny: bool) -> None:
    assert _default_deny(_np(spec)) is deny


@pytest.mark.parametrize(
    ("kind", "rule", "what"),
    [
        ("ClusterRole", {"apiGroups": [""], "resources": ["nodes"], "verbs": ["patch"]}, ["nodes"]),
        ("ClusterRole", {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}, ["nodes", "exec"]),
        ("Role", {"apiGroups": [""], "resources": ["pods/exec"], "verbs": ["create"]}, ["exec"]),
        ("ClusterRole", {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list"]}, []),
        ("ClusterRole", {"apiGroups": ["apps"], "resources": ["*"], "verbs": ["*"]}, []),
    ],
)
def test_dangerous_grants(kind: str, rule: dict[str, Any], what: list[str]) -> None:
    role = K8sObject({"kind": kind, "metadata": {"name": "r"}, "rules": [rule]}, "f.yaml")
    assert [g.what for g in grants(role)] == what
