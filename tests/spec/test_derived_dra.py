"""What a DRA pool offers, derived once for every engine: the quota names of its device kinds (one
unit per whole or shared GPU, one per MIG instance), their share of a GPU, no extended resources
on its nodes, and which claim a device-plugin-style request becomes on it."""

from __future__ import annotations

import pytest

from gpuplane.sharing import dra
from gpuplane.spec import NodePool, derived, parse_spec

SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: c, provider: generic, kubernetesVersion: "1.34", deviceApi: dra}
nodePools:
  - {name: whole, accelerator: H100-80GB, gpusPerNode: 8}
  - {name: ts, accelerator: L4, gpusPerNode: 4, sharing: {mode: time-slicing}}
  - {name: mps, accelerator: L4, gpusPerNode: 4, sharing: {mode: mps}}
  - {name: mig, accelerator: A100-80GB, gpusPerNode: 2, sharing: {mode: mig, layout: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb+me]}}
  - {name: plugin, accelerator: L4, gpusPerNode: 1, deviceApi: devicePlugin}
"""


@pytest.fixture(scope="module")
def pools() -> dict[str, NodePool]:
    spec, _ = parse_spec(SPEC, "s.yaml")
    return {p.name: p for p in spec.node_pools}


def test_dra_pools_offer_their_kinds_quota_names(pools: dict[str, NodePool]) -> None:
    # Hand-made: one device per GPU, per MIG instance; `+` spelled `.` as the device plugin does.
    assert derived.resources_per_node(pools["whole"]) == {"dra.gpuplane.io/gpu": 8}
    assert derived.resources_per_node(pools["ts"]) == {"dra.gpuplane.io/gpu-time-slicing": 4}
    assert derived.resources_per_node(pools["mps"]) == {"dra.gpuplane.io/gpu-mps": 4}
    assert derived.resources_per_node(pools["mig"]) == {
        "dra.gpuplane.io/mig-1g.10gb": 2,
        "dra.gpuplane.io/mig-1g.10gb.me": 2,
        "dra.gpuplane.io/mig-2g.20gb": 2,
        "dra.gpuplane.io/mig-3g.40gb": 2,
    }
    assert derived.resources_per_node(pools["plugin"]) == {"nvidia.com/gpu": 1}


def test_dra_nodes_advertise_no_extended_resources(pools: dict[str, NodePool]) -> None:
    assert derived.extended_resources_per_node(pools["whole"]) == {}
    assert derived.extended_resources_per_node(pools["plugin"]) == {"nvidia.com/gpu": 1}


def test_a_dra_unit_is_a_whole_gpu_or_its_mig_slices(pools: dict[str, NodePool]) -> None:
    assert derived.unit_gpu_share(pools["ts"], "dra.gpuplane.io/gpu-time-slicing") == 1.0
    assert derived.unit_gpu_share(pools["mig"], "dra.gpuplane.io/mig-3g.40gb") == pytest.approx(3 / 7)
    assert derived.unit_gpu_share(pools["mig"], "dra.gpuplane.io/mig-1g.10gb.me") == pytest.approx(1 / 7)


def test_device_plugin_requests_become_the_claim_of_the_pool(pools: dict[str, NodePool]) -> None:
    req = derived.request_resource
    assert req(pools["whole"], "nvidia.com/gpu") == "dra.gpuplane.io/gpu"
    assert req(pools["ts"], "nvidia.com/gpu.shared") == "dra.gpuplane.io/gpu-time-slicing"
    assert req(pools["mig"], "nvidia.com/mig-1g.10gb.me") == "dra.gpuplane.io/mig-1g.10gb.me"
    assert req(pools["mig"], "nvidia.com/gpu") is None
    assert req(pools["plugin"], "nvidia.com/gpu") == "nvidia.com/gpu"


def test_kind_names_round_trip() -> None:
    kind = dra.mig_kind("1g.10gb+me")
    assert (kind.device_class, kind.resource, kind.template) == (
        "mig-1g.10gb.me.gpuplane.io",
        "dra.gpuplane.io/mig-1g.10gb.me",
        "dra-mig-1g.10gb.me",
    )
    assert dra.kind_of(kind.resource) == kind
    assert dra.kind_of("nvidia.com/gpu") is None
