"""One answer to "what share of a physical GPU is one unit of R on pool P", over every sharing form
(issue 21, deliver 3). Expected values from the device plugin's and the GPU Operator's rules:
whole GPU 1; time-slicing/MPS replicas r -> 1/r (renamed or not); MIG mixed -> compute slices / 7;
MIG single -> 1 / instances per GPU (by layout or by named config); DRA -> the device's slices."""

from __future__ import annotations

import pytest

from gpuplane.account.resolver import Resolver
from gpuplane.spec import PlatformSpec, derived, parse_spec
from gpuplane.vocab import ksm_resource

POOLS = """\
  - {name: whole, accelerator: H100-80GB, gpusPerNode: 8, maxNodes: 1}
  - {name: ts, accelerator: L4, gpusPerNode: 1, maxNodes: 1, sharing: {mode: time-slicing, replicas: 4}}
  - {name: ts-renamed, accelerator: L4, gpusPerNode: 1, maxNodes: 1,
     sharing: {mode: time-slicing, replicas: 3, renameShared: true}}
  - {name: mps, accelerator: L4, gpusPerNode: 1, maxNodes: 1, sharing: {mode: mps, replicas: 2}}
  - {name: mixed, accelerator: H100-80GB, gpusPerNode: 8, maxNodes: 1,
     sharing: {mode: mig, strategy: mixed, layout: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]}}
  - {name: mixed-config, accelerator: A100-80GB, gpusPerNode: 1, maxNodes: 1,
     sharing: {mode: mig, strategy: mixed, config: all-balanced}}
  - {name: single-layout, accelerator: H100-80GB, gpusPerNode: 8, maxNodes: 1,
     sharing: {mode: mig, strategy: single, layout: [3g.40gb, 3g.40gb]}}
  - {name: single-config, accelerator: H100-80GB, gpusPerNode: 8, maxNodes: 1,
     sharing: {mode: mig, strategy: single, config: all-1g.10gb}}
  - {name: single-config-2g, accelerator: A100-80GB, gpusPerNode: 1, maxNodes: 1,
     sharing: {mode: mig, strategy: single, config: all-2g.20gb}}
  - {name: dra, accelerator: H100-80GB, gpusPerNode: 8, maxNodes: 1, deviceApi: dra}
  - {name: dra-mig, accelerator: H100-80GB, gpusPerNode: 8, maxNodes: 1, deviceApi: dra,
     sharing: {mode: mig, layout: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]}}
"""
SPEC = (
    'apiVersion: gpuplane.io/v1alpha1\nkind: Platform\ncluster: {name: c, provider: generic, kubernetesVersion: "1.33"}\n'
    "nodePools:\n" + POOLS + "teams:\n  - {name: t, namespaces: [t]}\n"
)
CASES = [
    ("whole", "nvidia.com/gpu", 1.0),
    ("ts", "nvidia.com/gpu", 1 / 4),
    ("ts-renamed", "nvidia.com/gpu.shared", 1 / 3),
    ("ts-renamed", "nvidia.com/gpu", 1 / 3),  # a pod asking the plain name of a renamed pool
    ("mps", "nvidia.com/gpu", 1 / 2),
    ("mixed", "nvidia.com/mig-3g.40gb", 3 / 7),
    ("mixed", "nvidia.com/mig-2g.20gb", 2 / 7),
    ("mixed", "nvidia.com/mig-1g.10gb", 1 / 7),
    ("mixed-config", "nvidia.com/mig-3g.40gb", 3 / 7),  # all-balanced on A100-80GB: 1x3g, 1x2g, 2x1g
    ("mixed-config", "nvidia.com/mig-1g.10gb", 1 / 7),
    ("single-layout", "nvidia.com/gpu", 1 / 2),  # two 3g.40gb instances per GPU, each one unit
    ("single-config", "nvidia.com/gpu", 1 / 7),  # all-1g.10gb: seven instances per GPU
    ("single-config-2g", "nvidia.com/gpu", 1 / 3),  # all-2g.20gb: three instances per GPU
    ("dra", "dra.gpuplane.io/gpu", 1.0),
    ("dra-mig", "dra.gpuplane.io/mig-3g.40gb", 3 / 7),
    ("dra-mig", "dra.gpuplane.io/mig-1g.10gb", 1 / 7),
]


@pytest.fixture(scope="module")
def spec() -> PlatformSpec:
    return parse_spec(SPEC, "s.yaml")[0]


@pytest.mark.parametrize(("pool", "resource", "share"), CASES)
def test_one_share_per_sharing_form(spec: PlatformSpec, pool: str, resource: str, share: float) -> None:
    pools = {p.name: p for p in spec.node_pools}
    assert derived.unit_gpu_share(pools[pool], resource) == pytest.approx(share)


@pytest.mark.parametrize(("pool", "resource", "share"), CASES)
def test_account_uses_the_same_answer(spec: PlatformSpec, pool: str, resource: str, share: float) -> None:
    """account reads kube-state-metrics' spelling of the name; its answer is the spec's."""
    assert Resolver(spec).resource_fraction(pool, ksm_resource(resource)) == pytest.approx(share)


def test_a_resource_that_is_no_gpu_resource_is_zero(spec: PlatformSpec) -> None:
    pools = {p.name: p for p in spec.node_pools}
    assert derived.unit_gpu_share(pools["whole"], "example.com/fpga") == 0.0
