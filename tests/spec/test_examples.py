"""The shipped examples load, resolve against the catalog and expose consistent derived facts."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplane.costs import pool_price
from gpuplane.spec import derived, load_spec_with_warnings, parse_spec
from gpuplane.vocab import LABEL_ACCELERATOR, LABEL_CAPACITY, LABEL_POOL

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yaml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_is_valid_without_warnings(path: Path) -> None:
    spec, warnings = load_spec_with_warnings(path)
    assert warnings == []
    assert spec.node_pools and spec.teams


def test_gpus_per_node_come_from_the_vm_catalog() -> None:
    spec, _ = load_spec_with_warnings(Path(EXAMPLES[0]).parent / "gke-h100.yaml")
    pool = spec.pool("h100-spot")
    assert pool is not None
    assert pool.gpus_per_node == 8  # a3-highgpu-8g carries 8 H100s


def test_gpu_pool_gets_default_taint_and_label_schema() -> None:
    spec, _ = load_spec_with_warnings(Path(EXAMPLES[0]).parent / "aks-platform.yaml")
    pool = spec.pool("a100-spot")
    assert pool is not None
    assert [(t.key, t.value, t.effect) for t in pool.taints] == [("nvidia.com/gpu", "present", "NoSchedule")]
    labels = derived.node_labels(pool)
    assert labels[LABEL_POOL] == "a100-spot"
    assert labels[LABEL_CAPACITY] == "spot"
    assert labels[LABEL_ACCELERATOR] == "a100-80gb"


def test_mixed_mig_pool_offers_one_resource_per_profile() -> None:
    spec, _ = load_spec_with_warnings(Path(EXAMPLES[0]).parent / "aks-platform.yaml")
    pool = spec.pool("a100-mig")
    assert pool is not None
    assert derived.resources_per_node(pool) == {
        "nvidia.com/mig-1g.10gb": 2,
        "nvidia.com/mig-2g.20gb": 1,
        "nvidia.com/mig-3g.40gb": 1,
    }


def test_time_slicing_multiplies_advertised_gpus() -> None:
    spec, _ = load_spec_with_warnings(Path(EXAMPLES[0]).parent / "eks-mixed.yaml")
    pool = spec.pool("l4-shared")
    assert pool is not None
    assert pool.gpus_per_node == 4
    assert derived.resources_per_node(pool) == {"nvidia.com/gpu": 16}


def test_quota_above_pool_capacity_is_a_warning_not_an_error() -> None:
    text = """\
cluster: {name: c, provider: aks, region: eastus}
nodePools:
  - {name: t4, accelerator: T4, vmSize: Standard_NC4as_T4_v3, maxNodes: 2}
teams:
  - name: a
    namespaces: [a]
    quotas: [{pool: t4, nominal: 5}]
"""
    spec, warnings = parse_spec(text, "w.yaml")
    assert spec.team("a") is not None
    assert len(warnings) == 1
    assert warnings[0].path == "teams[0].quotas[0].nominal" and warnings[0].line == 7
    assert "can hold at maxNodes (2)" in warnings[0].message


def test_spot_price_is_used_for_spot_pools() -> None:
    spec, _ = load_spec_with_warnings(Path(EXAMPLES[0]).parent / "aks-platform.yaml")
    spot, on_demand = spec.pool("a100-spot"), spec.pool("a100-mig")
    assert spot is not None and on_demand is not None
    prices = pool_price(spec, spot)
    assert prices.known and prices.spot_hourly > 0 and prices.on_demand_hourly > 0
    assert prices.node_hourly == prices.spot_hourly
    assert pool_price(spec, on_demand).node_hourly == pool_price(spec, on_demand).on_demand_hourly
    assert prices.spot_hourly < prices.on_demand_hourly


def test_time_sliced_pool_shared_by_two_teams_is_a_warning() -> None:
    text = """\
cluster: {name: c, provider: eks, region: us-east-1}
nodePools:
  - name: l4
    accelerator: L4
    vmSize: g6.xlarge
    maxNodes: 4
    sharing: {mode: time-slicing, replicas: 4}
teams:
  - {name: a, namespaces: [a], quotas: [{pool: l4, nominal: 8}]}
  - {name: b, namespaces: [b], quotas: [{pool: l4, nominal: 8}]}
"""
    _, warnings = parse_spec(text, "ts.yaml")
    assert [(w.path, w.line) for w in warnings] == [("nodePools[0].sharing.mode", 7)]
    assert "shared by teams a, b" in warnings[0].message


def test_kubectl_style_shorthands_load_like_the_long_forms() -> None:
    text = """\
cluster: {name: c, provider: eks, region: us-east-1, kubernetesVersion: 1.30.4}
nodePools:
  - name: l4
    accelerator: L4
    vmSize: g6.xlarge
    spot: true
    sharing: exclusive
    taints: ["nvidia.com/gpu=present:NoSchedule", "dedicated:NoExecute"]
"""
    spec, _ = parse_spec(text, "short.yaml")
    pool = spec.node_pools[0]
    assert spec.cluster.kubernetes_version == "1.30"
    assert pool.spot.enabled is True and pool.sharing.mode == "exclusive"
    assert [(t.key, t.value, t.effect) for t in pool.taints] == [
        ("nvidia.com/gpu", "present", "NoSchedule"),
        ("dedicated", "", "NoExecute"),
    ]


def test_kubernetes_version_written_as_a_yaml_number_keeps_its_minor() -> None:
    spec, _ = parse_spec(
        "cluster: {name: c, provider: generic, kubernetesVersion: 1.30}\nnodePools: [{name: cpu}]\n", "v.yaml"
    )
    assert spec.cluster.kubernetes_version == "1.30"
