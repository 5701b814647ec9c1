"""A team's default priority class reaches the jobs that name none, through a mechanism the cluster
runs: a MutatingAdmissionPolicy (GA from Kubernetes 1.36; alpha/beta APIs when the spec says the
gate is on) or a Kyverno ClusterPolicy. Rendered objects validate against Kubernetes' own schema
(kubernetes-validate) or, for Kyverno, a schema written from its API types; explain applies them;
the twin's jobs default to the team's priority."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
from typer.testing import CliRunner

from gpuplane.cli import app
from gpuplane.errors import InputError
from gpuplane.render import render_all
from gpuplane.render.default_priority import default_priority_objects
from gpuplane.sim.replay import team_queues
from gpuplane.spec import parse_spec
from tests.render.render_helpers import EXAMPLES, rendered, spec_from

SPEC = """
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: prio, provider: eks, region: us-east-1, kubernetesVersion: "VERSION"BY}
nodePools:
  - {name: l4, accelerator: L4, vmSize: g6.xlarge, maxNodes: 4}
teams:
  - {name: serving, namespaces: [serving, serving-canary], quotas: [{pool: l4, nominal: 2}], priorityClass: critical}
  - {name: research, namespaces: [research], quotas: [{pool: l4, nominal: 2}]}
queueing:
  priorityClasses:
    - {name: critical, value: 1000}
    - {name: low, value: 10}
"""

JOBS = """\
apiVersion: batch/v1
kind: Job
metadata: {name: unlabelled, namespace: serving, labels: {kueue.x-k8s.io/queue-name: serving}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}}}]
---
apiVersion: batch/v1
kind: Job
metadata:
  name: labelled
  namespace: serving
  labels: {kueue.x-k8s.io/queue-name: serving, kueue.x-k8s.io/priority-class: low}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: other-team, namespace: research, labels: {kueue.x-k8s.io/queue-name: research}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}}}]
"""

LABEL = "kueue.x-k8s.io/priority-class"


def _spec(version: str, by: str = "") -> str:
    return SPEC.replace("VERSION", version).replace("BY", f", defaultPriorityBy: {by}" if by else "")


@pytest.mark.parametrize(
    ("version", "by", "api"),
    [
        ("1.36", "", "admissionregistration.k8s.io/v1"),
        ("1.37", "auto", "admissionregistration.k8s.io/v1"),
        ("1.36", "mutatingAdmissionPolicy", "admissionregistration.k8s.io/v1"),
        ("1.35", "mutatingAdmissionPolicy", "admissionregistration.k8s.io/v1beta1"),
        ("1.34", "mutatingAdmissionPolicy", "admissionregistration.k8s.io/v1beta1"),
        ("1.33", "mutatingAdmissionPolicy", "admissionregistration.k8s.io/v1alpha1"),
        ("1.32", "mutatingAdmissionPolicy", "admissionregistration.k8s.io/v1alpha1"),
    ],
)
def test_a_mutating_admission_policy_per_team_with_a_class_valid_for_its_version(
    version: str, by: str, api: str
) -> None:
    objs = default_priority_objects(spec_from(_spec(version, by)))
    assert [(o["apiVersion"], o["kind"], o["metadata"]["name"]) for o in objs] == [
        (api, "MutatingAdmissionPolicy", "gpuplane-default-priority-serving"),
        (api, "MutatingAdmissionPolicyBinding", "gpuplane-default-priority-serving"),
    ]
    policy, binding = objs
    assert policy["spec"]["matchConstraints"]["namespaceSelector"] == {
        "matchLabels": {"gpuplane.io/team": "serving"}
    }
    rules = {
        g: r
        for rule in policy["spec"]["matchConstraints"]["resourceRules"]
        for g in rule["apiGroups"]
        for r in [rule["resources"]]
    }
    assert (
        rules["batch"] == ["jobs"] and "rayjobs" in rules["ray.io"] and "pytorchjobs" in rules["kubeflow.org"]
    )
    assert all(
        rule["operations"] == ["CREATE"] for rule in policy["spec"]["matchConstraints"]["resourceRules"]
    )
    assert policy["spec"]["matchConditions"] == [
        {
            "name": "no-priority-class-label",
            "expression": f'!has(object.metadata.labels) || !("{LABEL}" in object.metadata.labels)',
        }
    ]
    assert policy["spec"]["mutations"] == [
        {
            "patchType": "ApplyConfiguration",
            "applyConfiguration": {
                "expression": f'Object{{metadata: Object.metadata{{labels: {{"{LABEL}": "critical"}}}}}}'
            },
        }
    ]
    assert binding["spec"] == {"policyName": "gpuplane-default-priority-serving"}
    for obj in objs:
        kubernetes_validate.validate(obj, f"{version}.0", strict=True)


@pytest.mark.parametrize(
    ("version", "why"),
    [
        (
            "1.30",
            "Kubernetes 1.30 has no MutatingAdmissionPolicy API (alpha from 1.32, on by default from 1.36)",
        ),
        ("1.31", "Kubernetes 1.31 has no MutatingAdmissionPolicy API"),
        ("1.32", "Kubernetes 1.32 runs MutatingAdmissionPolicies only behind a feature gate"),
        ("1.34", "Kubernetes 1.34 runs MutatingAdmissionPolicies only behind a feature gate"),
        (
            "1.35",
            "Kubernetes 1.35 runs MutatingAdmissionPolicies only behind a feature gate (on by default from 1.36)",
        ),
    ],
)
def test_auto_renders_nothing_below_ga_and_says_the_default_is_not_applied(version: str, why: str) -> None:
    result = render_all(spec_from(_spec(version)))
    assert "kueue/default-priority.yaml" not in result.files
    (note,) = [n for n in result.notes if "default priority classes" in n]
    assert note.startswith("default priority classes (serving -> critical) are NOT applied: " + why), note


def test_none_renders_nothing() -> None:
    assert default_priority_objects(spec_from(_spec("1.36", "none"))) == []


def test_examples_say_whether_their_team_defaults_are_applied() -> None:
    for example in EXAMPLES:
        spec, result = rendered(example)
        if any(t.priority_class for t in spec.teams):
            assert any("default priority classes (" in n for n in result.notes), example.name


def test_mutating_admission_policy_on_a_version_without_it_is_a_located_error() -> None:
    with pytest.raises(InputError) as caught:
        parse_spec(_spec("1.31", "mutatingAdmissionPolicy"), "p.yaml")
    text = str(caught.value)
    assert "p.yaml:4:" in text and "cluster.defaultPriorityBy" in text
    assert (
        "Kubernetes 1.31 has no MutatingAdmissionPolicy API (alpha from 1.32, on by default from 1.36)"
        in text
    )


# Kyverno ClusterPolicy, the fields rendered, from kyverno/kyverno api/kyverno/v1 (spec_types.go Spec
# {rules, background}, rule_types.go Rule {name, match, mutate}, match_resources_types.go
# MatchResources {any: ResourceFilters}, resource_description_types.go ResourceDescription {kinds,
# namespaceSelector, operations}, common_types.go Mutation {patchStrategicMerge: preserve unknown}).
_SELECTOR = {
    "type": "object",
    "properties": {"matchLabels": {"type": "object", "additionalProperties": {"type": "string"}}},
    "additionalProperties": False,
}
KYVERNO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": "kyverno.io/v1"},
        "kind": {"const": "ClusterPolicy"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "background": {"type": "boolean"},
                "rules": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["name", "match"],
                        "additionalProperties": False,
                        "properties": {
                            "name": {"type": "string", "maxLength": 63},
                            "match": {
                                "type": "object",
                                "additionalProperties": False,
                                "properties": {
                                    "any": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "additionalProperties": False,
                                            "properties": {
                                                "resources": {
                                                    "type": "object",
                                                    "additionalProperties": False,
                                                    "properties": {
                                                        "kinds": {
                                                            "type": "array",
                                                            "items": {"type": "string"},
                                                        },
                                                        "namespaceSelector": _SELECTOR,
                                                        "operations": {
                                                            "type": "array",
                                                            "items": {
                                                                "enum": [
                                                                    "CREATE",
                                                                    "CONNECT",
                                                                    "UPDATE",
                                                                    "DELETE",
                                                                ]
                                                            },
                                                        },
                                                    },
                                                }
                                            },
                                        },
                                    }
                                },
                            },
                            "mutate": {
                                "type": "object",
                                "additionalProperties": False,
                                "properties": {"patchStrategicMerge": {"type": "object"}},
                            },
                        },
                    },
                },
            },
        },
    },
}


def test_kyverno_renders_a_cluster_policy_that_adds_the_label_if_absent() -> None:
    (policy,) = default_priority_objects(spec_from(_spec("1.30", "kyverno")))
    jsonschema.validate(policy, KYVERNO_SCHEMA)
    (rule,) = policy["spec"]["rules"]
    resources = rule["match"]["any"][0]["resources"]
    assert resources["namespaceSelector"] == {"matchLabels": {"gpuplane.io/team": "serving"}}
    assert "batch/v1/Job" in resources["kinds"] and "ray.io/v1/RayJob" in resources["kinds"]
    assert rule["mutate"] == {"patchStrategicMerge": {"metadata": {"labels": {f"+({LABEL})": "critical"}}}}


def _explain(tmp_path: Path, spec_text: str) -> dict[str, int]:
    spec = tmp_path / "spec.yaml"
    spec.write_text(spec_text)
    out = tmp_path / "out"
    runner = CliRunner()
    result = runner.invoke(app, ["render", str(spec), "-o", str(out)])
    assert result.exit_code == 0, result.output
    jobs = tmp_path / "jobs.yaml"
    jobs.write_text(JOBS)
    args = ["explain", "-o", "json", "-f", str(out / "kueue"), "-f", str(out / "tenancy"), "-f", str(jobs)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return {j["job"]: j["priority"] for j in report["jobs"]}


@pytest.mark.parametrize(
    ("version", "by"), [("1.36", ""), ("1.34", "mutatingAdmissionPolicy"), ("1.30", "kyverno")]
)
def test_explain_gives_an_unlabelled_job_in_a_team_namespace_the_teams_priority(
    tmp_path: Path, version: str, by: str
) -> None:
    assert _explain(tmp_path, _spec(version, by)) == {
        "Job serving/unlabelled": 1000,
        "Job serving/labelled": 10,
        "Job research/other-team": 0,
    }


def test_explain_without_a_policy_leaves_the_job_at_priority_zero(tmp_path: Path) -> None:
    assert _explain(tmp_path, _spec("1.30"))["Job serving/unlabelled"] == 0


def test_the_twins_jobs_default_to_the_class_the_policy_sets() -> None:
    queues = {q.name: q.priority for q in team_queues(spec_from(_spec("1.36")))}
    assert queues == {"serving": 1000, "research": 0}


def test_only_kyvernos_cluster_policy_is_read_nvidias_is_still_skipped() -> None:
    from gpuplane.kueue import parse_objects

    kyverno = default_priority_objects(spec_from(_spec("1.30", "kyverno")))[0]
    nvidia = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cluster-policy"}}
    parsed = parse_objects([kyverno, nvidia])
    assert [r.data["apiVersion"] for r in parsed.k8s] == ["kyverno.io/v1"]
    assert any("skipped ClusterPolicy cluster-policy" in n for n in parsed.notes)
