"""A team's default priority, applied by the cluster: jobs created in a team's namespaces without
Kueue's priority-class label (`vocab.PRIORITY_CLASS_LABEL`) get the team's `priorityClass`.

Kueue reads a job's priority only from that label (or the pods' PriorityClass) and has no
per-namespace default, so the label must be added at admission. Two mechanisms that a cluster
really runs (facts in `catalog/data/default_priority.yaml`, with sources; the choice is
`gpuplane.spec.priority_mechanism`, which `spec validate` checks too):

- a **MutatingAdmissionPolicy** (built into the API server; GA and on by default from Kubernetes
  1.36, beta behind a feature gate in 1.34-1.35, alpha in 1.32-1.33), one per team with a binding:
  an ApplyConfiguration that adds the label, when the object has none, on CREATE of the job kinds
  Kueue integrates, in namespaces labelled with the team;
- a **Kyverno ClusterPolicy** (when the spec says Kyverno is installed): the same, as a
  `patchStrategicMerge` with Kyverno's add-if-absent anchor.

`cluster.defaultPriorityBy` chooses: `auto` takes the MutatingAdmissionPolicy where it runs without
a feature gate and otherwise renders nothing (with a note); `mutatingAdmissionPolicy` also uses the
alpha/beta API (you turned it on); `kyverno`; `none`. Every object carries the default class in
`vocab.ANNOTATION_DEFAULT_PRIORITY`, which is how `explain` recognises them.
"""

from __future__ import annotations

from typing import Any

from gpuplane.render.common import k8s_object, metadata
from gpuplane.spec.models import PlatformSpec, Team
from gpuplane.spec.priority_mechanism import facts, mechanism
from gpuplane.vocab import ANNOTATION_DEFAULT_PRIORITY, LABEL_TEAM, PRIORITY_CLASS_LABEL

MAP_KIND = "MutatingAdmissionPolicy"
MAP_BINDING_KIND = "MutatingAdmissionPolicyBinding"
KYVERNO_KIND = "ClusterPolicy"
NAME_PREFIX = "gpuplane-default-priority-"


def _teams(spec: PlatformSpec) -> list[Team]:
    return [t for t in spec.teams if t.priority_class and t.namespaces]


def _no_label_condition() -> str:
    return f'!has(object.metadata.labels) || !("{PRIORITY_CLASS_LABEL}" in object.metadata.labels)'


def _map_objects(team: Team, api: str) -> list[dict[str, Any]]:
    name = NAME_PREFIX + team.name
    notes = {ANNOTATION_DEFAULT_PRIORITY: str(team.priority_class)}
    rules: dict[str, set[str]] = {}
    for job in facts()["jobs"]:
        rules.setdefault(job["group"], set()).add(job["resource"])
    resource_rules = [
        {"apiGroups": [group], "apiVersions": ["*"], "operations": ["CREATE"], "resources": sorted(res)}
        for group, res in rules.items()
    ]
    apply = f'Object{{metadata: Object.metadata{{labels: {{"{PRIORITY_CLASS_LABEL}": "{team.priority_class}"}}}}}}'
    policy = k8s_object(
        api,
        MAP_KIND,
        metadata(name, labels={LABEL_TEAM: team.name}, annotations=notes),
        spec={
            "failurePolicy": "Fail",
            "reinvocationPolicy": "Never",
            "matchConstraints": {
                "namespaceSelector": {"matchLabels": {LABEL_TEAM: team.name}},
                "resourceRules": resource_rules,
            },
            "matchConditions": [{"name": "no-priority-class-label", "expression": _no_label_condition()}],
            "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": apply}}],
        },
    )
    binding = k8s_object(
        api,
        MAP_BINDING_KIND,
        metadata(name, labels={LABEL_TEAM: team.name}, annotations=notes),
        spec={"policyName": name},
    )
    return [policy, binding]


def _kyverno_object(team: Team, api: str) -> dict[str, Any]:
    name = NAME_PREFIX + team.name
    kinds = [f"{j['group']}/{j['version']}/{j['kind']}" for j in facts()["jobs"]]
    rule = {
        "name": "default-priority-class",
        "match": {
            "any": [
                {
                    "resources": {
                        "kinds": kinds,
                        "operations": ["CREATE"],
                        "namespaceSelector": {"matchLabels": {LABEL_TEAM: team.name}},
                    }
                }
            ]
        },
        "mutate": {
            "patchStrategicMerge": {
                "metadata": {"labels": {f"+({PRIORITY_CLASS_LABEL})": team.priority_class}}
            }
        },
    }
    return k8s_object(
        api,
        KYVERNO_KIND,
        metadata(
            name,
            labels={LABEL_TEAM: team.name},
            annotations={ANNOTATION_DEFAULT_PRIORITY: str(team.priority_class)},
        ),
        spec={"background": False, "rules": [rule]},
    )


def default_priority_objects(spec: PlatformSpec) -> list[dict[str, Any]]:
    """The objects that give each team's jobs its default priority class (none when no mechanism)."""
    how = mechanism(spec)
    out: list[dict[str, Any]] = []
    for team in _teams(spec):
        if how.kind == "map":
            out += _map_objects(team, how.api)
        elif how.kind == "kyverno":
            out.append(_kyverno_object(team, how.api))
    return out


def default_priority_notes(spec: PlatformSpec) -> list[str]:
    """What render says about the teams' default priorities."""
    teams = _teams(spec)
    if not teams:
        return []
    how = mechanism(spec)
    names = ", ".join(f"{t.name} -> {t.priority_class}" for t in teams)
    if how.kind:
        return [
            f"default priority classes ({names}) are applied by {how.why} to jobs created without the {PRIORITY_CLASS_LABEL} label"
        ]
    return [
        f"default priority classes ({names}) are NOT applied: {how.why}; jobs without the "
        f"{PRIORITY_CLASS_LABEL} label run at priority 0 unless a PriorityClass is the global default"
    ]
