"""M/M/c test loads and the Erlang C formula, for tests whose optimum is known from queueing theory.

The trace is Poisson arrivals of one-GPU jobs with exponential run times (seeded); the platform is
one team on one pool of one-GPU nodes that are always on (minNodes = maxNodes = c), so Kueue's FIFO
admission of one-GPU jobs on c GPUs is an M/M/c queue with first-come-first-served service.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from gpuplane.traces import PodSet, Workload, write_workloads_csv

TEAM = "solo"


def erlang_c(c: int, offered: float) -> float:
    """Erlang C: the probability that an arrival waits, with `offered` = lambda / mu Erlangs on c servers."""
    if c <= offered:
        return 1.0
    top = offered**c / math.factorial(c) * c / (c - offered)
    return top / (sum(offered**k / math.factorial(k) for k in range(c)) + top)


def wait_quantile(c: int, lam: float, mu: float, q: float) -> float:
    """The q-quantile of the M/M/c FCFS queue wait: P(W > t) = C(c, a) exp(-(c mu - lam) t)."""
    if c * mu <= lam:
        return math.inf
    tail = erlang_c(c, lam / mu)
    return 0.0 if tail <= 1.0 - q else math.log(tail / (1.0 - q)) / (c * mu - lam)


def smallest_pool(lam: float, mu: float, q: float, target: float, sizes: range) -> int:
    """The smallest c in `sizes` whose q-quantile wait is at most `target`."""
    return next(c for c in sizes if wait_quantile(c, lam, mu, q) <= target)


def mmc_workloads(lam_per_s: float, mu_per_s: float, jobs: int, seed: int) -> list[Workload]:
    """`jobs` one-GPU training jobs: Poisson(lam) arrivals, exponential(mu) run times."""
    rng = random.Random(seed)
    now, out = 0.0, []
    for i in range(jobs):
        now += rng.expovariate(lam_per_s)
        run = rng.expovariate(mu_per_s)
        out.append(
            Workload(
                id=f"j{i:05d}",
                team=TEAM,
                queue=TEAM,
                klass="training",
                submit=round(now, 3),
                pod_sets=(PodSet("worker", 1, 1.0),),
                work_gpu_seconds=round(max(run, 1.0), 3),
            )
        )
    return out


def write_mmc(
    folder: Path, *, lam_per_h: float, mu_per_h: float, jobs: int, seed: int, sizes: list[int]
) -> tuple[Path, Path, Path]:
    """A trace CSV, a spec of one always-on pool of one-GPU nodes, and a plan.yaml over `sizes`."""
    trace = folder / "mmc.csv"
    write_workloads_csv(mmc_workloads(lam_per_h / 3600.0, mu_per_h / 3600.0, jobs, seed), trace)
    spec = folder / "mmc.yaml"
    start = sizes[len(sizes) // 2]
    spec.write_text(
        f"""cluster: {{name: mmc, provider: generic}}
nodePools:
  - name: gpu
    accelerator: A100-80GB
    gpusPerNode: 1
    minNodes: {start}
    maxNodes: {start}
teams:
  - name: {TEAM}
    namespaces: [{TEAM}]
    quotas: [{{pool: gpu, nominal: {start}}}]
queueing:
  defaultCohort: null
  preemption: {{withinClusterQueue: Never, reclaimWithinCohort: Never}}
costs:
  pools: {{gpu: {{onDemandHourly: 1.0}}}}
""",
        encoding="utf-8",
    )
    space = folder / "plan.yaml"
    space.write_text(
        f"pools:\n  gpu: {{maxNodes: {sizes}, minNodes: maxNodes, spot: [false]}}\n", encoding="utf-8"
    )
    return trace, spec, space
