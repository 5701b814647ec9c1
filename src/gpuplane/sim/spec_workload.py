"""The default workload of `simulate` and `plan` without `-w`: a synthetic week made for the spec.

The built-in generator (`gpuplane.traces.generate`: seeded Poisson arrivals, heavy-tailed
durations, failures, checkpoints, inference services) draws a week per team of the spec, and each
workload is fitted to what its team can run:

- its size: each team's jobs arrive at a rate sized to the GPUs its nominal quotas guarantee
  (`builtin_load` of them, as the built-in week is for its ~40 GPUs), each team with its own
  seeded stream; a team without a guaranteed GPU gets none;
- its pools: the GPU pools where the team has a quota entry it can use (nominal, or borrowing in a
  cohort), whose `workloadClasses` take the workload's class; a class none of the team's pools
  takes becomes one they take (training <-> batch first; a service becomes a job of the same
  length, a job a service), so every class mix follows the spec;
- its request: on an exclusive pool (or MIG `single`, or a DRA pool) whole units, at most what
  the team's nominal quota guarantees there (what it may borrow, when it has no guarantee) and
  the pool's `maxNodes` hold, split into pods that fit one node; on a
  time-sliced or MPS pool one shared replica per pod; on a MIG `mixed` pool one device of a
  profile the pool's layout has. Duration is kept (a job's GPU work follows its new size).

A workload no pool of its team can take is left out and counted. Every workload kept
fits a node of one of its pools (`sim.requests.allowed_pods`), so none is "not simulated".
Deterministic: the same spec and seed give the same list.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace
from random import Random

from gpuplane.sim.pools import PoolModel, pool_models
from gpuplane.sim.requests import allowed_pods, shared_resource
from gpuplane.spec import PlatformSpec, derived
from gpuplane.traces import Workload, generate
from gpuplane.traces.model import PodSet
from gpuplane.traces.params import default_params
from gpuplane.traces.philly import pods_for, split_gang
from gpuplane.vocab import GPU_RESOURCE, is_mig_resource, mig_resource

LABEL = "synthetic week made for the spec (its teams, quotas, workload classes and pools)"
#: Classes a workload may become when none of its team's pools takes its own, in order.
_NEAREST = {
    "training": ("batch", "inference"),
    "batch": ("training", "inference"),
    "inference": ("batch", "training"),
}


@dataclass(frozen=True)
class SpecWorkload:
    """The fitted week and what fitting did (for the output's note)."""

    workloads: list[Workload]
    left_out: int
    reclassed: int
    resized: int

    @property
    def note(self) -> str:
        """One line saying what the workload holds and what was adjusted to fit the spec."""
        parts = [f"{len(self.workloads):,} workloads"]
        if self.resized:
            parts.append(f"{self.resized:,} resized to fit their team's pools")
        if self.reclassed:
            parts.append(f"{self.reclassed:,} moved to a class their team's pools run")
        if self.left_out:
            parts.append(f"{self.left_out:,} left out (no pool of their team takes them)")
        return f"{LABEL}: " + ", ".join(parts)


def _reach(spec: PlatformSpec, pools: dict[str, PoolModel]) -> dict[tuple[str, str, str], int]:
    """(team, pool, resource on the pool) -> units the team's quota can reach there, at most what
    the pool holds at maxNodes."""
    out: dict[tuple[str, str, str], int] = {}
    spec_pools = {p.name: p for p in spec.node_pools}
    for team in spec.teams:
        in_cohort = derived.cohort_of(spec, team) is not None
        for quota in team.quotas:
            model, pool = pools.get(quota.pool), spec_pools.get(quota.pool)
            if model is None or pool is None:
                continue
            held = {res: units * model.max_nodes for res, units in model.per_node.items()}
            names = [quota.resource] if quota.resource else list(held)
            for name in names:
                if name not in held:
                    continue
                borrow = quota.borrowing_limit
                extra = borrow if borrow is not None else (held[name] if in_cohort else 0)
                # A request the team's own guarantee holds; borrowing only when it has none.
                units = min(held[name], quota.nominal or extra)
                key = (team.name, pool.name, name)
                out[key] = max(out.get(key, 0), units)
    return {k: v for k, v in out.items() if v > 0}


def _guaranteed_gpus(spec: PlatformSpec, team: str, pools: dict[str, PoolModel]) -> float:
    """Physical GPUs the team's nominal quotas guarantee (units x the share of a GPU one unit is)."""
    total = 0.0
    for t in spec.teams:
        if t.name != team:
            continue
        for quota in t.quotas:
            model = pools.get(quota.pool)
            if model is None:
                continue
            names = [quota.resource] if quota.resource else [r for r, _ in model.per_gpu]
            shares = [model.fraction(r) for r in names if r in dict(model.per_gpu)]
            total += quota.nominal * (min(shares) if shares else 0.0)
    return total


def _fit_request(w: Workload, pool: PoolModel, cap: dict[str, int], rng: Random) -> tuple[PodSet, ...] | None:
    """Pod sets of `w` resized to what `pool` offers and the team reaches there, or None."""
    per_node = pool.per_node
    base = w.pod_sets[0]
    pods = max(1, sum(ps.count for ps in w.pod_sets))
    if pool.sharing in ("time-slicing", "mps"):
        name = pool.request_name(shared_resource([pool]))
        reach = cap.get(name or "", 0)
        if reach < 1:
            return None
        count = min(pods, reach)
        return (PodSet(base.name, count, 0.5, None, base.cpu_milli, base.memory_mib),)
    migs = sorted(r for r in per_node if is_mig_resource(r) and cap.get(r, 0) >= 1)
    if pool.sharing == "mig" and migs:
        wanted = mig_resource(w.mig_profiles[0]) if w.mig_profiles else ""
        resource = wanted if wanted in migs else migs[int(rng.random() * len(migs))]
        profile = resource.removeprefix(mig_resource(""))
        count = min(pods, cap[resource])
        return (PodSet(base.name, count, 1.0, profile, base.cpu_milli, base.memory_mib),)
    name = pool.request_name(GPU_RESOURCE)
    if name is None or cap.get(name, 0) < 1:
        return None
    per = per_node.get(name, 0)
    units = max(1, min(round(max(w.total_gpus, 1.0)), cap[name]))
    sets = split_gang(units, pods_for(units, max(per, 1)))
    return tuple(replace(ps, cpu_milli=base.cpu_milli, memory_mib=base.memory_mib) for ps in sets)


def _as_class(w: Workload, klass: str) -> Workload:
    """`w` as a workload of another class, keeping its length."""
    if klass == w.klass:
        return w
    if klass == "inference":
        return replace(w, klass="inference", work_gpu_seconds=None, run_time=w.duration)
    if w.klass == "inference":
        return replace(w, klass=klass, work_gpu_seconds=w.duration * max(w.total_gpus, 1.0), run_time=None)  # type: ignore[arg-type]
    return replace(w, klass=klass)  # type: ignore[arg-type]


def _with_pods(w: Workload, pod_sets: tuple[PodSet, ...]) -> Workload:
    if w.work_gpu_seconds is None:
        return replace(w, pod_sets=pod_sets)
    gpus = sum(ps.count * ps.gpus_per_pod for ps in pod_sets)
    return replace(w, pod_sets=pod_sets, work_gpu_seconds=w.duration * gpus)


def spec_workload(spec: PlatformSpec, seed: int) -> SpecWorkload:
    """The week made for `spec` (see the module docstring)."""
    models = pool_models(spec)
    by_name = {m.name: m for m in models}
    reach = _reach(spec, by_name)
    team_pools: dict[str, list[PoolModel]] = {}
    for name, pool, _ in sorted(reach):
        if by_name[pool] not in team_pools.setdefault(name, []):
            team_pools[name].append(by_name[pool])
    p = default_params()
    week: list[Workload] = []
    for team in spec.teams:
        gpus = _guaranteed_gpus(spec, team.name, by_name)
        if gpus <= 0:
            continue
        drawn = generate(
            zlib.crc32(f"{seed}:{team.name}".encode()),
            p.builtin_duration_s,
            [team.name],
            capacity_gpus=gpus,
            load=p.builtin_load,
        )
        week += [replace(w, id=f"{team.name}-{w.id}") for w in drawn]
    week.sort(key=lambda w: (w.submit, w.id))
    shared = shared_resource(models)
    kept: list[Workload] = []
    left_out = reclassed = resized = 0
    for w in week:
        fitted = _fit(w, team_pools.get(w.team, []), reach, models, shared, Random(f"{seed}:{w.id}"))
        if fitted is None:
            left_out += 1
            continue
        kept.append(fitted)
        reclassed += fitted.klass != w.klass
        resized += fitted.pod_sets != w.pod_sets
    return SpecWorkload(kept, left_out, reclassed, resized)


def _fit(
    w: Workload,
    pools: list[PoolModel],
    reach: dict[tuple[str, str, str], int],
    models: list[PoolModel],
    shared: str,
    rng: Random,
) -> Workload | None:
    for klass in (w.klass, *_NEAREST[w.klass]):
        options = [m for m in pools if klass in m.workload_classes]
        if not options:
            continue
        start = int(rng.random() * len(options))
        for pool in options[start:] + options[:start]:
            cap = {res: n for (team, name, res), n in reach.items() if team == w.team and name == pool.name}
            pod_sets = _fit_request(w, pool, cap, rng)
            if pod_sets is None:
                continue
            candidate = _with_pods(_as_class(w, klass), pod_sets)
            if candidate.pod_sets == w.pod_sets and candidate.klass == w.klass:
                candidate = w
            _, fitting = allowed_pods(candidate, models, shared)
            if pool.index in fitting:
                return candidate
    return None
