"""The acceptance namespace meets the NetworkPolicies of the pool's team namespaces (issue 21
Deliver 6): default deny, DNS, its own pods and the egress the spec opens to the teams with quota
on the pool, so the data/egress step passes or fails there as production jobs would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from gpuplane.acceptance.suite import render_suite
from gpuplane.render import render_all
from gpuplane.spec import PlatformSpec
from tests.acceptance.helpers import EXAMPLES, example_pools, options_for
from tests.render.render_helpers import spec_from

EGRESS_SPEC = """
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: lab, provider: aks, region: eastus, kubernetesVersion: "1.30", resourceGroup: rg}
network:
  egress:
    - name: registry
      cidrs: [20.33.0.0/16]
      ports: [443]
nodePools:
  - name: a100
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    maxNodes: 2
  - name: t4
    accelerator: T4
    vmSize: Standard_NC4as_T4_v3
    maxNodes: 2
teams:
  - name: vision
    namespaces: [vision]
    quotas: [{pool: a100, nominal: 1}]
    egress:
      - name: object-storage
        cidrs: [10.20.0.0/16]
        except: [10.20.5.0/24]
        ports: [{port: 443}, {port: 9000, endPort: 9010}]
  - name: serving
    namespaces: [serving]
    quotas: [{pool: t4, nominal: 1}]
    egress:
      - name: model-hub
        cidrs: [52.0.0.0/8]
"""


def _objects(files: dict[str, str]) -> list[dict[str, Any]]:
    return [d for p in sorted(files) if p.endswith(".yaml") for d in yaml.safe_load_all(files[p]) if d]


def _suite(spec: PlatformSpec, pool: str) -> list[dict[str, Any]]:
    return _objects(render_suite(spec, options_for(spec, pool)).files)


def _policies(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == "NetworkPolicy"}


def test_the_acceptance_namespace_gets_the_egress_of_the_pools_teams() -> None:
    spec = spec_from(EGRESS_SPEC)
    objects = _suite(spec, "a100")
    ns = objects[0]["metadata"]["name"]
    policies = _policies(objects)
    assert sorted(policies) == ["allow-dns", "allow-egress", "allow-same-namespace", "default-deny"]
    assert {p["metadata"]["namespace"] for p in policies.values()} == {ns}
    # the cluster-wide registry rule, then vision's own (vision has quota on a100); not serving's
    assert policies["allow-egress"]["spec"]["egress"] == [
        {"to": [{"ipBlock": {"cidr": "20.33.0.0/16"}}], "ports": [{"protocol": "TCP", "port": 443}]},
        {
            "to": [{"ipBlock": {"cidr": "10.20.0.0/16", "except": ["10.20.5.0/24"]}}],
            "ports": [
                {"protocol": "TCP", "port": 443},
                {"protocol": "TCP", "port": 9000, "endPort": 9010},
            ],
        },
    ]
    # the policies come before the jobs (apply order) and carry the suite's labels (cleanup by label)
    kinds = [o["kind"] for o in objects]
    assert kinds.index("NetworkPolicy") == 1 and kinds.index("Job") > max(
        i for i, k in enumerate(kinds) if k == "NetworkPolicy"
    )
    (config,) = [o for o in objects if o["kind"] == "ConfigMap"]
    for policy in policies.values():
        assert policy["metadata"]["labels"] == config["metadata"]["labels"]
        kubernetes_validate.validate(policy, "1.30.0", strict=True)


def test_the_acceptance_policies_are_the_production_ones_of_the_pools_team() -> None:
    spec = spec_from(EGRESS_SPEC)
    team_ns = {
        o["metadata"]["name"]: o["spec"]
        for path, text in render_all(spec).files.items()
        if path.endswith(".yaml")
        for o in yaml.safe_load_all(text)
        if isinstance(o, dict)
        and o.get("kind") == "NetworkPolicy"
        and o["metadata"].get("namespace") == "serving"
    }
    got = {name: p["spec"] for name, p in _policies(_suite(spec, "t4")).items()}
    assert got == team_ns and "allow-egress" in got  # serving's model hub (and the registry), as in prod
    assert [r["to"][0]["ipBlock"]["cidr"] for r in got["allow-egress"]["egress"]] == [
        "20.33.0.0/16",
        "52.0.0.0/8",
    ]


@pytest.mark.parametrize(("example", "pool"), example_pools()[:3])
def test_examples_without_egress_keep_the_acceptance_namespace_closed(example: Path, pool: str) -> None:
    assert example in EXAMPLES
    from gpuplane.spec import load_spec

    spec = load_spec(example)
    policies = _policies(_suite(spec, pool))
    assert sorted(policies) == ["allow-dns", "allow-same-namespace", "default-deny"]
    assert policies["default-deny"]["spec"] == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
