"""Tenancy objects: team Namespaces, GPU ResourceQuotas, LimitRanges, RoleBindings, default-deny
NetworkPolicies with DNS and the spec's declared egress allowed, and PriorityClasses.

Kueue decides what a team may run; these objects are the guard rails around it: a pod that
bypasses Kueue still cannot take more GPUs than the team could ever hold, and a namespace's pods
talk only to each other, to DNS and to the destinations the spec opens (`network.egress`,
`teams[].egress`: object storage, registries, model hubs) unless the team adds policies of its own.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Sequence
from importlib import resources
from typing import Any

import yaml

from gpuplane.catalog.providers import chart_facts
from gpuplane.render.common import GPU_OPERATOR_NAMESPACE, k8s_object, metadata
from gpuplane.render.quotas import team_flavor_quotas
from gpuplane.sharing import dra
from gpuplane.spec import derived
from gpuplane.spec.models import EgressRule, PlatformSpec, Team
from gpuplane.vocab import (
    DRA_QUOTA_SUFFIX,
    LABEL_KUEUE_MANAGED,
    LABEL_TEAM,
    NAMESPACE_NAME_LABEL,
    POD_SECURITY_AUDIT_LABEL,
    POD_SECURITY_ENFORCE_LABEL,
    POD_SECURITY_WARN_LABEL,
)

# Pod Security Admission: GPU images often run as root, so `baseline` is enforced and
# `restricted` only warned and audited (https://kubernetes.io/docs/concepts/security/pod-security-standards/).
PSA_ENFORCE = "baseline"
PSA_WARN = "restricted"
# The built-in aggregated ClusterRole that lets a team create and edit workloads in its namespaces.
TEAM_CLUSTER_ROLE = "edit"
# Kueue's own aggregated role for reading and writing Workloads and LocalQueues in a namespace
# (kueue config/components/rbac, batch-user role); bound beside `edit` so users can see their queue.
KUEUE_USER_CLUSTER_ROLE = "kueue-batch-user-role"


def namespace(spec: PlatformSpec, team: Team, name: str) -> dict[str, Any]:
    """A team namespace: team label, PSA labels and the label Kueue's namespace selector uses."""
    labels = {
        LABEL_TEAM: team.name,
        LABEL_KUEUE_MANAGED: "true",
        POD_SECURITY_ENFORCE_LABEL: PSA_ENFORCE,
        POD_SECURITY_WARN_LABEL: PSA_WARN,
        POD_SECURITY_AUDIT_LABEL: PSA_WARN,
    }
    return k8s_object("v1", "Namespace", metadata(name, labels=labels))


def monitoring_namespace(spec: PlatformSpec) -> dict[str, Any]:
    """The namespace the PrometheusRules, dashboard and exporter live in."""
    labels = {POD_SECURITY_ENFORCE_LABEL: PSA_ENFORCE}
    return k8s_object("v1", "Namespace", metadata(spec.monitoring.namespace, labels=labels))


def operator_namespace(name: str = GPU_OPERATOR_NAMESPACE) -> dict[str, Any]:
    """The GPU Operator's (or the DRA driver's) namespace; their DaemonSets need the `privileged`
    Pod Security level (NVIDIA GPU Operator install docs label it so; the DRA kubelet plugin runs
    privileged, chart values kubeletPlugin.containers.gpus.securityContext)."""
    labels = {POD_SECURITY_ENFORCE_LABEL: "privileged"}
    return k8s_object("v1", "Namespace", metadata(name, labels=labels))


def team_gpu_caps(spec: PlatformSpec, team: Team) -> dict[str, int]:
    """Most of each GPU resource the team can hold at once (nominal + borrowing, pool-bounded)."""
    caps: dict[str, int] = {}
    for fq in team_flavor_quotas(spec, team):
        for resource, cap in fq.gpu_caps.items():
            caps[resource] = caps.get(resource, 0) + cap
    return dict(sorted(caps.items()))


def quota_key(resource: str) -> str:
    """The ResourceQuota key that limits a GPU resource: `requests.<extended resource>`, or for a
    DRA quota name the devices claimed through its DeviceClass
    (the class name + `DRA_QUOTA_SUFFIX`, Kubernetes "Quota for DRA resource claims")."""
    kind = dra.kind_of(resource)
    return f"{kind.device_class}{DRA_QUOTA_SUFFIX}" if kind else f"requests.{resource}"


def resource_quota(spec: PlatformSpec, team: Team, ns: str) -> dict[str, Any] | None:
    """GPU limits at what the team can hold through Kueue (None if no GPUs): extended resources by
    `requests.`, DRA devices by DeviceClass."""
    caps = team_gpu_caps(spec, team)
    if not caps:
        return None
    hard = {quota_key(resource): str(cap) for resource, cap in caps.items()}
    meta = metadata("gpu-quota", namespace=ns, labels={LABEL_TEAM: team.name})
    return k8s_object("v1", "ResourceQuota", meta, spec={"hard": hard})


@functools.cache
def _policy() -> dict[str, Any]:
    """The packaged tenancy policy values (`data/tenancy.yaml`)."""
    text = resources.files("gpuplane.render").joinpath("data/tenancy.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def limit_range(spec: PlatformSpec, team: Team, ns: str) -> dict[str, Any]:
    """Default cpu/memory requests for containers that set none (see data/tenancy.yaml for why
    there is no GPU `max` or default limit here)."""
    requests = {k: str(v) for k, v in _policy()["container_default_requests"].items()}
    limits = [{"type": "Container", "defaultRequest": requests}]
    meta = metadata("default-requests", namespace=ns, labels={LABEL_TEAM: team.name})
    return k8s_object("v1", "LimitRange", meta, spec={"limits": limits})


def role_bindings(team: Team, ns: str) -> list[dict[str, Any]]:
    """Bind the team's identity groups to `edit` and to Kueue's batch-user role in a namespace."""
    if not team.groups:
        return []
    subjects = [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": g} for g in team.groups]
    out = []
    for role in (TEAM_CLUSTER_ROLE, KUEUE_USER_CLUSTER_ROLE):
        meta = metadata(f"{team.name}-{role}", namespace=ns, labels={LABEL_TEAM: team.name})
        out.append(
            k8s_object(
                "rbac.authorization.k8s.io/v1",
                "RoleBinding",
                meta,
                roleRef={"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
                subjects=subjects,
            )
        )
    return out


def egress_rules(spec: PlatformSpec, teams: Sequence[Team]) -> list[EgressRule]:
    """The egress a namespace of these teams gets: the spec's `network.egress`, then each team's
    own rules. Every rule is kept (NetworkPolicy rules add up), a rule repeated word for word once."""
    out: list[EgressRule] = []
    for rule in [*spec.network.egress, *(r for t in teams for r in t.egress)]:
        if rule not in out:
            out.append(rule)
    return out


def _egress_entry(rule: EgressRule) -> dict[str, Any]:
    """One NetworkPolicy egress rule: ipBlocks (with `except` inside the CIDR it carves) and ports."""
    blocks = []
    for cidr in rule.cidrs:
        net = ipaddress.ip_network(cidr, strict=False)
        inside = [
            e
            for e in rule.except_cidrs
            if (x := ipaddress.ip_network(e, strict=False)).version == net.version
            and x.subnet_of(net)  # type: ignore[arg-type]
            and x != net
        ]
        block: dict[str, Any] = {"cidr": cidr}
        if inside:
            block["except"] = inside
        blocks.append({"ipBlock": block})
    entry: dict[str, Any] = {"to": blocks}
    if rule.ports:
        ports = []
        for p in rule.ports:
            port: dict[str, Any] = {"protocol": p.protocol, "port": p.port}
            if p.end_port is not None and p.end_port != p.port:
                port["endPort"] = p.end_port
            ports.append(port)
        entry["ports"] = ports
    return entry


def egress_policy(rules: Sequence[EgressRule], ns: str, labels: dict[str, str]) -> dict[str, Any] | None:
    """`allow-egress`: one NetworkPolicy opening every declared destination (None when none is)."""
    if not rules:
        return None
    return k8s_object(
        "networking.k8s.io/v1",
        "NetworkPolicy",
        metadata("allow-egress", namespace=ns, labels=labels),
        spec={"podSelector": {}, "policyTypes": ["Egress"], "egress": [_egress_entry(r) for r in rules]},
    )


def namespace_network_policies(
    spec: PlatformSpec, ns: str, teams: Sequence[Team], labels: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The NetworkPolicies of a namespace that runs these teams' work: default deny, DNS, its own
    pods, and the egress the spec opens to them (`egress_rules`).

    For a namespace that is not a team's own (the acceptance namespace of a pool): pass the teams
    whose namespaces it stands for, so it is as closed, and as open, as they are.
    """
    tags = dict(labels) if labels is not None else ({LABEL_TEAM: teams[0].name} if len(teams) == 1 else {})
    out = _base_policies(ns, tags)
    extra = egress_policy(egress_rules(spec, teams), ns, tags)
    if extra is not None:
        out.append(extra)
    return out


def pool_network_policies(
    spec: PlatformSpec, ns: str, pool: str, labels: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The NetworkPolicies for a namespace that tests pool `pool` (acceptance): those of the teams
    with quota on the pool (every team when none has), so the test reaches what their jobs reach."""
    teams = [t for t in spec.teams if any(q.pool == pool for q in t.quotas)] or list(spec.teams)
    return namespace_network_policies(spec, ns, teams, labels if labels is not None else {})


def network_policies(team: Team, ns: str, spec: PlatformSpec | None = None) -> list[dict[str, Any]]:
    """Deny all traffic by default; allow DNS and traffic between the namespace's own pods
    (multi-node training talks pod to pod, e.g. NCCL); with `spec`, the egress it opens."""
    if spec is not None:
        return namespace_network_policies(spec, ns, [team])
    return _base_policies(ns, {LABEL_TEAM: team.name})


def _base_policies(ns: str, labels: dict[str, str]) -> list[dict[str, Any]]:
    """default-deny, allow-dns, allow-same-namespace."""
    deny = k8s_object(
        "networking.k8s.io/v1",
        "NetworkPolicy",
        metadata("default-deny", namespace=ns, labels=labels),
        spec={"podSelector": {}, "policyTypes": ["Ingress", "Egress"]},
    )
    dns_peer = {
        "namespaceSelector": {"matchLabels": {NAMESPACE_NAME_LABEL: "kube-system"}},
        "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
    }
    dns = k8s_object(
        "networking.k8s.io/v1",
        "NetworkPolicy",
        metadata("allow-dns", namespace=ns, labels=labels),
        spec={
            "podSelector": {},
            "policyTypes": ["Egress"],
            "egress": [
                {
                    "to": [dns_peer],
                    "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
                }
            ],
        },
    )
    same_ns = k8s_object(
        "networking.k8s.io/v1",
        "NetworkPolicy",
        metadata("allow-same-namespace", namespace=ns, labels=labels),
        spec={
            "podSelector": {},
            "policyTypes": ["Ingress", "Egress"],
            "ingress": [{"from": [{"podSelector": {}}]}],
            "egress": [{"to": [{"podSelector": {}}]}],
        },
    )
    return [deny, dns, same_ns]


def priority_classes(spec: PlatformSpec) -> list[dict[str, Any]]:
    """scheduling.k8s.io PriorityClasses with the spec's names and values."""
    out = []
    for pc in spec.queueing.priority_classes:
        obj = k8s_object(
            "scheduling.k8s.io/v1",
            "PriorityClass",
            metadata(pc.name),
            value=pc.value,
            globalDefault=False,
            preemptionPolicy=pc.preemption_policy,
        )
        if pc.description:
            obj["description"] = pc.description
        out.append(obj)
    return out


def tenancy_objects(spec: PlatformSpec) -> dict[str, list[dict[str, Any]]]:
    """Tenancy objects by kind family: namespaces, quotas, limits, rbac, network, priority."""
    out: dict[str, list[dict[str, Any]]] = {
        k: [] for k in ("namespaces", "quotas", "limits", "rbac", "network", "priority")
    }
    for team in spec.teams:
        for ns in team.namespaces:
            out["namespaces"].append(namespace(spec, team, ns))
            quota = resource_quota(spec, team, ns)
            if quota:
                out["quotas"].append(quota)
            out["limits"].append(limit_range(spec, team, ns))
            out["rbac"] += role_bindings(team, ns)
            out["network"] += network_policies(team, ns, spec)
    out["namespaces"].append(monitoring_namespace(spec))
    out["namespaces"].append(operator_namespace())
    if any(derived.is_dra(p) for p in spec.node_pools):
        out["namespaces"].append(operator_namespace(chart_facts()["dra_driver"]["namespace"]))
    out["priority"] = priority_classes(spec)
    return out
