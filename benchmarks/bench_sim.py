"""Benchmarks of `gpuplane simulate`: wall and CPU time, peak memory, jobs per CPU-second, events/s.

Cases: the full Philly trace (philly-pollux, 82,247 jobs, 15 virtual clusters) on a platform sized
like Philly; the same with a three-level Kueue Topology on the pool (every workload placed by TAS;
its CPU beside the plain run's); the same with spot evictions and checkpointing; a 10x synthetic trace (~800,000
jobs, to show how cost grows with jobs); Alibaba's openb pods on time-sliced GPUs; and the GKE
example (fair sharing, hierarchical cohorts, preemption) under load. Issue 23's cases: Philly on
the undersized 96-GPU platform of specs/philly-96.yaml (8,000 rows and the full trace: a backlog
of thousands, where the twin's cost once grew with jobs x backlog), and an overloaded gang trace
(8,000 synthetic jobs at 130 % of capacity) beside the SimPy reference.

The Philly and overloaded cases also run the reference (reference_fifo.py: a minimal SimPy model of
one Kueue ClusterQueue's queueing, BestEffortFIFO by priority then submission, quota reserved before
gangs are placed best fit on 8-GPU nodes) on the same jobs with the twin's run times in the same
child process, and print both speeds in jobs per CPU-second, their ratio (twin / reference) and how
many start times agree.
Each case runs in a forked child so its peak RSS is its own. Traces come from ../shared.
"""

from __future__ import annotations

import multiprocessing as mp
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "reference" / "traces"
PHILLY = SHARED / "philly-pollux" / "philly.csv"
OPENB = SHARED / "alibaba-gpu-v2023-openb" / "openb_pod_list_default.csv"
# GPUs per VC from philly_vc.csv (nodes x 8); VCs it does not list get one node.
PHILLY_VC_NODES = {
    "6214e9": 64,
    "7f04ca": 32,
    "11cb48": 16,
    "b436b2": 64,
    "ee9e8c": 64,
    "e13805": 16,
    "6c71a0": 32,
    "2869ce": 16,
    "ed69ec": 8,
    "103959": 8,
    "0e4a51": 32,
}


# A three-level topology for the TAS case (issue 22): 16 nodes per rack, 64 per block.
TOPOLOGY = {
    "levels": ["example.com/block", "example.com/rack", "kubernetes.io/hostname"],
    "domainSizes": {"example.com/rack": 16, "example.com/block": 64},
}


def philly_spec(
    queues: list[str], *, spot: bool = False, topology: bool = False, nodes: dict[str, int] | None = None
) -> Any:
    """A Philly-sized platform: 8-GPU nodes, one team per virtual cluster, one cohort; with
    `topology`, the pool has a three-level Kueue Topology (every workload then goes through TAS).
    `nodes`: nodes per team (default: PHILLY_VC_NODES, one node for a VC it does not list)."""
    from gpuplane.spec import PlatformSpec

    sizes = PHILLY_VC_NODES if nodes is None else nodes
    nodes_total = sum(sizes.get(q, 1) for q in queues)
    pool_topology = {"topology": TOPOLOGY} if topology else {}
    return PlatformSpec.model_validate(
        {
            "cluster": {"name": "philly", "provider": "generic"},
            "nodePools": [
                {
                    "name": "gpu",
                    "accelerator": "A100-40GB",
                    "gpusPerNode": 8,
                    "minNodes": 0 if spot else nodes_total,
                    "maxNodes": nodes_total,
                    "spot": {"enabled": spot},
                    "workloadClasses": ["training", "batch", "inference"],
                    **pool_topology,
                }
            ],
            "teams": [
                {
                    "name": q,
                    "namespaces": [q],
                    "quotas": [{"pool": "gpu", "nominal": sizes.get(q, 1) * 8}],
                }
                for q in queues
            ],
            "queueing": {
                "defaultCohort": "philly",
                "cohorts": [{"name": "philly"}],
                "preemption": {"withinClusterQueue": "Never", "reclaimWithinCohort": "Never"},
            },
            "costs": {"pools": {"gpu": {"onDemandHourly": 24.0, "spotHourly": 8.0}}},
        }
    )


def _measure(name: str, build: Callable[[], tuple[Any, list[Any], Any]], out: Any, reference: bool) -> None:
    from gpuplane.sim.replay import simulate

    spec, workloads, config = build()
    ref = _reference(spec, workloads) if reference else None
    start, cpu = time.perf_counter(), time.process_time()
    outcome = simulate(spec, workloads, config)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    agree = None
    if ref is not None:
        starts = {run.w.id: run.first_start for run in outcome.runs}
        agree = sum(1 for w, s in zip(workloads, ref[1], strict=True) if starts[w.id] == s)
    out.put(
        (name, wall, cpu, peak_mib, len(workloads), outcome.events, outcome.cycles, ref and ref[0], agree)
    )


def _reference(spec: Any, workloads: list[Any]) -> tuple[float, list[float | None]]:
    """CPU seconds of the SimPy reference on the same jobs, and its start times (input order)."""
    import importlib.util

    found = importlib.util.spec_from_file_location(
        "reference_fifo", Path(__file__).with_name("reference_fifo.py")
    )
    assert found is not None and found.loader is not None
    reference_fifo = importlib.util.module_from_spec(found)
    found.loader.exec_module(reference_fifo)

    from gpuplane.sim.progress import wall_to_finish

    nodes = sum(p.max_nodes for p in spec.node_pools)
    quota = sum(q.nominal for t in spec.teams for q in t.quotas)
    # What the twin runs: a failed or killed job stops at its recorded fraction (`stop_after`) and a
    # checkpointing job writes its checkpoints on the way (sim/progress.py); Kueue orders by priority.
    jobs = [
        (w.submit, round(w.total_gpus), wall_to_finish(0.0, w.stop_after, w.checkpoint, 0.0), w.priority)
        for w in workloads
    ]
    cpu = time.process_time()
    starts = reference_fifo.simulate(jobs, nodes, quota)
    return time.process_time() - cpu, starts


def _philly(spot: bool, topology: bool = False) -> Callable[[], tuple[Any, list[Any], Any]]:
    def build() -> tuple[Any, list[Any], Any]:
        from gpuplane.sim.config import SimConfig
        from gpuplane.traces import Checkpoint, with_checkpoint
        from gpuplane.traces.load import load_workload

        ws = load_workload(PHILLY)
        queues = ws.queues
        workloads = list(ws)
        config = SimConfig(seed=1)
        if spot:
            ckpt = Checkpoint(interval_s=1800, write_s=60, restore_s=300)
            workloads = [with_checkpoint(w, ckpt) for w in workloads]
            config = SimConfig(seed=1, spot_evictions_per_node_hour=0.01)
        return philly_spec(queues, spot=spot, topology=topology), workloads, config

    return build


SPECS = REPO / "benchmarks" / "specs"


def _undersized(limit: int | None) -> Callable[[], tuple[Any, list[Any], Any]]:
    """Issue 23's reproduction: Philly (the first `limit` rows, or all) on 24 x Standard_NC96ads_A100_v4
    (96 GPUs, specs/philly-96.yaml): a backlog of thousands behind a cluster far too small."""

    def build() -> tuple[Any, list[Any], Any]:
        import yaml

        from gpuplane.sim.config import SimConfig
        from gpuplane.spec import load_spec
        from gpuplane.traces.load import load_workload

        spec = load_spec(SPECS / "philly-96.yaml")
        mapping = yaml.safe_load((SPECS / "philly-teams.yaml").read_text())["map"]
        ws = load_workload(PHILLY, team_map=mapping, teams=[t.name for t in spec.teams], limit=limit)
        return spec, list(ws), SimConfig(seed=0)

    return build


def _overloaded() -> tuple[Any, list[Any], Any]:
    """8,000 gang jobs at 130 % of a 128-node (1,024-GPU) Philly-like platform's capacity, all in
    one ClusterQueue whose quota is the capacity: the queueing policy the SimPy reference models
    (with two ClusterQueues in a cohort, Kueue orders each cycle's heads by borrowing first, which
    a FIFO reference does not model: the start times would differ by policy, not by error)."""
    import dataclasses

    from gpuplane.sim.config import SimConfig
    from gpuplane.traces import generate

    teams = ["6214e9", "b436b2"]  # the generator's mix for two VCs of 64 nodes each (philly_vc.csv)
    capacity = sum(PHILLY_VC_NODES[t] for t in teams) * 8
    workloads = generate(13, 30 * 86400.0, teams, capacity_gpus=capacity, load=1.3, services=False)
    team = "overloaded"
    gangs = [w for w in workloads if w.klass != "inference"][:8000]
    workloads = [dataclasses.replace(w, team=team, queue=team) for w in gangs]
    return philly_spec([team], nodes={team: capacity // 8}), workloads, SimConfig(seed=13)


def _synthetic(factor: int) -> Callable[[], tuple[Any, list[Any], Any]]:
    """Philly's arrival rate (31.5 jobs/h) for `factor` x Philly's 109 days, on the same platform."""

    def build() -> tuple[Any, list[Any], Any]:
        from gpuplane.sim.config import SimConfig
        from gpuplane.traces import generate

        teams = sorted(PHILLY_VC_NODES)[:10]
        workloads = generate(7, 109 * 86400.0 * factor, teams, jobs_per_hour=31.5)
        return philly_spec(teams), workloads, SimConfig(seed=7)

    return build


def openb_spec() -> Any:
    """A GPU-sharing platform for Alibaba's openb pods: fractional pods on time-sliced GPUs
    (advertised as nvidia.com/gpu.shared, 4 replicas each), whole-GPU pods on exclusive nodes."""
    from gpuplane.spec import PlatformSpec

    teams = ["ls", "be", "burstable", "guaranteed"]
    return PlatformSpec.model_validate(
        {
            "cluster": {"name": "openb", "provider": "generic"},
            "nodePools": [
                {
                    "name": "shared",
                    "accelerator": "A10",
                    "gpusPerNode": 8,
                    "minNodes": 0,
                    "maxNodes": 150,
                    "workloadClasses": ["training", "batch", "inference"],
                    "sharing": {"mode": "time-slicing", "replicas": 4, "renameShared": True},
                },
                {
                    "name": "whole",
                    "accelerator": "A10",
                    "gpusPerNode": 8,
                    "minNodes": 0,
                    "maxNodes": 300,
                    "workloadClasses": ["training", "batch", "inference"],
                },
            ],
            "teams": [
                {
                    "name": t,
                    "namespaces": [t],
                    "quotas": [{"pool": "shared", "nominal": 1200}, {"pool": "whole", "nominal": 600}],
                }
                for t in teams
            ],
            "queueing": {"defaultCohort": "openb", "cohorts": [{"name": "openb"}]},
            "costs": {"pools": {"shared": {"onDemandHourly": 8.0}, "whole": {"onDemandHourly": 8.0}}},
        }
    )


def _openb() -> tuple[Any, list[Any], Any]:
    from gpuplane.sim.config import SimConfig
    from gpuplane.traces.load import load_workload

    tmap = {"LS": "ls", "BE": "be", "Burstable": "burstable", "Guaranteed": "guaranteed"}
    ws = load_workload(OPENB, team_map=tmap, teams=list(tmap.values()))
    return openb_spec(), list(ws), SimConfig(seed=3)


CPU: dict[str, float] = {}  # CPU seconds of each case run so far (ratios in the same run)


def case(
    name: str, build: Callable[[], tuple[Any, list[Any], Any]], reference: bool = False
) -> list[tuple[str, str]]:
    """Run one case in a forked child and format its figures."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_measure, args=(name, build, queue, reference))
    proc.start()
    result = queue.get()
    proc.join()
    _, wall, cpu, peak, jobs, events, cycles, ref_cpu, agree = result
    CPU[name] = cpu
    rows = [
        (f"{name}: wall time", f"{wall:.1f} s (cpu {cpu:.1f} s)"),
        (f"{name}: peak memory", f"{peak:.0f} MiB"),
        (f"{name}: jobs per CPU-second", f"{jobs / cpu:,.0f} ({jobs:,} jobs)"),
        (f"{name}: events/s", f"{events / wall:,.0f} ({events:,} events, {cycles:,} Kueue cycles)"),
    ]
    if ref_cpu:
        rows += [
            (f"{name}: reference (SimPy FIFO gangs)", f"{jobs / ref_cpu:,.0f} jobs per CPU-second"),
            (f"{name}: twin / reference", f"{ref_cpu / cpu:.2f} ({agree:,} of {jobs:,} start times agree)"),
        ]
    return rows


def run() -> list[tuple[str, str]]:
    """All cases; rows of (label, figure)."""
    rows: list[tuple[str, str]] = []
    rows += case("philly full", _philly(spot=False), reference=True)
    rows += case("philly full, 3-level topology (TAS)", _philly(spot=False, topology=True))
    rows.append(
        (
            "TAS / no topology (same run, CPU)",
            f"{CPU['philly full, 3-level topology (TAS)'] / CPU['philly full']:.2f}x (issue 22 asks <= 2x)",
        )
    )
    rows += case("overloaded gangs (130 % load)", _overloaded, reference=True)
    rows += case("philly undersized (96 GPUs), 8k rows", _undersized(8000))
    rows += case("philly undersized (96 GPUs), full", _undersized(None))
    rows += case("philly spot+checkpoint", _philly(spot=True))
    rows += case("synthetic 1x", _synthetic(1))
    rows += case("synthetic 10x", _synthetic(10))
    rows += case("openb GPU sharing", _openb)
    rows += case("gke example, fair sharing under load (3 days)", _gke)
    return rows


def _gke() -> tuple[Any, list[Any], Any]:
    """examples/gke-h100.yaml (fair sharing, hierarchical cohorts, preemption) at 1.5x its capacity."""
    from gpuplane.sim.config import SimConfig
    from gpuplane.spec import load_spec
    from gpuplane.traces import generate

    spec = load_spec(REPO / "examples" / "gke-h100.yaml")
    capacity = sum(p.max_nodes * p.gpus for p in spec.node_pools if p.is_gpu)
    workloads = generate(4, 3 * 86400.0, [t.name for t in spec.teams], capacity_gpus=capacity, load=1.5)
    return spec, workloads, SimConfig(seed=4)


if __name__ == "__main__":
    names = sys.argv[1:]
    table = {
        "philly": _philly(False),
        "philly-spot": _philly(True),
        "philly-tas": _philly(False, topology=True),
        "overloaded": _overloaded,
        "undersized-8k": _undersized(8000),
        "undersized": _undersized(None),
        "syn1": _synthetic(1),
        "syn10": _synthetic(10),
        "openb": _openb,
        "gke": _gke,
    }
    for n in names or list(table):
        for label, figure in case(n, table[n], reference=n in ("philly", "overloaded")):
            print(f"{label:45s} {figure}")
