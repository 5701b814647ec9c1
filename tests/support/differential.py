"""The traces of issue 23's differential test, in one place for the test and the benchmark.

tests/kueue/test_differential.py runs slices of them that `make test` can afford; benchmarks/
bench_differential.py (`make bench BENCH=differential`) runs them at full size. Both run the
reference engine (`kueue.reference.use_reference_engine(True)`: the engine before issue 23's
shortcuts) and today's on the same input and compare the outputs byte for byte: the twin's
per-workload CSV (every admission, start, end, preemption and wait) and `explain --eta`'s estimates
as JSON.

The traces are the ones the benchmarks time, built by the benchmarks' own code where it exists:
- Philly on the undersized 96-GPU platform (benchmarks/specs/philly-96.yaml, as bench_sim.py's
  `_undersized`): the first `limit` rows or all 82,247.
- The synthetic 10x trace (bench_sim.py's `_synthetic(10)`: seed 7, Philly's 31.5 jobs/h for ten
  times Philly's 109 days, ten of Philly's virtual clusters as teams; 834,434 workloads).
  `synthetic_10x_prefix` gives exactly the workloads of that trace submitted before a cut without
  generating the rest. On the benchmark's platform (2,304 GPUs) nothing ever waits, so the slices
  in tests run on the same platform form cut to 1/32 (`philly_like_spec(..., divisor=32)`: 9
  nodes, 72 GPUs for ~169 GPUs offered), where a backlog builds within the first day.
- The GKE example (fair sharing, hierarchical cohorts, preemption) at 1.5x its capacity
  (bench_sim.py's `_gke`: 3 days, seed 4), and the AKS example at 3x (classical preemption with
  borrowing, MIG and time-sliced pools).
- The ETA benchmark snapshots (tests/support/kueue_clusters.py's `build_cluster`, which
  bench_explain.py times at 100 CQs / 5k pending and 500 CQs / 50k pending, and `build_contended`,
  bench_kueue.py's contended cycle), classical and with fair sharing (a `FairSharingConfig`
  among the objects).
"""

from __future__ import annotations

import heapq
import importlib.util
import json
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from random import Random
from types import ModuleType
from typing import Any

from gpuplane.explain.command import ExplainOptions, explain_input
from gpuplane.explain.eta import EtaOptions
from gpuplane.kueue.objects import FairSharingConfig
from gpuplane.kueue.parse import Parsed
from gpuplane.kueue.reference import reference_engine_on, use_reference_engine
from gpuplane.sim.config import SimConfig
from gpuplane.sim.output import workloads_csv
from gpuplane.sim.replay import simulate
from gpuplane.spec import PlatformSpec, load_spec
from gpuplane.traces import Workload, generate
from gpuplane.traces import generator as _generator
from gpuplane.traces.load import load_workload
from gpuplane.traces.params import default_params

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "benchmarks" / "specs"
PHILLY = REPO.parent / "shared" / "reference" / "traces" / "philly-pollux" / "philly.csv"

SimCase = tuple[PlatformSpec, list[Workload], SimConfig]

#: bench_sim.py's synthetic trace: seed, jobs per hour, Philly's span in days, the factor.
SYNTHETIC_SEED, SYNTHETIC_RATE, SYNTHETIC_DAYS, SYNTHETIC_FACTOR = 7, 31.5, 109, 10


@cache
def bench_sim() -> ModuleType:
    """benchmarks/bench_sim.py, loaded as a module (its traces and platforms are the benchmark's)."""
    found = importlib.util.spec_from_file_location("bench_sim", REPO / "benchmarks" / "bench_sim.py")
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


def philly_undersized(limit: int | None) -> SimCase:
    """Philly (the first `limit` rows, or all) on the 96-GPU platform of specs/philly-96.yaml."""
    spec = load_spec(SPECS / "philly-96.yaml")
    ws = load_workload(
        PHILLY, team_map=SPECS / "philly-teams.yaml", teams=[t.name for t in spec.teams], limit=limit
    )
    return spec, list(ws), SimConfig(seed=0)


def synthetic_teams() -> list[str]:
    """The synthetic trace's teams, as bench_sim.py's `_synthetic` picks them."""
    return sorted(bench_sim().PHILLY_VC_NODES)[:10]


def synthetic_horizon() -> float:
    """The span of bench_sim.py's synthetic 10x trace, in seconds."""
    return SYNTHETIC_DAYS * 86400.0 * SYNTHETIC_FACTOR


def synthetic_10x_full() -> list[Workload]:
    """The whole synthetic 10x trace, as bench_sim.py's `_synthetic(10)` generates it."""
    horizon = synthetic_horizon()
    return generate(SYNTHETIC_SEED, horizon, synthetic_teams(), jobs_per_hour=SYNTHETIC_RATE)


def synthetic_10x_prefix(cut_s: float, horizon_s: float | None = None) -> list[Workload]:
    """The workloads of the synthetic 10x trace submitted before `cut_s`, without the rest.

    Exactly `[w for w in generate(seed, horizon, ...) if w.submit < cut_s]`: the same job stream
    (a seeded Poisson process read up to the cut) merged with the same inference services (which
    depend on the horizon: long-running ones last until it). `horizon_s` defaults to the trace's.
    """
    horizon = synthetic_horizon() if horizon_s is None else horizon_s
    teams = synthetic_teams()
    params = default_params()
    rate = SYNTHETIC_RATE / 3600.0
    jobs = []
    for w in _generator._job_stream(Random(SYNTHETIC_SEED), params, horizon, rate, teams):
        if w.submit >= cut_s:
            break
        jobs.append(w)
    services = sorted(
        (
            w
            for w in _generator._services(Random(f"services:{SYNTHETIC_SEED}"), params, horizon, teams)
            if w.submit < cut_s
        ),
        key=lambda w: (w.submit, w.id),
    )
    return list(heapq.merge(jobs, services, key=lambda w: w.submit))


def philly_like_spec(teams: Sequence[str], divisor: int = 1) -> PlatformSpec:
    """bench_sim.py's Philly-sized platform for `teams` with every team's nodes divided by `divisor`
    (quota in GPUs: nodes x 8 / divisor, which must be whole; the pool holds their sum)."""
    nodes_of = bench_sim().PHILLY_VC_NODES
    gpus = {t: nodes_of.get(t, 1) * 8 // divisor for t in teams}
    if any(nodes_of.get(t, 1) * 8 % divisor for t in teams) or sum(gpus.values()) % 8:
        raise ValueError(f"divisor {divisor} does not cut every team's GPUs and the pool's nodes whole")
    spec = bench_sim().philly_spec(list(teams))
    data = spec.model_dump(by_alias=True, exclude_unset=True)
    pool = data["nodePools"][0]
    pool["minNodes"] = pool["maxNodes"] = sum(gpus.values()) // 8
    for team in data["teams"]:
        team["quotas"] = [{"pool": pool["name"], "nominal": gpus[team["name"]]}]
    return PlatformSpec.model_validate(data)


def synthetic_10x_slice(days: float, divisor: int = 32) -> SimCase:
    """The first `days` of the synthetic 10x trace on its platform cut to 1/`divisor`."""
    spec = philly_like_spec(synthetic_teams(), divisor)
    return spec, synthetic_10x_prefix(days * 86400.0), SimConfig(seed=SYNTHETIC_SEED)


def synthetic_10x_bench() -> SimCase:
    """The synthetic 10x trace on its platform, exactly as bench_sim.py runs it."""
    spec, workloads, config = bench_sim()._synthetic(SYNTHETIC_FACTOR)()
    return spec, workloads, config


def example_under_load(example: str, days: float, load: float, seed: int) -> SimCase:
    """examples/`example` with synthetic work at `load` x its GPU capacity for `days`."""
    spec = load_spec(REPO / "examples" / example)
    capacity = sum(p.max_nodes * p.gpus for p in spec.node_pools if p.is_gpu)
    workloads = generate(
        seed, days * 86400.0, [t.name for t in spec.teams], capacity_gpus=capacity, load=load
    )
    return spec, workloads, SimConfig(seed=seed)


def eta_objects(build: Callable[[], list[object]], fair: bool) -> Callable[[], list[object]]:
    """A snapshot's objects, with a FairSharingConfig among them when `fair`."""

    def objects() -> list[object]:
        objs = build()
        return [*objs, FairSharingConfig()] if fair else objs

    return objects


# ---- running both engines ----------------------------------------------------------------------
def twin_csv(case: Callable[[], SimCase]) -> Callable[[], str]:
    """Simulate the case (built afresh: a run mutates its workloads) and return the per-workload CSV."""

    def run() -> str:
        spec, workloads, config = case()
        return workloads_csv(simulate(spec, workloads, config))

    return run


def eta_json(objects: Callable[[], list[object]]) -> Callable[[], str]:
    """`explain --eta` on the objects, every estimate as JSON (sorted by workload, one per line)."""

    def run() -> str:
        result = explain_input(Parsed(objects=objects()), ExplainOptions(eta=EtaOptions()))
        lines = [
            f"{json.dumps(k)}: {json.dumps(v.as_dict(), sort_keys=True)}"
            for k, v in sorted(result.etas.items())
        ]
        return "{\n" + ",\n".join(lines) + "\n}\n"  # one estimate per line: a difference names its workload

    return run


def both(run: Callable[[], str]) -> tuple[str, str]:
    """(reference engine's output, today's engine's output) of `run`."""
    use_reference_engine(True)
    try:
        assert reference_engine_on()
        reference = run()
    finally:
        use_reference_engine(False)
    assert not reference_engine_on()
    return reference, run()


def first_difference(reference: str, fast: str) -> str | None:
    """None when identical, else the first line that differs (with its number), both ways."""
    if reference == fast:
        return None
    ref_lines, fast_lines = reference.splitlines(), fast.splitlines()
    for i, (a, b) in enumerate(zip(ref_lines, fast_lines, strict=False)):
        if a != b:
            return f"line {i + 1}: reference {a[:300]!r} / engine {b[:300]!r}"
    return f"line counts differ: reference {len(ref_lines)} / engine {len(fast_lines)}"


def eta_count(text: str) -> int:
    """How many estimates an `eta_json` output holds."""
    data: dict[str, Any] = json.loads(text)
    return len(data)
