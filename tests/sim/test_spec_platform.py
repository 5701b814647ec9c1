"""The twin on a real platform spec: render's Kueue objects, MIG slices, time-slicing replicas."""

from __future__ import annotations

from gpuplane.sim.config import SimConfig
from gpuplane.sim.replay import kueue_objects_for, simulate
from gpuplane.sim.whatif import builtin_spec
from gpuplane.traces import PodSet, Workload

QUIET = SimConfig(spot_evictions_per_node_hour=0.0, node_failures_per_node_hour=0.0, horizon_s=86400.0)


def svc(wid: str, ps: PodSet) -> Workload:
    return Workload(
        id=wid,
        team="team-b",
        queue="q",
        klass="inference",
        submit=0.0,
        pod_sets=(ps,),
        run_time=3600.0,
        priority=1000,
    )


def test_requests_land_on_the_pool_that_offers_them() -> None:
    spec = builtin_spec()
    jobs = [
        svc("mig", PodSet("server", 2, 1.0, mig_profile="1g.10gb")),
        svc("frac", PodSet("server", 1, 0.5)),
        Workload(
            id="train",
            team="team-a",
            queue="q",
            klass="training",
            submit=0.0,
            pod_sets=(PodSet("worker", 2, 8.0),),
            work_gpu_seconds=16 * 1800.0,
        ),
    ]
    out = simulate(spec, jobs, QUIET)
    pools = {r.w.id: out.pools[r.pool].name for r in out.runs}
    assert pools == {"mig": "a100-mig", "frac": "t4-dev", "train": "a100-train"}
    eq = {r.w.id: r.gpu_eq for r in out.runs}
    assert abs(eq["mig"] - 2 / 7) < 1e-9  # two 1g slices of an A100 (7 compute slices)
    assert eq["frac"] == 0.25  # one of 4 time-slicing replicas
    assert eq["train"] == 16.0
    assert all(r.outcome == "completed" for r in out.runs)


def test_mig_layout_bounds_how_many_slices_run_at_once() -> None:
    spec = builtin_spec()  # a100-mig: up to 4 nodes, each GPU [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]
    jobs = [svc(f"s{i}", PodSet("server", 1, 1.0, mig_profile="3g.40gb")) for i in range(5)]
    out = simulate(spec, jobs, QUIET)
    # team-b may hold 1 + 3 borrowed 3g slices: the first runs on the minNodes node at once, three
    # wait 600 s for new nodes (one 3g slice each), the fifth gets quota when the first ends
    assert [(r.first_admit, r.first_start) for r in out.runs] == [
        (0.0, 0.0),
        (0.0, 600.0),
        (0.0, 600.0),
        (0.0, 600.0),
        (3600.0, 3600.0),
    ]


def test_the_twin_admits_with_the_objects_render_writes() -> None:
    kinds = sorted({o["kind"] for o in kueue_objects_for(builtin_spec())})
    assert {"ClusterQueue", "LocalQueue", "ResourceFlavor"} <= set(kinds)
