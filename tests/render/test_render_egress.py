"""Egress as data: `network.egress` (every team namespace) and `teams[].egress` (that team's) become
one `allow-egress` NetworkPolicy per namespace beside default-deny and DNS; Kubernetes' own schema
(kubernetes-validate) accepts it; bad CIDRs and ports are located spec errors."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest

from gpuplane.errors import InputError
from gpuplane.render import render_all
from gpuplane.render.tenancy import namespace_network_policies, network_policies
from gpuplane.spec import parse_spec
from tests.render.render_helpers import EXAMPLES, objects_of, rendered, spec_from

SPEC = """
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: net, provider: eks, region: us-east-1, kubernetesVersion: "1.31"}
nodePools:
  - {name: l4, accelerator: L4, vmSize: g6.xlarge, maxNodes: 2}
network:
  egress:
    - name: object-storage
      cidrs: [52.216.0.0/15, 2600:1f18::/36]
      except: [52.216.8.0/24]
      ports: [443]
    - name: registry
      cidrs: [10.40.0.0/16]
      ports: [{port: 443}, {port: 5000, endPort: 5010, protocol: TCP}]
teams:
  - name: research
    namespaces: [research, research-dev]
    quotas: [{pool: l4, nominal: 2}]
    egress:
      - {name: model-hub, cidrs: [18.160.0.0/15], ports: [443]}
  - name: apps
    namespaces: [apps]
    quotas: [{pool: l4, nominal: 2}]
"""


def _policies(namespace: str) -> dict[str, dict[str, Any]]:
    result = render_all(spec_from(SPEC))
    return {
        p["metadata"]["name"]: p
        for p in objects_of(result, "NetworkPolicy")
        if p["metadata"]["namespace"] == namespace
    }


def test_cluster_and_team_egress_become_one_allow_egress_policy() -> None:
    research = _policies("research")
    assert sorted(research) == ["allow-dns", "allow-egress", "allow-same-namespace", "default-deny"]
    assert research["allow-egress"]["spec"] == {
        "podSelector": {},
        "policyTypes": ["Egress"],
        "egress": [
            {
                "to": [
                    {"ipBlock": {"cidr": "52.216.0.0/15", "except": ["52.216.8.0/24"]}},
                    {"ipBlock": {"cidr": "2600:1f18::/36"}},
                ],
                "ports": [{"protocol": "TCP", "port": 443}],
            },
            {
                "to": [{"ipBlock": {"cidr": "10.40.0.0/16"}}],
                "ports": [
                    {"protocol": "TCP", "port": 443},
                    {"protocol": "TCP", "port": 5000, "endPort": 5010},
                ],
            },
            {"to": [{"ipBlock": {"cidr": "18.160.0.0/15"}}], "ports": [{"protocol": "TCP", "port": 443}]},
        ],
    }
    assert _policies("research-dev")["allow-egress"]["spec"] == research["allow-egress"]["spec"]


def test_a_team_without_rules_of_its_own_gets_the_cluster_ones_only() -> None:
    egress = _policies("apps")["allow-egress"]["spec"]["egress"]
    assert [e["to"][0]["ipBlock"]["cidr"] for e in egress] == ["52.216.0.0/15", "10.40.0.0/16"]


def test_without_declared_egress_only_dns_and_the_namespace_are_open() -> None:
    for example in EXAMPLES:
        _, result = rendered(example)
        names = {p["metadata"]["name"] for p in objects_of(result, "NetworkPolicy")}
        assert names == {"default-deny", "allow-dns", "allow-same-namespace"}, example.name


@pytest.mark.parametrize("version", ["1.30.0", "1.34.0"])
def test_the_policies_validate_against_kubernetes_own_schema(version: str) -> None:
    for policy in objects_of(render_all(spec_from(SPEC)), "NetworkPolicy"):
        kubernetes_validate.validate(policy, version, strict=True)


def test_another_namespace_can_get_a_teams_policies_for_acceptance() -> None:
    spec = spec_from(SPEC)
    team = spec.team("research")
    assert team is not None
    mine = namespace_network_policies(spec, "gpuplane-acceptance", [team], labels={})
    theirs = network_policies(team, "research", spec)
    assert [p["metadata"]["name"] for p in mine] == [p["metadata"]["name"] for p in theirs]
    assert [p["spec"] for p in mine] == [p["spec"] for p in theirs]
    assert all(p["metadata"]["namespace"] == "gpuplane-acceptance" for p in mine)


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("{name: x, cidrs: [10.0.0.300/8]}", "is not a CIDR"),
        ("{name: x, cidrs: [10.0.0.1]}", "has no prefix length"),
        ("{name: x, cidrs: [10.0.0.0/16], except: [10.1.0.0/24]}", "is not strictly inside"),
        ("{name: x, cidrs: [10.0.0.0/16], except: [10.0.0.0/16]}", "is not strictly inside"),
        ("{name: x, cidrs: [10.0.0.0/16], ports: [70000]}", "less than or equal to 65535"),
        (
            "{name: x, cidrs: [10.0.0.0/16], ports: [{port: 500, endPort: 400}]}",
            "endPort 400 is below port 500",
        ),
        ("{name: x, cidrs: []}", "at least 1 item"),
    ],
)
def test_bad_egress_is_a_located_spec_error(rule: str, message: str) -> None:
    text = SPEC.replace("      - {name: model-hub, cidrs: [18.160.0.0/15], ports: [443]}", f"      - {rule}")
    with pytest.raises(InputError) as caught:
        parse_spec(text, "bad.yaml")
    assert message in str(caught.value)
    assert "bad.yaml:21:" in str(caught.value) and "teams[0].egress[0]" in str(caught.value)


def test_a_pools_acceptance_namespace_gets_the_egress_of_the_teams_on_the_pool() -> None:
    from gpuplane.render.tenancy import pool_network_policies

    text = SPEC.replace("    quotas: [{pool: l4, nominal: 2}]\n    egress:", "    quotas: []\n    egress:", 1)
    assert text != SPEC
    spec = spec_from(SPEC)
    policies = {p["metadata"]["name"]: p for p in pool_network_policies(spec, "acc", "l4")}
    # both teams hold l4 quota: cluster rules plus research's model hub, once each
    cidrs = [e["to"][0]["ipBlock"]["cidr"] for e in policies["allow-egress"]["spec"]["egress"]]
    assert cidrs == ["52.216.0.0/15", "10.40.0.0/16", "18.160.0.0/15"]
    assert all(p["metadata"]["namespace"] == "acc" for p in policies.values())
    only_apps = spec_from(text)
    policies = {p["metadata"]["name"]: p for p in pool_network_policies(only_apps, "acc", "l4")}
    cidrs = [e["to"][0]["ipBlock"]["cidr"] for e in policies["allow-egress"]["spec"]["egress"]]
    assert cidrs == ["52.216.0.0/15", "10.40.0.0/16"]
    for policy in policies.values():
        kubernetes_validate.validate(policy, "1.31.0", strict=True)


def test_a_team_rule_named_like_a_cluster_rule_is_kept_and_an_identical_one_once() -> None:
    from gpuplane.render.tenancy import egress_rules

    text = SPEC.replace(
        "      - {name: model-hub, cidrs: [18.160.0.0/15], ports: [443]}",
        "      - {name: registry, cidrs: [10.50.0.0/16], ports: [443]}\n"
        "      - {name: object-storage, cidrs: [52.216.0.0/15, 2600:1f18::/36], except: [52.216.8.0/24], ports: [443]}",
    )
    spec = spec_from(text)
    team = spec.team("research")
    assert team is not None
    rules = egress_rules(spec, [team])
    assert [(r.name, r.cidrs[0]) for r in rules] == [
        ("object-storage", "52.216.0.0/15"),
        ("registry", "10.40.0.0/16"),
        ("registry", "10.50.0.0/16"),
    ]
