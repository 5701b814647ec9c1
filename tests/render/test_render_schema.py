"""Every object render writes for every example passes strict schema validation: core kinds with
kubernetes-validate (strict) for the spec's Kubernetes version, Kueue kinds against the CRDs'
openAPIV3Schema (made strict: no unknown fields) plus the CRDs' CEL rules that matter here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest

from tests.render.render_helpers import all_objects, rendered
from tests.support.crds import crd_schemas

KUEUE_CRDS = (
    "clusterqueues",
    "cohorts",
    "localqueues",
    "resourceflavors",
    "topologies",
    "workloadpriorityclasses",
)
# Kinds from CRDs that kubernetes-validate cannot know; each is checked by its own test instead.
CRD_KINDS = {
    "ClusterQueue",
    "Cohort",
    "LocalQueue",
    "ResourceFlavor",
    "Topology",
    "WorkloadPriorityClass",
    "PrometheusRule",
    "ServiceMonitor",
}
DNS_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
# Kinds whose names are DNS subdomains (dots allowed), as apimachinery validates them.
DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
SUBDOMAIN_KINDS = {"DeviceClass", "ResourceClaimTemplate"}


def kueue_schemas(crd_dir: str) -> dict[tuple[str, str], dict[str, Any]]:
    """(kind, version) -> strict openAPIV3Schema, from ../shared/crds/kueue (tests.support.crds)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for name in KUEUE_CRDS:
        crd_file = Path(crd_dir) / f"kueue.x-k8s.io_{name}.yaml"
        for (kind, api_version), schema in crd_schemas(str(crd_file)).items():
            out[(kind, api_version.rpartition("/")[2])] = schema
    return out


@pytest.mark.parametrize("api", ["v1beta2", "v1beta1"])
def test_kueue_objects_match_the_crd_schema_of_their_version(
    example: Path, api: str, shared_dir: Path
) -> None:
    _, result = rendered(example, api)
    schemas = kueue_schemas(str(shared_dir / "crds" / "kueue"))
    kueue = [o for o in all_objects(result) if o["apiVersion"].startswith("kueue.x-k8s.io/")]
    assert {o["kind"] for o in kueue} >= {"ResourceFlavor", "ClusterQueue", "LocalQueue", "Cohort"}
    for obj in kueue:
        assert obj["apiVersion"] == f"kueue.x-k8s.io/{api}"
        jsonschema.validate(obj, schemas[(obj["kind"], api)])


def test_strict_crd_schema_rejects_an_unknown_field(shared_dir: Path) -> None:
    # Guards the guard: a field from the other API version must fail validation.
    schemas = kueue_schemas(str(shared_dir / "crds" / "kueue"))
    bad = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "x"},
        "spec": {"cohort": "old-name"},
    }
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schemas[("ClusterQueue", "v1beta2")])


def test_cluster_queues_satisfy_the_crd_cel_rules(example: Path) -> None:
    # jsonschema does not run x-kubernetes-validations; these are the ClusterQueue rules we touch.
    for api in ("v1beta2", "v1beta1"):
        _, result = rendered(example, api)
        for cq in (o for o in all_objects(result) if o["kind"] == "ClusterQueue"):
            spec = cq["spec"]
            cohort = spec.get("cohortName" if api == "v1beta2" else "cohort")
            for group in spec.get("resourceGroups", []):
                for flavor in group["flavors"]:
                    assert [r["name"] for r in flavor["resources"]] == group["coveredResources"]
                    if not cohort:
                        assert all(
                            "borrowingLimit" not in r and "lendingLimit" not in r for r in flavor["resources"]
                        )
            pre = spec["preemption"]
            if pre["reclaimWithinCohort"] == "Never":
                assert pre.get("borrowWithinCohort", {}).get("policy", "Never") == "Never"


def test_core_objects_pass_kubernetes_validate_strict(example: Path) -> None:
    spec, result = rendered(example)
    version = f"{spec.cluster.kubernetes_version}.0"
    core = [o for o in all_objects(result) if o["kind"] not in CRD_KINDS]
    kinds = {o["kind"] for o in core}
    assert {
        "Namespace",
        "ResourceQuota",
        "LimitRange",
        "RoleBinding",
        "NetworkPolicy",
        "PriorityClass",
        "ConfigMap",
    } <= kinds
    for obj in core:
        kubernetes_validate.validate(obj, version, strict=True)


def test_kubernetes_validate_strict_rejects_an_unknown_field() -> None:
    bad = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}, "spec": {"colour": "red"}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, "1.30.0", strict=True)


def test_prometheus_rule_has_the_operator_crd_shape(example: Path) -> None:
    _, result = rendered(example)
    rules = [o for o in all_objects(result) if o["kind"] == "PrometheusRule"]
    assert len(rules) == 1
    rule = rules[0]
    assert rule["apiVersion"] == "monitoring.coreos.com/v1"
    assert set(rule["spec"]) == {"groups"}
    for group in rule["spec"]["groups"]:
        assert set(group) <= {"name", "interval", "rules"}
        for r in group["rules"]:
            assert set(r) <= {"alert", "record", "expr", "for", "labels", "annotations"}
            assert isinstance(r["expr"], str) and r["expr"]


def test_every_object_name_is_a_valid_kubernetes_name(example: Path) -> None:
    import re

    _, result = rendered(example)
    for obj in all_objects(result):
        if obj.get("apiVersion", "").startswith("eksctl.io"):
            continue
        name = obj["metadata"]["name"]
        if obj["kind"] in SUBDOMAIN_KINDS:
            assert len(name) <= 253 and re.fullmatch(DNS_SUBDOMAIN, name), f"{obj['kind']} {name!r}"
        else:
            assert len(name) <= 63 and re.fullmatch(DNS_LABEL, name), f"{obj['kind']} {name!r}"
