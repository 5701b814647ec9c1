"""`account` against a real Prometheus recovers the generator's known GPU-hours and costs.

Tolerance: 0.5% or 0.02 GPU-hours per pod. Pool provisioned time may exceed the truth by at most
Prometheus' 5-minute lookback per vanished node (backfilled blocks carry no staleness markers),
so pools allow 5 minutes x GPUs of their vanished nodes on top.
"""

from __future__ import annotations

import pytest

from gpuplane.account import views
from gpuplane.account.collect import PROFILING, Window
from gpuplane.account.compute import AccountResult
from gpuplane.account.engine import run
from gpuplane.account.promserver import Cluster

REL, ABS = 0.005, 0.02
PRICES = {"train": 8.0 / 2, "spot": 1.0, "mig": 3.5, "t4": 0.6}  # per GPU-hour, from SMALL_SPEC


@pytest.fixture(scope="module")
def result(cluster: Cluster) -> AccountResult:
    return run(cluster.url, cluster.spec, Window.make(cluster.week.start, cluster.week.end, 30))


def test_every_pod_allocated_gpu_hours_match_truth(result: AccountResult, cluster: Cluster) -> None:
    got = {(p.namespace, p.pod): p.allocated_h for p in result.pods}
    assert set(got) == set(cluster.truth.pod_allocated)
    for key, expected in cluster.truth.pod_allocated.items():
        assert got[key] == pytest.approx(expected, rel=REL, abs=ABS), key


def test_useful_gpu_hours_follow_engine_activity(result: AccountResult, cluster: Cluster) -> None:
    assert result.activity_source == PROFILING
    for pod in result.pods:
        key = (pod.namespace, pod.pod)
        if pod.outcome == "Failed":
            assert pod.useful_h == 0 and pod.failed_h == pytest.approx(cluster.truth.failed[key], rel=REL)
        else:
            assert pod.useful_h == pytest.approx(cluster.truth.pod_useful[key], rel=REL, abs=ABS), key
            assert pod.idle_h == pytest.approx(pod.allocated_h - pod.useful_h)


def test_idle_allocated_gpu_is_all_idle(result: AccountResult) -> None:
    notebook = next(p for p in result.pods if p.pod == "notebook")
    assert notebook.useful_h == 0 and notebook.idle_h == pytest.approx(72.0, rel=REL)


def test_mig_and_time_sliced_pods_count_their_share_of_a_gpu(result: AccountResult) -> None:
    pods = {p.pod: p for p in result.pods}
    assert pods["llm-serve"].gpus == pytest.approx(3 / 7, rel=1e-3)
    assert pods["small-serve"].gpus == pytest.approx(1 / 7, rel=1e-3)
    assert pods["ts-dev-a"].gpus == pytest.approx(1 / 4, rel=1e-3)


def test_pool_provisioned_and_unallocated_match_truth(result: AccountResult, cluster: Cluster) -> None:
    lookback_h = 5 / 60
    vanished = {"spot": 1}
    for name, expected in cluster.truth.pool_provisioned.items():
        pool = result.pool(name)
        assert pool is not None
        slack = vanished.get(name, 0) * lookback_h + ABS
        assert expected - ABS <= pool.provisioned_h <= expected * (1 + REL) + slack, name
        truth_unalloc = expected - cluster.truth.pool_allocated(name)
        assert pool.unallocated_h == pytest.approx(truth_unalloc, rel=REL, abs=slack), name


def test_scale_to_zero_pool_has_no_node_at_the_end(result: AccountResult) -> None:
    spot = result.pool("spot")
    assert spot is not None and spot.nodes_seen == 1 and spot.nodes_at_end == 0


def test_costs_are_truth_hours_times_pool_prices(result: AccountResult, cluster: Cluster) -> None:
    for row in views.financial(result, "pool"):
        expected = cluster.truth.pool_provisioned[row.name] * PRICES[row.name]
        slack = (5 / 60 * PRICES[row.name] if row.name == "spot" else 0) + ABS
        assert row.cost.gpu == pytest.approx(expected, rel=REL, abs=slack), row.name
    failed = next(r for r in views.financial(result, "team") if r.name == "nlp").cost.failed
    assert failed == pytest.approx(36.0 * PRICES["train"], rel=REL)


def test_effective_cost_per_accepted_unit_uses_the_shared_cost_model(result: AccountResult) -> None:
    s = views.summary(result)
    assert s.cost.support == pytest.approx(730 * 168 / 730) and s.cost.operations == pytest.approx(
        1460 * 168 / 730
    )
    assert s.accepted == 6
    assert s.per_accepted_unit == pytest.approx(s.cost.total / 6)
    team_total = sum(c.total for c in views.team_effective(result).values())
    assert team_total == pytest.approx(s.cost.total, rel=1e-9)


def test_teams_come_from_pod_label_then_namespace(result: AccountResult) -> None:
    teams = {p.pod: p.team for p in result.pods}
    assert teams["ts-dev-b"] == "vision"  # gpuplane.io/team label wins over namespace nlp
    assert teams["debug"] == "unassigned"  # namespace sandbox belongs to no team
    assert teams["llm-ft-1"] == "nlp"


def test_platform_view_sees_xid_and_kueue(result: AccountResult) -> None:
    train = result.pool("train")
    assert train is not None and train.xid_gpus == 1
    assert set(result.kueue_pending) == {"vision", "nlp", "serving"}
    assert result.kueue_wait_s == pytest.approx({"vision": 60.0, "nlp": 120.0, "serving": 180.0})
    assert result.raw.kueue_usage[("nlp", "nvidia.com/gpu")] == 2
    assert all(p.max_temp_c is not None for p in result.pools)


def test_workload_view_has_queue_wait_and_retries(result: AccountResult) -> None:
    rows = {w["pod"]: w for w in views.workload(result)}
    assert rows["resnet-0"]["queue_wait_s"] == pytest.approx(1800, abs=60)
    assert rows["llm-ft-1"]["retries"] == 1 and rows["llm-ft-0"]["outcome"] == "Failed"
    assert rows["resnet-0"]["run_hours"] == pytest.approx(72, abs=0.02)


def test_without_profiling_metrics_it_falls_back_to_gpu_util_and_says_so(cluster: Cluster) -> None:
    fb = cluster.fallback
    result = run(cluster.url, cluster.spec, Window.make(fb.start, fb.end, 30), charts=False)
    assert result.activity_source == "DCGM_FI_DEV_GPU_UTIL"
    assert any("DCGM_FI_DEV_GPU_UTIL" in n and "missing" in n for n in result.notes)
    pod = result.pods[0]
    assert pod.allocated_h == pytest.approx(24.0, rel=REL)
    assert pod.useful_h == pytest.approx(24.0 * 0.6, rel=REL)


def test_pods_without_profiling_fall_back_one_by_one(cluster: Cluster) -> None:
    start = cluster.week.start + 10 * 86400
    result = run(cluster.url, cluster.spec, Window.make(start, start + 86400, 30), charts=False)
    assert result.activity_source == "DCGM_FI_PROF_GR_ENGINE_ACTIVE+DCGM_FI_DEV_GPU_UTIL"
    assert any("1 pod(s) have no DCGM_FI_PROF_GR_ENGINE_ACTIVE" in n for n in result.notes)
    useful = {p.pod: p.useful_h for p in result.pods}
    # t4 pool is time-sliced (4 replicas): a replica counts as a quarter of the GPU.
    assert useful == pytest.approx({"profiled": 10 * 0.7, "util-t4": 10 * 0.25 * 0.5}, rel=REL)
