"""Per-pool MIG strategy: on a platform mixing single- and mixed-strategy MIG pools with shared and
whole-GPU pools, every pool's resources name the same things everywhere: what the device plugin
advertises (read from the rendered ConfigMaps through the node's labels, as the plugin does),
what `gpuplane.spec.derived` says the pool offers, the Kueue flavor's quota, the EKS autoscaler's
node-template tags, and the namespace ResourceQuota; and the GPU Operator values set no
cluster-wide MIG strategy that would override the pools' own."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gpuplane.catalog import load_catalog
from gpuplane.render import render_all
from gpuplane.render.device_configs import DEFAULT_PLUGIN_KEY, provisioning_labels
from gpuplane.sharing import mig
from gpuplane.spec import derived, parse_spec
from tests.support.device_plugin_model import advertised, mig_layout, node_config

MIG_GPUS = ("A100-40GB", "A100-80GB", "H100-80GB")
CA_RESOURCE_TAG = "k8s.io/cluster-autoscaler/node-template/resources/"


@st.composite
def pools(draw: st.DrawFn, index: int) -> dict[str, Any]:
    kind = draw(st.sampled_from(["exclusive", "single", "mixed", "time-slicing", "mps"]))
    pool: dict[str, Any] = {"name": f"p{index}", "gpusPerNode": draw(st.integers(1, 8)), "maxNodes": 2}
    if kind in ("single", "mixed"):
        acc = load_catalog().accelerator(draw(st.sampled_from(MIG_GPUS)))
        assert acc is not None
        if kind == "single":
            plain = sorted(p for p in acc.mig_profiles if "+" not in p and "c." not in p)
            profile = acc.mig_profiles[draw(st.sampled_from(plain))]
            layout = [profile.name] * draw(st.integers(1, profile.max_count))
        else:
            full = draw(st.sampled_from(mig.maximal_layouts(acc)))
            layout = draw(st.lists(st.sampled_from(full), min_size=1, max_size=len(full), unique=False))
            layout = layout if mig.check_layout(acc, layout).fits else full
        pool["accelerator"] = acc.name
        pool["sharing"] = {"mode": "mig", "strategy": kind, "layout": layout}
    elif kind in ("time-slicing", "mps"):
        pool["accelerator"] = "L4"
        rename = draw(st.booleans())
        pool["sharing"] = {"mode": kind, "replicas": draw(st.integers(2, 8)), "renameShared": rename}
    else:
        pool["accelerator"] = draw(st.sampled_from(["H100-80GB", "L4"]))
    return pool


@st.composite
def platforms(draw: st.DrawFn) -> dict[str, Any]:
    provider = draw(st.sampled_from(["aks", "gke", "eks", "generic"]))
    node_pools = [draw(pools(i)) for i in range(draw(st.integers(1, 4)))]
    quotas = []
    for pool in node_pools:
        quotas.append({"pool": pool["name"], "nominal": 1})
    return {
        "apiVersion": "gpuplane.io/v1alpha1",
        "kind": "Platform",
        "cluster": {"name": "c", "provider": provider, "region": "r"},
        "nodePools": node_pools,
        "teams": [{"name": "t", "namespaces": ["t"], "quotas": quotas}],
    }


def _objects(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d]


def _team_flavor_resources(result: Any) -> dict[str, set[str]]:
    [cq] = _objects(result.files["kueue/cluster-queues.yaml"])
    out = {}
    for group in cq["spec"]["resourceGroups"]:
        for flavor in group["flavors"]:
            out[flavor["name"]] = {
                r["name"] for r in flavor["resources"] if r["name"] not in ("cpu", "memory")
            }
    return out


def _configmap(result: Any, path: str) -> dict[str, Any] | None:
    text = result.files.get(path)
    return _objects(text)[0] if text else None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(platforms())
# The defect this test pins: a single-strategy pool beside a mixed one (the plugin config said
# `mixed` for all, so the single pool advertised nvidia.com/mig-1g.10gb, not nvidia.com/gpu).
@example(
    {
        "apiVersion": "gpuplane.io/v1alpha1",
        "kind": "Platform",
        "cluster": {"name": "c", "provider": "eks", "region": "r"},
        "nodePools": [
            {"name": "p0", "gpusPerNode": 8, "maxNodes": 2, "accelerator": "H100-80GB",
             "sharing": {"mode": "mig", "strategy": "single", "layout": ["1g.10gb"] * 7}},
            {"name": "p1", "gpusPerNode": 8, "maxNodes": 2, "accelerator": "H100-80GB",
             "sharing": {"mode": "mig", "strategy": "mixed", "layout": ["3g.40gb", "2g.20gb", "1g.10gb"]}},
        ],
        "teams": [{"name": "t", "namespaces": ["t"], "quotas": [{"pool": "p0", "nominal": 1}]}],
    }
)  # fmt: skip
def test_every_pool_names_the_same_resources_everywhere(doc: dict[str, Any]) -> None:
    for quota, pool in zip(doc["teams"][0]["quotas"], doc["nodePools"], strict=False):
        if pool.get("sharing", {}).get("strategy") == "mixed":
            quota["resource"] = f"nvidia.com/mig-{sorted(pool['sharing']['layout'])[0].replace('+', '.')}"
    spec, _ = parse_spec(yaml.safe_dump(doc), "p.yaml")
    result = render_all(spec)
    plugin = _configmap(result, "devices/device-plugin-config.yaml")
    migs = _configmap(result, "devices/mig-parted-config.yaml")
    values = yaml.safe_load(result.files["devices/gpu-operator-values.yaml"])
    assert values["mig"]["strategy"] == ""  # no ClusterPolicy MIG_STRATEGY overriding the pools'
    flavors = _team_flavor_resources(result)
    groups = {}
    if spec.cluster.provider == "eks":
        groups = {
            g["name"]: g
            for g in yaml.safe_load(result.files["nodepools/eks-nodegroups.yaml"])["managedNodeGroups"]
        }
    [quota] = _objects(result.files["tenancy/resource-quotas.yaml"])
    for pool in spec.node_pools:
        labels = provisioning_labels(spec, pool)
        model = advertised(
            node_config(plugin, labels, DEFAULT_PLUGIN_KEY), mig_layout(migs, labels), pool.gpus
        )
        assert model == derived.resources_per_node(pool), pool.name
        if pool.name in flavors:
            assert set(model) <= flavors[pool.name], pool.name
        if groups:
            tags = groups[pool.name]["tags"]
            assert {
                k.removeprefix(CA_RESOURCE_TAG): int(v)
                for k, v in tags.items()
                if k.startswith(CA_RESOURCE_TAG)
            } == model
    capped = {k.removeprefix("requests.") for k in quota["spec"]["hard"]}
    assert capped == {r for names in flavors.values() for r in names}
