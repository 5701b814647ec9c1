"""The spec's topology: provider default levels, Kueue's Topology rules, placements, span factors."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplane.catalog.topology import fabrics, provider_topology
from gpuplane.errors import InputError
from gpuplane.spec.loader import parse_spec
from gpuplane.spec.models import PlatformSpec
from gpuplane.spec.topology import pool_levels, span_factor, synthetic_nodes
from gpuplane.vocab import HOSTNAME_LABEL

REPO = Path(__file__).resolve().parents[2]
BASE = """
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {{name: t, provider: {provider}, region: r, kubernetesVersion: "1.31"}}
nodePools:
  - name: gpu
    accelerator: H100-80GB
    vmSize: "{vm}"
    gpusPerNode: 8
    maxNodes: 8
    zones: [z]
    topology: {topology}
teams:
  - name: a
    namespaces: [a]
    quotas: [{{pool: gpu, nominal: 8}}]
    placement: {placement}
"""


BUILT = parse_spec(BASE.format(provider="eks", vm="p5.48xlarge", topology="{}", placement="null"), "t.yaml")[
    0
]


def _spec(
    provider: str = "eks", topology: str = "{}", placement: str = "null"
) -> tuple[PlatformSpec, list[str]]:
    vm = {"eks": "p5.48xlarge", "gke": "a3-megagpu-8g", "aks": "Standard_ND96isr_H100_v5"}.get(provider, "")
    text = BASE.format(provider=provider, vm=vm, topology=topology, placement=placement)
    try:
        spec, problems = parse_spec(text, "t.yaml")
    except InputError as exc:
        return BUILT, [p.message for p in exc.problems]
    return spec, [p.message for p in problems if p.severity == "error"]


@pytest.mark.parametrize("provider", ["eks", "gke"])
def test_levels_default_to_the_providers_labels_hostname_last(provider: str) -> None:
    spec, errors = _spec(provider)
    assert errors == []
    fact = provider_topology(provider)
    assert fact is not None and fact.levels is not None and fact.source
    assert pool_levels(spec, spec.node_pools[0]) == fact.levels
    assert fact.levels[-1] == HOSTNAME_LABEL


def test_a_provider_without_topology_labels_must_list_them() -> None:
    _, errors = _spec("aks")
    assert any("no default topology levels for aks" in e for e in errors)
    _, errors = _spec("aks", "{levels: [example.com/rack, kubernetes.io/hostname]}")
    assert errors == []


@pytest.mark.parametrize(
    ("topology", "wanted"),
    [
        ("{levels: [kubernetes.io/hostname, example.com/rack]}", "may only be the last"),
        ("{levels: [example.com/rack, example.com/rack]}", "unique levels"),
        ("{levels: [example.com/rack], domainSizes: {example.com/block: 4}}", "not a level of this pool"),
        ("{levels: [example.com/rack], slowdown: {example.com/block: 1.2}}", "not a level of this pool"),
    ],
)
def test_kueues_topology_rules_are_checked(topology: str, wanted: str) -> None:
    _, errors = _spec("generic", topology)
    assert any(wanted in e for e in errors), errors


def test_a_placement_level_must_be_in_the_teams_pools() -> None:
    _, errors = _spec("eks", "{}", "{required: example.com/rack}")
    assert any("is not in pool gpu's topology" in e for e in errors)
    _, errors = _spec("eks", "{}", "{required: topology.k8s.aws/network-node-layer-3}")
    assert errors == []


def test_span_factor_counts_tiers_above_one_node_levels() -> None:
    # GKE: block, subblock, host (1 node each here), hostname. A job inside one subblock is tier 1.
    spec, errors = _spec(
        "gke",
        "{domainSizes: {cloud.google.com/gce-topology-host: 1, cloud.google.com/gce-topology-subblock: 4},"
        " fabric: {type: TCPXO, nicsPerNode: 8}}",
    )
    assert errors == []
    pool = spec.node_pools[0]
    tcpxo = fabrics()["TCPXO"].runtime_factor
    assert span_factor(spec, pool, 3) == 1.0  # one node
    assert span_factor(spec, pool, 2) == 1.0  # one host domain = one node
    assert span_factor(spec, pool, 1) == tcpxo["tier1"]  # one subblock
    assert span_factor(spec, pool, 0) == tcpxo["tier2"]  # one block
    assert span_factor(spec, pool, None) == tcpxo["tier3"]  # several blocks


def test_slowdown_in_the_spec_overrides_the_data() -> None:
    spec, _ = _spec(
        "eks", "{slowdown: {topology.k8s.aws/network-node-layer-2: 1.5, cluster: 2.0}, fabric: {type: EFA}}"
    )
    pool = spec.node_pools[0]
    assert span_factor(spec, pool, 1) == 1.5 and span_factor(spec, pool, None) == 2.0
    assert span_factor(spec, pool, 2) == fabrics()["EFA"].runtime_factor["tier1"]


def test_stand_in_nodes_fill_the_domains_in_order() -> None:
    spec, _ = _spec(
        "eks",
        "{domainSizes: {topology.k8s.aws/network-node-layer-3: 4}, fabric: {type: EFA, nicsPerNode: 32}}",
    )
    nodes = synthetic_nodes(spec)
    assert len(nodes) == 8
    layer3 = [n["metadata"]["labels"]["topology.k8s.aws/network-node-layer-3"] for n in nodes]
    assert len(set(layer3[:4])) == 1 and len(set(layer3[4:])) == 1 and layer3[0] != layer3[4]
    assert nodes[0]["status"]["allocatable"][str(fabrics()["EFA"].device_resource)] == "32"
