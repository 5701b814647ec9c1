"""Issue 10's "Done means": `account` on the day of done_day.py against the real Prometheus.

Every expected figure is worked out here by hand from the event table in done_day.py's
docstring (hours x GPUs x the share of a GPU), not from the generated series.
Tolerance: 0.1% or 0.001 GPU-hour. The series are constant between scrapes and every event
falls on a scrape, so the integrals are exact up to float rounding; the tolerance only absorbs
that rounding.
"""

from __future__ import annotations

import pytest

from gpuplane.account import views
from gpuplane.account.compute import AccountResult
from gpuplane.account.engine import run
from gpuplane.account.window import Window
from tests.account.conftest import Day
from tests.account.done_day import DAY

REL, ABS = 1e-3, 1e-3
H = 1.0
# -- by hand, per pod: (allocated, useful, idle, unmeasured, failed) GPU-hours in [0 h, 24 h) --
MIG3, MIG2, MIG1 = 3 / 7, 2 / 7, 1 / 7  # A100 compute slices over 7
REPLICA = 1 / 4  # the T4 is time-sliced 4 ways
T4_ACTIVITY = {"alone": 0.2, "shared": 0.2 + 0.4}  # ts-a alone 0-6 h and 18-24 h, with ts-b 6-18 h
HAND = {
    "resnet": (6 * H, 6 * 0.5, 6 * 0.5, 0, 0),  # already running at 0 h, ends 6 h, 1 GPU at 0.5
    "notebook": (10 * H, 0, 10 * H, 0, 0),  # 0:10-10:10, 1 GPU measured at 0.0: idle, not unmeasured
    "llm-ft-0": (2 * (7 - 65 / 60), 0, 0, 0, 2 * (7 - 65 / 60)),  # 1:05-7:00 on 2 GPUs, Failed
    "llm-ft-1": (2 * 12, 2 * 12 * 0.8, 2 * 12 * 0.2, 0, 0),  # 7:10-19:10 on 2 GPUs at 0.8
    "spot-batch": (13.5, 13.5 * 0.95, 13.5 * 0.05, 0, 0),  # 0:30-14:00, the node goes at 14:00
    "llm-serve": (24 * MIG3, 0, 0, 24 * MIG3, 0),  # MIG without profiling: unmeasured
    "embed": (12 * MIG2, 0, 0, 12 * MIG2, 0),
    "small-a": (24 * MIG1, 0, 0, 24 * MIG1, 0),
    "ts-a": (
        24 * REPLICA,
        REPLICA * (12 * T4_ACTIVITY["alone"] + 12 * T4_ACTIVITY["shared"]),
        24 * REPLICA - REPLICA * (12 * T4_ACTIVITY["alone"] + 12 * T4_ACTIVITY["shared"]),
        0,
        0,
    ),
    "ts-b": (
        12 * REPLICA,
        REPLICA * 12 * T4_ACTIVITY["shared"],
        REPLICA * 12 * (1 - T4_ACTIVITY["shared"]),
        0,
        0,
    ),
}
PROVISIONED = {"train": 2 * 2 * 24, "spot": 1 * 14, "mig": 1 * 24, "t4": 1 * 24}  # nodes x GPUs x hours
POOL_OF = {
    "resnet": "train",
    "notebook": "train",
    "llm-ft-0": "train",
    "llm-ft-1": "train",
    "spot-batch": "spot",
    "llm-serve": "mig",
    "embed": "mig",
    "small-a": "mig",
    "ts-a": "t4",
    "ts-b": "t4",
}
GPU_HOUR = {"train": 8.0 / 2, "spot": 1.0 / 1, "mig": 3.5 / 1, "t4": 0.6 / 1}  # node-hour price / GPUs
# energy: idle watts of every GPU while its node exists + each pod's watts per GPU while it runs
ENERGY_KWH = {
    "train": (4 * 50 * 24 + 150 * 6 + 2 * 250 * (7 - 65 / 60) + 2 * 200 * 12) / 1000,
    "spot": (50 * 14 + 200 * 13.5) / 1000,
    "mig": (60 * 24 + 100 * 24 + 40 * 12 + 20 * 24) / 1000,  # once per GPU, not once per MIG instance
    "t4": (10 * 24 + 10 * 24 + 20 * 12) / 1000,
}
SUPPORT, OPERATIONS = 730 * 24 / 730, 1460 * 24 / 730  # monthly, prorated over 24 of 730 hours
CPU_NODES = 0.8 * 24  # the cpu pool's one node (aks-cpu-0) all day at its 0.8/h price
ACCEPTED = {"resnet", "notebook", "llm-ft-1", "embed", "ts-b"}  # Succeeded


@pytest.fixture(scope="module")
def result(day: Day) -> AccountResult:
    return run(day.url, day.spec, Window.make(DAY, DAY + 86400, 30))


def _kinds(hours: object) -> tuple[float, ...]:
    return tuple(getattr(hours, k) for k in ("allocated", "useful", "idle", "unmeasured", "failed"))


def test_every_pod_has_its_hand_computed_gpu_hours(result: AccountResult) -> None:
    pods = {p.pod: p for p in result.pods}
    assert set(pods) == set(HAND)
    for name, expected in HAND.items():
        pod = pods[name]
        got = (pod.allocated_h, pod.useful_h, pod.idle_h, pod.unmeasured_h, pod.failed_h)
        assert got == pytest.approx(expected, rel=REL, abs=ABS), name


def test_pools_have_provisioned_allocated_and_unallocated_time(result: AccountResult) -> None:
    assert {p.pool for p in result.pools} == set(
        PROVISIONED
    )  # the CPU pool and the system node are not GPU pools
    for name, provisioned in PROVISIONED.items():
        pool = result.pool(name)
        assert pool is not None
        allocated = sum(HAND[p][0] for p, pool_name in POOL_OF.items() if pool_name == name)
        assert pool.provisioned_h == pytest.approx(provisioned, rel=REL, abs=ABS), name
        assert pool.hours.allocated == pytest.approx(allocated, rel=REL, abs=ABS), name
        assert pool.unallocated_h == pytest.approx(provisioned - allocated, rel=REL, abs=ABS), name


def test_cluster_totals_and_costs(result: AccountResult) -> None:
    s = views.summary(result)
    totals = [sum(h[i] for h in HAND.values()) for i in range(5)]
    assert _kinds(s.hours) == pytest.approx(tuple(totals), rel=REL, abs=ABS)
    assert s.provisioned_h == pytest.approx(sum(PROVISIONED.values()), rel=REL)
    gpu_cost = sum(PROVISIONED[p] * GPU_HOUR[p] for p in PROVISIONED)  # every provisioned hour is paid for
    assert s.cost.gpu == pytest.approx(gpu_cost, rel=REL)
    assert (s.cost.support, s.cost.operations) == pytest.approx((SUPPORT, OPERATIONS))
    assert s.cost.term("cpu_nodes") == pytest.approx(CPU_NODES)
    # Nothing declares storage, traffic or a control-plane tier: not declared, not 0.
    assert [s.cost.term(t) for t in ("storage", "network", "control_plane")] == [None, None, None]
    assert s.accepted == len(ACCEPTED)
    assert s.per_accepted_unit == pytest.approx(
        (gpu_cost + SUPPORT + OPERATIONS + CPU_NODES) / len(ACCEPTED), rel=REL
    )
    failed_cost = HAND["llm-ft-0"][4] * GPU_HOUR["train"]
    assert s.cost.failed == pytest.approx(failed_cost, rel=REL)
    unmeasured_cost = (HAND["llm-serve"][3] + HAND["embed"][3] + HAND["small-a"][3]) * GPU_HOUR["mig"]
    assert s.cost.unmeasured == pytest.approx(unmeasured_cost, rel=REL)


def test_energy_counts_each_physical_gpu_once(result: AccountResult) -> None:
    for name, kwh in ENERGY_KWH.items():
        pool = result.pool(name)
        assert pool is not None and pool.energy_kwh == pytest.approx(kwh, rel=REL), name


def test_spot_node_that_disappears_and_the_platform_at_the_end(result: AccountResult) -> None:
    spot, train = result.pool("spot"), result.pool("train")
    assert spot is not None and (spot.nodes_seen, spot.nodes_at_end, spot.gpus_at_end) == (1, 0, 0)
    assert train is not None and (train.nodes_at_end, train.gpus_at_end, train.xid_gpus) == (2, 4, 1)
    pods = {p.pod: p for p in result.pods}
    assert pods["spot-batch"].outcome == "Unknown"  # vanished with its node, neither Succeeded nor Failed
    assert pods["llm-ft-0"].outcome == "Failed" and pods["llm-serve"].outcome == "Running"


def test_queue_waits_count_only_time_inside_the_window(result: AccountResult) -> None:
    waits = {w["pod"]: w["queue_wait_s"] for w in views.workload(result)}
    assert waits["notebook"] == pytest.approx(600)  # created 0:00, Running 0:10
    assert waits["llm-ft-0"] == pytest.approx(300) and waits["embed"] == pytest.approx(90)
    assert waits["resnet"] is None and waits["ts-a"] is None  # already running when the window opened
    retries = {w["pod"]: w["retries"] for w in views.workload(result)}
    assert retries["llm-ft-1"] == 1 and retries["llm-ft-0"] == 0


def test_kueue_mean_wait_handles_a_quiet_queue_and_a_series_born_in_the_window(result: AccountResult) -> None:
    k = result.kueue
    assert k.mean_wait_s["vision"] == pytest.approx(600)  # one admission inside the window
    assert k.mean_wait_s["nlp"] == pytest.approx((0 + 300 + 90 + 600) / 4)  # 600 s is the new `high` child
    assert k.mean_wait_s["serving"] is None  # admitted nothing: no NaN, no zero
    assert k.admissions == pytest.approx({"vision": 1, "nlp": 4, "serving": 0})
    assert k.pending == pytest.approx({"vision": 1, "nlp": 0, "serving": 0})
    assert any("serving admitted no workload" in n for n in result.notes)


def test_notes_say_what_is_unmeasured_and_why(result: AccountResult) -> None:
    text = " ".join(result.notes)
    assert "MIG instances" in text and "unmeasured, not idle" in text
    assert "KUBERNETES_VIRTUAL_GPUS" in text and "GPU-t4-0 on aks-t4-0" in text
    assert "enableClusterQueueResources" in text
    assert not any("belong to no pool" in n or "carry no pool label" in n for n in result.notes)


def test_the_report_timeline_splits_the_gpus_the_same_way(result: AccountResult) -> None:
    line = result.timeline
    assert line is not None
    at = {t: i for i, t in enumerate(line.times)}
    noon, three = at[DAY + 12 * 3600], at[DAY + 3 * 3600]
    # at 12:00: llm-ft-1 (2 GPUs at 0.8), spot-batch (0.95), the T4 pods (1/4 each of 0.6), the MIG pods
    assert line.useful[noon] == pytest.approx(2 * 0.8 + 0.95 + 2 * REPLICA * 0.6)
    assert line.idle[noon] == pytest.approx(2 * 0.2 + 0.05 + 2 * REPLICA * 0.4)
    assert line.unmeasured[noon] == pytest.approx(MIG3 + MIG2 + MIG1)
    assert line.failed[noon] == 0 and line.failed[three] == pytest.approx(2)  # llm-ft-0 ran 1:05-7:00
    provisioned = 2 * 2 + 1 + 1 + 1  # train, spot (until 14:00), mig, t4
    allocated = 2 + 1 + MIG3 + MIG2 + MIG1 + 2 * REPLICA
    assert line.unallocated[noon] == pytest.approx(provisioned - allocated)
    assert sum(v[noon] for v in line.allocated_by_team.values()) == pytest.approx(allocated)
