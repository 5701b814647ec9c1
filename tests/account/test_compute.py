"""Pure accounting from raw answers: fractions, pools, kinds of GPU time, conservation (no server)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuplane.account import queries as q
from gpuplane.account.compute import account
from gpuplane.account.kueue_wait import histogram_increase, mean_wait
from gpuplane.account.raw import Activity, RawData
from gpuplane.account.resolver import Resolver
from gpuplane.account.shared_gpus import candidates
from gpuplane.account.window import Window
from gpuplane.spec import PlatformSpec
from tests.account.conftest import parse
from tests.account.done_day import SPEC as DAY_SPEC

SPEC: PlatformSpec = parse(DAY_SPEC)
NODES = {"train": "aks-train-0", "mig": "aks-mig-0", "t4": "aks-t4-0"}


def _raw(hours: float = 10.0) -> RawData:
    raw = RawData(Window.make(0, hours * 3600, 30))
    for pool, node in NODES.items():
        raw.nodes.append(({"node": node, q.POOL_LABEL: pool}, hours))
    raw.node_labels_seen = raw.pod_labels_seen = True
    return raw


def _measure(raw: RawData, metric: str, key: tuple[str, str, str], active: float, measured: float) -> None:
    activity = raw.activity.setdefault(metric, Activity())
    activity.active[key] = active
    activity.measured[key] = measured


def test_resource_fractions_follow_the_pool_sharing() -> None:
    res = Resolver(SPEC)
    assert res.resource_fraction("mig", "nvidia_com_mig_3g_40gb") == pytest.approx(3 / 7)
    assert res.resource_fraction("mig", "nvidia_com_mig_1g_10gb") == pytest.approx(1 / 7)
    assert res.resource_fraction("t4", "nvidia_com_gpu") == pytest.approx(1 / 4)
    assert res.resource_fraction("train", "nvidia_com_gpu") == 1
    assert res.resource_fraction("unknown", "nvidia_com_mig_2g_20gb") == pytest.approx(2 / 7)


def test_pools_come_from_the_pool_label_then_the_cloud_labels() -> None:
    res = Resolver(SPEC)
    assert res.pool_of({"label_kubernetes_azure_com_agentpool": "train"}) == "train"
    assert res.pool_of({"label_cloud_google_com_gke_nodepool": "mig"}) == "mig"
    assert res.pool_of({"label_eks_amazonaws_com_nodegroup": "t4"}) == "t4"
    assert res.pool_of({"label_agentpool": "nope"}) == "unknown"
    assert res.is_cpu_pool(res.pool_of({q.POOL_LABEL: "cpu"}))


def test_cpu_pool_and_system_nodes_are_not_gpu_nodes_but_unknown_nodes_with_gpus_are() -> None:
    raw = _raw()
    raw.nodes += [({"node": "aks-cpu-0", q.POOL_LABEL: "cpu"}, 10.0), ({"node": "system"}, 10.0)]
    raw.nodes.append(({"node": "stray"}, 10.0))
    raw.gpus_per_host = {"stray": 4.0}
    result = account(raw, SPEC)
    unknown = result.pool("unknown")
    assert unknown is not None and unknown.nodes_seen == 1 and unknown.provisioned_h == 40.0
    assert unknown.gpu_hourly == 0
    assert any("stray" in n and "carry no pool label" in n for n in result.notes)
    assert result.pool("cpu") is None


def test_failed_unmeasured_idle_and_useful_never_overlap() -> None:
    raw = _raw()
    raw.allocated = {
        ("nlp", "ok", "aks-train-0", "nvidia_com_gpu"): 10.0,
        ("nlp", "failed", "aks-train-0", "nvidia_com_gpu"): 4.0,
        ("nlp", "half", "aks-train-0", "nvidia_com_gpu"): 8.0,
        ("nlp", "mig", "aks-mig-0", "nvidia_com_mig_3g_40gb"): 7.0,
    }
    _measure(raw, q.PROFILING, ("nlp", "ok", ""), 25.0, 10.0)  # reports more activity than it held
    _measure(raw, q.PROFILING, ("nlp", "failed", ""), 2.0, 4.0)
    _measure(raw, q.PROFILING, ("nlp", "half", ""), 1.0, 4.0)  # measured half of its time
    raw.outcomes = {("nlp", "ok"): "Succeeded", ("nlp", "failed"): "Failed"}
    pods = {p.pod: p for p in account(raw, SPEC).pods}
    assert (pods["ok"].useful_h, pods["ok"].idle_h, pods["ok"].unmeasured_h) == (10.0, 0.0, 0.0)
    assert (pods["failed"].useful_h, pods["failed"].idle_h, pods["failed"].failed_h) == (0, 0, 4.0)
    assert (pods["half"].useful_h, pods["half"].idle_h, pods["half"].unmeasured_h) == (1.0, 3.0, 4.0)
    assert pods["half"].activity == pytest.approx(0.25)
    assert pods["mig"].unmeasured_h == pytest.approx(3.0) and pods["mig"].activity is None


def test_profiling_wins_over_utilisation_pod_by_pod() -> None:
    raw = _raw()
    raw.allocated = {
        ("a", "p", "aks-train-0", "nvidia_com_gpu"): 10.0,
        ("a", "u", "aks-train-0", "nvidia_com_gpu"): 10.0,
    }
    _measure(raw, q.PROFILING, ("a", "p", ""), 5.0, 10.0)
    _measure(raw, q.UTILIZATION, ("a", "p", ""), 9.0, 10.0)
    _measure(raw, q.UTILIZATION, ("a", "u", ""), 9.0, 10.0)
    result = account(raw, SPEC)
    pods = {p.pod: p for p in result.pods}
    assert (pods["p"].useful_h, pods["p"].activity_source) == (5.0, q.PROFILING)
    assert (pods["u"].useful_h, pods["u"].activity_source) == (9.0, q.UTILIZATION)
    assert result.activity_source == f"{q.PROFILING}+{q.UTILIZATION}"


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["nlp", "vision", "sandbox"]),
            st.sampled_from(sorted(NODES)),
            st.floats(min_value=0, max_value=2.5),
            st.floats(min_value=0, max_value=1),
            st.floats(min_value=0, max_value=1),
            st.booleans(),
        ),
        max_size=8,
    )
)
def test_gpu_hours_are_conserved(pods: list[tuple[str, str, float, float, float, bool]]) -> None:
    raw = _raw()
    for index, (ns, pool, alloc, coverage, act, failed) in enumerate(pods):
        resource = "nvidia_com_mig_1g_10gb" if pool == "mig" else "nvidia_com_gpu"
        raw.allocated[(ns, f"p{index}", NODES[pool], resource)] = alloc
        profile = "1g.10gb" if pool == "mig" else ""
        _measure(raw, q.PROFILING, (ns, f"p{index}", profile), alloc * coverage * act, alloc * coverage)
        if failed:
            raw.outcomes[(ns, f"p{index}")] = "Failed"
    result = account(raw, SPEC)
    for pod in result.pods:
        h = pod.hours
        assert min(h.useful, h.idle, h.unmeasured, h.failed) >= 0
        assert h.allocated == pytest.approx(pod.allocated_h)
    for usage in result.pools:
        if usage.hours.allocated <= usage.provisioned_h:
            assert usage.hours.provisioned == pytest.approx(usage.provisioned_h)
    assert sum(p.allocated_h for p in result.pods) == pytest.approx(
        sum(p.hours.allocated for p in result.pools)
    )


def test_shared_gpu_candidates_are_devices_whose_pods_ran_at_the_same_time() -> None:
    a, b, c = ("n", "a"), ("n", "b"), ("n", "c")
    spans = {a: (0.0, 100.0), b: (50.0, 150.0), c: (150.0, 200.0)}
    holders: dict[tuple[str, ...], set[tuple[str, str]]] = {
        ("h", "", "GPU-1", "", "", ""): {a, b},
        ("h", "", "GPU-2", "", "", ""): {b, c},
    }
    assert list(candidates(holders, spans, 30.0)) == [
        ("h", "", "GPU-1", "", "", "")
    ]  # b then c: one after the other


def test_histogram_increase_counts_births_inside_the_window_and_joint_resets() -> None:
    assert histogram_increase((2, 30), [(2, 30), (3, 70)]) == (1, 40)  # existed before the window
    assert histogram_increase(None, [(1, 200), (1, 200)]) == (
        1,
        200,
    )  # born inside: its first observation counts
    assert histogram_increase((3, 70), [(1, 100), (2, 160)]) == (2, 160)  # reset: the sum came back higher
    assert histogram_increase((5, 5), []) == (0, 0)
    assert mean_wait({"a": 2, "b": 0}, {"a": 30, "b": 0}, {"a", "b", "c"}) == {"a": 15, "b": None, "c": None}


@given(st.lists(st.tuples(st.integers(0, 5), st.floats(0, 100)), max_size=20))
def test_without_resets_the_increase_is_the_last_value_minus_the_first(
    steps: list[tuple[int, float]],
) -> None:
    count, total, points = 0.0, 0.0, []
    for dc, dt in steps:
        count, total = count + dc, total + dt
        points.append((count, total))
    assert histogram_increase((0.0, 0.0), points) == pytest.approx((count, total))
