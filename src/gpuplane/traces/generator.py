"""A seeded synthetic workload: Poisson arrivals, heavy-tailed durations, mixed gang sizes,
several teams, checkpointing training, failures, and inference services.

Only `random.Random(seed)` is used, so the same arguments give the same list on every machine.
Defaults and their sources are in `generator_defaults.yaml` (see docs/workloads.md).
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import replace
from itertools import accumulate
from random import Random

from gpuplane.traces.model import Checkpoint, PodSet, Workload, WorkloadClass
from gpuplane.traces.params import GeneratorParams, JobClassParams, ServiceRequest, default_params
from gpuplane.traces.philly import pods_for, split_gang

DEFAULT_TEAMS = ("team-a", "team-b", "team-c")


class _Picker:
    """Weighted choice by one uniform draw (bisect on cumulative weights; cheaper than choices)."""

    def __init__(self, items: Sequence[object], weights: Sequence[float]) -> None:
        if not items or len(items) != len(weights) or min(weights) < 0 or sum(weights) <= 0:
            raise ValueError("a weighted choice needs items with non-negative weights that sum above 0")
        self.items = list(items)
        total = sum(weights)
        # Thresholds in [0, 1); the last is infinite so a draw never falls off the end.
        self.cum = [*[c / total for c in accumulate(weights)][:-1], math.inf]

    def index(self, u: float) -> int:
        """Index chosen by a uniform draw u in [0, 1)."""
        return bisect_right(self.cum, u)


def generate(
    seed: int,
    duration_s: float,
    teams: Sequence[str] = DEFAULT_TEAMS,
    *,
    jobs_per_hour: float | None = None,
    capacity_gpus: float | None = None,
    load: float | None = None,
    services: bool = True,
    params: GeneratorParams | None = None,
) -> list[Workload]:
    """Synthetic workloads submitted in [0, duration_s), sorted by submit time.

    The job arrival rate is `jobs_per_hour`, or else sized so that the jobs offer `load` x
    `capacity_gpus` GPUs on average (defaults: the built-in example's 0.75 x 40 GPUs).
    Teams get shares proportional to 1, 1/2, 1/3, ... in the order given. Inference services
    (`services=True`) come on top of the job stream.
    """
    p = params or default_params()
    if not teams or len(set(teams)) != len(teams):
        raise ValueError("teams must be a non-empty list of distinct names")
    if not duration_s > 0:
        raise ValueError("duration_s must be > 0")
    rate = _rate_per_second(p, jobs_per_hour, capacity_gpus, load)
    jobs = _job_stream(Random(seed), p, float(duration_s), rate, list(teams))
    if not services:
        return list(jobs)
    svc = sorted(
        _services(Random(f"services:{seed}"), p, float(duration_s), list(teams)),
        key=lambda w: (w.submit, w.id),
    )
    return list(heapq.merge(jobs, svc, key=lambda w: w.submit))


def builtin_week(seed: int = 0, teams: Sequence[str] = DEFAULT_TEAMS) -> list[Workload]:
    """The built-in example: a synthetic week of three teams' work for a platform of ~40 GPUs."""
    p = default_params()
    return generate(
        seed, p.builtin_duration_s, teams, capacity_gpus=p.builtin_capacity_gpus, load=p.builtin_load
    )


def _rate_per_second(
    p: GeneratorParams, jobs_per_hour: float | None, capacity_gpus: float | None, load: float | None
) -> float:
    if jobs_per_hour is not None:
        if not jobs_per_hour > 0:
            raise ValueError("jobs_per_hour must be > 0")
        return jobs_per_hour / 3600.0
    gpus = p.builtin_capacity_gpus if capacity_gpus is None else capacity_gpus
    share = p.builtin_load if load is None else load
    if not (gpus > 0 and share > 0):
        raise ValueError("capacity_gpus and load must be > 0")
    return share * gpus / p.mean_job_gpu_seconds()


def _pod_sets(p: GeneratorParams, cls: JobClassParams) -> list[tuple[PodSet, ...]]:
    """One shared pod-set tuple per gang size (records share them, which keeps memory low).

    Pods hold at most `gpus_per_pod_max` GPUs, split as evenly as whole numbers allow; CPU and
    memory requests follow each pod's GPUs.
    """
    out: list[tuple[PodSet, ...]] = []
    for gang, _ in cls.gang_sizes:
        sets = split_gang(gang, pods_for(gang, cls.gpus_per_pod_max))
        out.append(
            tuple(
                replace(
                    ps,
                    cpu_milli=max(p.cpu_milli_min, int(p.cpu_milli_per_gpu * ps.gpus_per_pod)),
                    memory_mib=max(p.memory_mib_min, int(p.memory_mib_per_gpu * ps.gpus_per_pod)),
                )
                for ps in sets
            )
        )
    return out


def _checkpoints(p: GeneratorParams) -> dict[tuple[float, int], Checkpoint]:
    cp = p.checkpoint
    out = {}
    for interval in cp.intervals_s:
        for gang, _ in p.training.gang_sizes:
            write = cp.write_base_s + cp.write_per_gpu_s * gang
            out[(interval, gang)] = Checkpoint(interval, write, write * cp.restore_factor)
    return out


def _job_stream(
    rng: Random, p: GeneratorParams, horizon: float, rate: float, teams: list[str]
) -> Iterator[Workload]:
    """Poisson arrivals of training and batch jobs, in submit order.

    Failed jobs stop after a fraction u^2 of their run (failures come early), killed ones after a
    uniform fraction; both are in (0, 1].
    """
    classes: list[tuple[WorkloadClass, JobClassParams]] = [("training", p.training), ("batch", p.batch)]
    pods = [_pod_sets(p, c) for _, c in classes]
    gangs = [[g for g, _ in c.gang_sizes] for _, c in classes]
    pickers = [_Picker(gangs[i], [w for _, w in c.gang_sizes]) for i, (_, c) in enumerate(classes)]
    team_pick = _Picker(teams, [1 / (i + 1) for i in range(len(teams))])
    users = [[f"{t}-user{k}" for k in range(p.users_per_team)] for t in teams]
    cps = _checkpoints(p)
    intervals = p.checkpoint.intervals_s
    prio = [p.priorities[name] for name, _ in classes]
    fs, ks, cshare = p.failed_share, p.failed_share + p.killed_share, p.checkpoint.share
    random, expo, gauss, exp = rng.random, rng.expovariate, rng.gauss, math.exp
    cum = [pk.cum for pk in pickers]
    team_cum = team_pick.cum
    t, n = 0.0, 0
    while True:
        t += expo(rate)
        if t >= horizon:
            return
        n += 1
        ci = 0 if random() < p.training_share else 1
        cls = classes[ci][1]
        gi = bisect_right(cum[ci], random())
        gang = gangs[ci][gi]
        dur = float(max(1, round(min(exp(gauss(cls.duration.mu, cls.duration.sigma)), cls.duration.max_s))))
        ti = bisect_right(team_cum, random())
        v = random()
        status, frac = (
            ("failed", (1.0 - random()) ** 2)
            if v < fs
            else (("killed", 1.0 - random()) if v < ks else ("completed", 1.0))
        )
        ckpt = None
        if ci == 0 and random() < cshare:
            ckpt = cps[(intervals[int(random() * len(intervals))], gang)]
        team = teams[ti]
        yield Workload(
            f"job-{n:07d}",
            team,
            team,
            classes[ci][0],
            round(t, 3),
            pods[ci][gi],
            dur * gang,
            None,
            prio[ci],
            ckpt,
            status,  # type: ignore[arg-type]
            frac,
            None,
            users[ti][int(random() * len(users[ti]))],
            0,
        )


def _services(rng: Random, p: GeneratorParams, horizon: float, teams: list[str]) -> Iterator[Workload]:
    """Inference services per team: long-running ones from the first hour to the horizon, and
    shorter-lived endpoints arriving as a Poisson stream."""
    inf = p.inference
    req_pick = _Picker(inf.requests, [r.weight for r in inf.requests])
    rep_pick = _Picker(inf.replicas, [w for _, w in inf.replicas])
    n = 0
    for team in teams:
        starts: list[tuple[float, float | None]] = [
            (rng.uniform(0, min(3600.0, horizon)), None) for _ in range(inf.services_per_team)
        ]
        t = 0.0
        while inf.extra_per_day > 0:
            t += rng.expovariate(inf.extra_per_day / 86400.0)
            if t >= horizon:
                break
            drawn = rng.lognormvariate(inf.extra_lifetime.mu, inf.extra_lifetime.sigma)
            starts.append((t, float(max(1, round(drawn)))))
        for submit, life in starts:
            n += 1
            req: ServiceRequest = inf.requests[req_pick.index(rng.random())]
            replicas = inf.replicas[rep_pick.index(rng.random())][0]
            pod = PodSet(
                "server", replicas, 1.0 if req.mig else req.gpus, req.mig, inf.cpu_milli, inf.memory_mib
            )
            submit = round(submit, 3)
            run = life if life is not None else round(horizon - submit, 3)
            yield Workload(
                f"svc-{n:04d}",
                team,
                team,
                "inference",
                submit,
                (pod,),
                None,
                run,
                p.priorities["inference"],
                None,
                "completed",
                1.0,
                None,
                f"{team}-user0",
                0,
            )
