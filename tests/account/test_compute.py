"""Pure accounting from raw answers: fractions, teams, failed time, conservation (no server)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuplane.account.collect import Window
from gpuplane.account.compute import Resolver, account
from gpuplane.account.gather import RawData
from gpuplane.account.scenarios import SMALL_SPEC
from gpuplane.spec import PlatformSpec, parse_spec

SPEC: PlatformSpec = parse_spec(SMALL_SPEC, "small.yaml")[0]
POOL_LABELS = {"train": "aks-train-0", "mig": "aks-mig-0", "t4": "aks-t4-0"}


def _raw(hours: float = 10.0) -> RawData:
    raw = RawData(Window.make(0, hours * 3600, 30))
    for pool, node in POOL_LABELS.items():
        raw.nodes.append(({"node": node, "label_gpuplane_io_pool": pool}, hours))
    return raw


def test_resource_fractions_follow_the_pool_sharing() -> None:
    res = Resolver(SPEC)
    assert res.resource_fraction("mig", "nvidia_com_mig_3g_40gb") == pytest.approx(3 / 7)
    assert res.resource_fraction("mig", "nvidia_com_mig_1g_10gb") == pytest.approx(1 / 7)
    assert res.resource_fraction("t4", "nvidia_com_gpu") == pytest.approx(1 / 4)
    assert res.resource_fraction("train", "nvidia_com_gpu") == 1
    assert res.resource_fraction("unknown", "nvidia_com_mig_2g_20gb") == pytest.approx(2 / 7)


def test_pool_is_found_from_the_cloud_node_pool_label_too() -> None:
    res = Resolver(SPEC)
    assert res.pool_of({"label_kubernetes_azure_com_agentpool": "train"}) == "train"
    assert res.pool_of({"label_agentpool": "nope"}) == "unknown"


def test_failed_pod_time_is_failed_not_useful_and_useful_never_exceeds_allocated() -> None:
    raw = _raw()
    raw.allocated = {
        ("nlp", "a", "aks-train-0", "nvidia_com_gpu"): 10.0,
        ("nlp", "b", "aks-train-0", "nvidia_com_gpu"): 4.0,
    }
    raw.activity = {("nlp", "a", ""): 25.0, ("nlp", "b", ""): 2.0}  # a reports more activity than it held
    raw.outcomes = {("nlp", "a"): "Succeeded", ("nlp", "b"): "Failed"}
    pods = {p.pod: p for p in account(raw, SPEC).pods}
    assert pods["a"].useful_h == 10.0 and pods["a"].idle_h == 0
    assert (pods["b"].useful_h, pods["b"].idle_h, pods["b"].failed_h) == (0, 0, 4.0)


def test_nodes_of_no_spec_pool_are_unknown_and_noted() -> None:
    raw = _raw()
    raw.nodes.append(({"node": "stray"}, 10.0))
    raw.allocatable = {("stray", "nvidia_com_gpu"): 4.0}
    result = account(raw, SPEC)
    unknown = result.pool("unknown")
    assert unknown is not None and unknown.provisioned_h == 40.0 and unknown.gpu_hourly == 0
    assert any("belong to no pool" in n for n in result.notes)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["nlp", "vision", "sandbox"]),
            st.sampled_from(sorted(POOL_LABELS)),
            st.floats(min_value=0, max_value=2.5),
            st.floats(min_value=0, max_value=1),
        ),
        max_size=8,
    )
)
def test_gpu_hours_are_conserved(pods: list[tuple[str, str, float, float]]) -> None:
    raw = _raw()
    for index, (ns, pool, alloc, act) in enumerate(pods):
        resource = "nvidia_com_mig_1g_10gb" if pool == "mig" else "nvidia_com_gpu"
        raw.allocated[(ns, f"p{index}", POOL_LABELS[pool], resource)] = alloc
        raw.activity[(ns, f"p{index}", "1g.10gb" if pool == "mig" else "")] = alloc * act
    result = account(raw, SPEC)
    for pool in result.pools:
        h = pool.hours
        assert h.useful + h.idle + h.failed <= pool.provisioned_h + 1e-9 or h.unallocated == 0
        if h.allocated <= pool.provisioned_h:
            assert h.allocated + h.unallocated == pytest.approx(pool.provisioned_h)
    assert sum(p.allocated_h for p in result.pods) == pytest.approx(
        sum(p.hours.allocated for p in result.pools)
    )
