"""Invariants of the twin over random platforms and workloads (hypothesis).

- no GPU, MIG slice or replica is ever allocated twice;
- admitted usage never exceeds what Kueue allows (nominal + borrowing limit, cohort total);
- simulated time never goes backwards;
- every workload ends exactly once, or is still waiting/running at the horizon;
- with unlimited capacity and no failures, useful GPU-seconds equal the workloads' work.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuplane.sim.admitters import AdmissionSetup, Admitter, CycleOutcome, admitter_factory, admitter_names
from gpuplane.sim.cluster import Cluster
from gpuplane.sim.config import SimConfig
from gpuplane.sim.engine import Engine
from gpuplane.sim.kueue_admitter import KueueAdmitter
from gpuplane.sim.requests import PodRequest, shared_resource
from gpuplane.sim.state import DONE, USEFUL
from gpuplane.traces import Checkpoint, FinalStatus, PodSet, Workload
from tests.support import admitters as _test_admitters  # noqa: F401  (registers tests-unlimited)

from .helpers import cluster_queue, flavor, local_queue, pool, team

GPU = "nvidia.com/gpu"
MIG_LAYOUT = {"nvidia.com/mig-3g.40gb": 1, "nvidia.com/mig-2g.20gb": 1, "nvidia.com/mig-1g.10gb": 2}
TEAMS = ("t0", "t1", "t2")


@st.composite
def platforms(draw: st.DrawFn) -> dict[str, Any]:
    replicas = draw(st.sampled_from([1, 1, 2, 4]))
    gpus = draw(st.sampled_from([1, 2, 4, 8]))
    pools = [
        pool(
            "gpu",
            index=0,
            gpus=gpus,
            per_gpu={GPU: replicas},
            min_nodes=draw(st.integers(0, 1)),
            max_nodes=draw(st.integers(1, 4)),
        )
    ]
    with_mig = draw(st.booleans())
    if with_mig:
        pools.append(
            pool(
                "mig",
                index=1,
                gpus=1,
                per_gpu=MIG_LAYOUT,
                min_nodes=0,
                max_nodes=draw(st.integers(1, 3)),
                fractions={
                    "nvidia.com/mig-3g.40gb": 3 / 7,
                    "nvidia.com/mig-2g.20gb": 2 / 7,
                    "nvidia.com/mig-1g.10gb": 1 / 7,
                },
            )
        )
    n_teams = draw(st.integers(1, 3))
    quotas = {}
    for name in TEAMS[:n_teams]:
        per = {"gpu": {GPU: draw(st.integers(0, 24))}}
        if with_mig:
            per["mig"] = {res: draw(st.integers(0, 4)) for res in MIG_LAYOUT}
        quotas[name] = (per, draw(st.one_of(st.none(), st.integers(0, 16))))
    return {"pools": pools, "quotas": quotas, "mig": with_mig}


@st.composite
def workloads(draw: st.DrawFn, teams: list[str], mig: bool, failures: bool = True) -> list[Workload]:
    out = []
    for i in range(draw(st.integers(1, 20))):
        use_mig = mig and draw(st.booleans())
        if use_mig:
            prof = draw(st.sampled_from(["3g.40gb", "2g.20gb", "1g.10gb"]))
            ps = PodSet("p", draw(st.integers(1, 2)), 1.0, mig_profile=prof)
        else:
            ps = PodSet("p", draw(st.integers(1, 3)), float(draw(st.sampled_from([1, 2, 4, 8]))))
        status: FinalStatus = (
            draw(st.sampled_from(["completed", "completed", "failed", "killed"])) if failures else "completed"
        )
        out.append(
            Workload(
                id=f"w{i}",
                team=draw(st.sampled_from(teams)),
                queue="q",
                klass="training",
                submit=float(draw(st.integers(0, 20_000))),
                pod_sets=(ps,),
                work_gpu_seconds=ps.gpus * float(draw(st.integers(30, 30_000))),
                priority=draw(st.sampled_from([0, 10, 100])),
                checkpoint=draw(
                    st.one_of(
                        st.none(),
                        st.builds(
                            Checkpoint,
                            st.sampled_from([600.0, 1800.0]),
                            st.sampled_from([0.0, 30.0]),
                            st.sampled_from([0.0, 60.0]),
                        ),
                    )
                ),
                final_status=status,
                end_at_fraction=1.0 if status == "completed" else 0.5,
            )
        )
    return out


def kueue_objects(platform: dict[str, Any]) -> list[dict[str, Any]]:
    objects = [flavor(p.name) for p in platform["pools"]]
    for name, (per, borrowing) in platform["quotas"].items():
        objects.append(
            cluster_queue(
                name,
                per,
                cohort="all",
                borrowing=borrowing,
                preemption={"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
            )
        )
        objects.append(local_queue(name))
    return objects


class Watched:
    """An admitter wrapped through the twin's public seam (`admitter=`): it checks, at every call
    the engine makes, that no device unit is held twice, that Kueue's quota holds, and that time
    never goes backwards; it counts each workload's finish."""

    def __init__(self, inner: Admitter, platform: dict[str, Any]) -> None:
        self.inner = inner
        self.notes = inner.notes
        self.platform = platform
        self.times: list[float] = []
        self.finishes: Counter[int] = Counter()
        self.cluster: Cluster | None = None

    def _check(self, now: float) -> None:
        self.times.append(now)
        if self.cluster is not None:
            check_devices(self.cluster)

    def submit(
        self,
        wl: int,
        workload: Workload,
        requests: tuple[PodRequest, ...],
        pools: tuple[int, ...],
        now: float,
    ) -> None:
        self._check(now)
        self.inner.submit(wl, workload, requests, pools, now)

    def finish(self, wl: int, now: float) -> None:
        self._check(now)
        self.finishes[wl] += 1
        self.inner.finish(wl, now)

    def release(self, wl: int, now: float) -> None:
        self._check(now)
        self.inner.release(wl, now)

    def cycle(self, now: float) -> CycleOutcome:
        self._check(now)
        out = self.inner.cycle(now)
        if isinstance(self.inner, KueueAdmitter):
            check_quota(self.inner, self.platform)
        return out

    def tolerations(self, pool: int) -> frozenset[tuple[str, str]]:
        return self.inner.tolerations(pool)

    def pending_reasons(self) -> dict[int, str]:
        return self.inner.pending_reasons()


def check_devices(cluster: Cluster) -> None:
    held: Counter[tuple[int, int, str]] = Counter()
    for allocs in cluster.allocs.values():
        for node_id, gpu, res, units in allocs:
            held[(node_id, gpu, res)] += units
    for node in cluster.nodes.values():
        per_gpu = dict(cluster.pools[node.pool].per_gpu)
        for gpu, free in enumerate(node.gpu_free):
            for res, cap in per_gpu.items():
                assert 0 <= free[res] <= cap
                assert free[res] + held[(node.id, gpu, res)] == cap, "a device unit is held twice or lost"


def check_quota(admitter: KueueAdmitter, platform: dict[str, Any]) -> None:
    usage: dict[str, Counter[tuple[str, str]]] = {}
    for w in admitter.snap.admitted():
        assert w.admission is not None
        usage.setdefault(w.admission.cluster_queue, Counter()).update(w.admitted_usage())
    total: Counter[tuple[str, str]] = Counter()
    nominal_sum: Counter[tuple[str, str]] = Counter()
    for name, (per, borrowing) in platform["quotas"].items():
        for fl, resources in per.items():
            for res, nominal in resources.items():
                used = usage.get(name, Counter())[(fl, res)] // 1000
                nominal_sum[(fl, res)] += nominal
                total[(fl, res)] += used
                if borrowing is not None:
                    assert used <= nominal + borrowing
    for key, used in total.items():
        assert used <= nominal_sum[key], "cohort usage above the sum of nominal quotas"


def run_watched(
    platform: dict[str, Any], jobs: list[Workload], config: SimConfig, admitter: str = "kueue"
) -> tuple[Any, Watched]:
    """Run the twin with the registered `admitter` wrapped in checks (the public `admitter=` seam)."""
    teams = [team(name) for name in platform["quotas"]]
    setup = AdmissionSetup(kueue_objects(platform), platform["pools"], teams)
    watched = Watched(admitter_factory(admitter)(setup), platform)
    engine = Engine(
        platform["pools"], [t.name for t in teams], watched, config, shared_resource(platform["pools"])
    )
    watched.cluster = engine.cluster
    out = engine.run(jobs)
    check_devices(engine.cluster)
    return out, watched


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    seed=st.integers(0, 5),
    spot=st.sampled_from([0.0, 0.5]),
    fail=st.sampled_from([0.0, 0.2]),
    horizon=st.one_of(st.none(), st.integers(5_000, 60_000)),
    grace=st.sampled_from([0.0, 30.0]),
)
@pytest.mark.parametrize("admitter", admitter_names())
def test_invariants_hold_on_random_platforms(
    admitter: str, data: st.DataObject, seed: int, spot: float, fail: float, horizon: int | None, grace: float
) -> None:
    platform = data.draw(platforms())
    jobs = data.draw(workloads(list(platform["quotas"]), platform["mig"]))
    config = SimConfig(
        seed=seed,
        spot_evictions_per_node_hour=spot,
        node_failures_per_node_hour=fail,
        provisioning_delay_s=300,
        scale_down_unneeded_s=600,
        horizon_s=None if horizon is None else float(horizon),
        preemption_grace_s=grace,
    )
    out, watch = run_watched(platform, jobs, config, admitter)
    assert watch.times == sorted(watch.times), "simulated time went backwards"
    for run in out.runs:
        if run.state == DONE:
            assert watch.finishes[run.idx] == 1 and run.end is not None
            assert run.outcome == run.w.final_status
        else:
            assert watch.finishes[run.idx] == 0 and run.end is None
            assert run.outcome in ("pending", "admitted", "running", "rejected")
    if horizon is not None:
        assert out.end == float(horizon)
    held = sum(r.held_gs for r in out.runs)
    booked = sum(sum(kinds) for per_team in out.ledger.gs for kinds in per_team)
    assert abs(held - booked) <= 1e-6 * max(1.0, held)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_useful_gpu_seconds_equal_the_work_with_unlimited_capacity(data: st.DataObject) -> None:
    jobs = data.draw(workloads(["t0", "t1"], mig=False, failures=False))
    platform = {
        "pools": [pool("gpu", gpus=8, min_nodes=0, max_nodes=200)],
        "quotas": {"t0": ({"gpu": {GPU: 2000}}, None), "t1": ({"gpu": {GPU: 2000}}, None)},
        "mig": False,
    }
    config = SimConfig(spot_evictions_per_node_hour=0.0, node_failures_per_node_hour=0.0)
    out, _ = run_watched(platform, jobs, config)
    useful = sum(out.ledger.gs[t][0][USEFUL] for t in range(2))
    work = sum(j.work_gpu_seconds or 0.0 for j in jobs)
    assert abs(useful - work) <= 1e-6 * work
    assert all(r.state == DONE and r.evictions == 0 and r.preemptions == 0 for r in out.runs)
    assert all(r.quota_wait == 0.0 for r in out.runs)
