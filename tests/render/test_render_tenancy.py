"""Tenancy: namespaces with team and Pod Security labels, GPU ResourceQuotas at what a team can
hold through Kueue, LimitRanges with default requests only, RoleBindings, default-deny NetworkPolicies."""

from __future__ import annotations

from gpuplane.render.tenancy import (
    limit_range,
    namespace,
    network_policies,
    priority_classes,
    resource_quota,
    role_bindings,
    tenancy_objects,
)
from gpuplane.vocab import LABEL_TEAM
from tests.render.render_helpers import SMALL_SPEC, spec_from


def test_namespace_has_team_pod_security_and_kueue_labels() -> None:
    spec = spec_from(SMALL_SPEC)
    team = spec.team("alpha")
    assert team is not None
    labels = namespace(spec, team, "alpha")["metadata"]["labels"]
    assert labels[LABEL_TEAM] == "alpha"
    assert labels["pod-security.kubernetes.io/enforce"] == "baseline"
    assert labels["pod-security.kubernetes.io/warn"] == "restricted"
    assert labels["gpuplane.io/kueue-managed"] == "true"


def test_cluster_queue_namespace_selector_matches_the_team_namespaces() -> None:
    from gpuplane.render.kueue import cluster_queue

    spec = spec_from(SMALL_SPEC)
    team = spec.team("alpha")
    assert team is not None
    selector = cluster_queue(spec, team)["spec"]["namespaceSelector"]["matchLabels"]
    for ns in team.namespaces:
        labels = namespace(spec, team, ns)["metadata"]["labels"]
        assert all(labels.get(k) == v for k, v in selector.items())


def test_resource_quota_is_nominal_plus_borrowing_bounded_by_the_pool() -> None:
    spec = spec_from(SMALL_SPEC)
    team = spec.team("alpha")
    assert team is not None
    quota = resource_quota(spec, team, "alpha")
    assert quota is not None
    hard = quota["spec"]["hard"]
    # a100-spot: 4 + 2 borrowing = 6 (pool max 2 nodes x 4 GPUs = 8).
    # t4: nominal 8, unlimited borrowing -> the pool's 5 nodes x 4 replicas = 20.  6 + 20 = 26.
    assert hard["requests.nvidia.com/gpu"] == "26"
    # 3g.40gb: nominal 1, unlimited borrowing -> 3 nodes x 1 instance.
    assert hard["requests.nvidia.com/mig-3g.40gb"] == "3"
    assert hard["requests.nvidia.com/mig-1g.10gb"] == "6"


def test_limit_range_only_defaults_cpu_and_memory_requests() -> None:
    # A `max` or default limit on GPU resources would reject or GPU-enable every other container.
    spec = spec_from(SMALL_SPEC)
    team = spec.team("alpha")
    assert team is not None
    [item] = limit_range(spec, team, "alpha")["spec"]["limits"]
    assert item["type"] == "Container"
    assert set(item) == {"type", "defaultRequest"}
    assert set(item["defaultRequest"]) == {"cpu", "memory"}


def test_role_bindings_bind_every_group_to_edit_and_kueue_user() -> None:
    spec = spec_from(SMALL_SPEC)
    team = spec.team("alpha")
    assert team is not None
    bindings = role_bindings(team, "alpha-dev")
    assert [b["roleRef"]["name"] for b in bindings] == ["edit", "kueue-batch-user-role"]
    for binding in bindings:
        assert binding["metadata"]["namespace"] == "alpha-dev"
        assert [s["name"] for s in binding["subjects"]] == ["grp-alpha"]
        assert all(s["kind"] == "Group" for s in binding["subjects"])


def test_network_policies_deny_by_default_and_allow_dns() -> None:
    spec = spec_from(SMALL_SPEC)
    team = spec.team("alpha")
    assert team is not None
    deny, dns, same = network_policies(team, "alpha")
    assert deny["spec"] == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    assert "ingress" not in deny["spec"] and "egress" not in deny["spec"]
    ports = dns["spec"]["egress"][0]["ports"]
    assert {(p["protocol"], p["port"]) for p in ports} == {("UDP", 53), ("TCP", 53)}
    assert same["spec"]["ingress"] == [{"from": [{"podSelector": {}}]}]


def test_priority_classes_mirror_the_spec() -> None:
    spec = spec_from(SMALL_SPEC)
    [pc] = priority_classes(spec)
    assert (pc["metadata"]["name"], pc["value"], pc["description"]) == ("normal", 100, "Normal work")
    assert pc["globalDefault"] is False


def test_every_team_namespace_gets_each_guard_rail() -> None:
    spec = spec_from(SMALL_SPEC)
    objs = tenancy_objects(spec)
    team_namespaces = [ns for t in spec.teams for ns in t.namespaces]
    assert [o["metadata"]["name"] for o in objs["namespaces"]] == [
        *team_namespaces,
        "gpu-monitoring",
        "gpu-operator",
    ]
    assert [o["metadata"]["namespace"] for o in objs["quotas"]] == team_namespaces
    assert len(objs["network"]) == 3 * len(team_namespaces)
