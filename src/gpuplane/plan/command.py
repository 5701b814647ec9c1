"""`gpuplane plan` without typer, the engine's front door: one run loads the spec, the trace and
plan.yaml, evaluates the spec as given, searches, prices the baselines and writes DIR. The CLI only
parses arguments, calls `execute` and prints.

DIR holds only what plan writes: `winner.yaml` (the winning spec, ready for `render`),
`report.html`, `plan.json`, `designs.csv` and `cache/` (one JSON per evaluation, so a second run
with the same inputs resumes instead of starting over). How DIR is owned, locked and kept free of
links: `gpuplane.plan.folder`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gpuplane import bounds
from gpuplane.baselines import ApiPrices
from gpuplane.errors import UsageError
from gpuplane.plan.design import Design, build_design, winner_yaml
from gpuplane.plan.evaluate import Task
from gpuplane.plan.folder import MARKER, OUR_FILES, PlanFolder
from gpuplane.plan.goal import default_goal, judge, parse_goal
from gpuplane.plan.output import designs_csv, dumps, plan_dict
from gpuplane.plan.report import build_report
from gpuplane.plan.runner import Backend, Cache, Evaluator, InProcess, Progress, RayBackend
from gpuplane.plan.search import Scored, SearchResult, Settings, mean_result, search, seeds_of
from gpuplane.plan.space import current_choice, derive_space
from gpuplane.plan.spacefile import SpaceFile, load_space_file
from gpuplane.sim import SimConfig
from gpuplane.sim.config import parse_units
from gpuplane.sim.whatif import BUILTIN_NAME, WorkloadSource, builtin_spec
from gpuplane.spec import PlatformSpec, load_spec

__all__ = ["MARKER", "OUR_FILES", "PlanOptions", "PlanRun", "check_out_dir", "execute", "reference_design"]


@dataclass
class PlanOptions:
    """Everything the command line can say."""

    spec: Path | None = None
    workload: Path | None = None
    out: Path = Path("plan")
    space: Path | None = None
    goal: list[str] = field(default_factory=list)
    fmt: str = "auto"
    team_map: Path | None = None
    limit: int | None = None
    seed: int = 0
    seeds: int | None = None
    finalists: int | None = None
    designs: int | None = None
    units: list[str] = field(default_factory=list)
    api_prices: list[str] = field(default_factory=list)
    spot_rate: float | None = None
    failure_rate: float | None = None
    ray: bool = True
    ray_address: str | None = None
    num_cpus: int | None = None


@dataclass
class PlanRun:
    """What a run found and wrote."""

    result: SearchResult
    written: list[Path]
    currency: str
    cache_hits: int
    damaged: list[tuple[Path, str]] = field(default_factory=list)
    workload: str = ""


def check_out_dir(out: Path) -> None:
    """Refuse a DIR that `gpuplane plan` must not write (see `gpuplane.plan.folder`)."""
    PlanFolder(out).check()


def _config(o: PlanOptions) -> SimConfig:
    for label, value in (("--spot-eviction-rate", o.spot_rate), ("--node-failure-rate", o.failure_rate)):
        if value is not None:
            bounds.rate().check(value, label)
    config = SimConfig(seed=o.seed, accepted_units=parse_units(o.units))
    if o.spot_rate is not None:
        config = replace(config, spot_evictions_per_node_hour=o.spot_rate)
    if o.failure_rate is not None:
        config = replace(config, node_failures_per_node_hour=o.failure_rate)
    return config


def _settings(o: PlanOptions, file: SpaceFile | None) -> Settings:
    s = Settings(seed=o.seed)
    search_file = file.search if file is not None else None
    for name in ("designs", "seeds", "finalists"):
        value = getattr(o, name)
        if value is None and search_file is not None:
            value = getattr(search_file, name)
        if value is not None:
            allowed = bounds.seeds() if name == "seeds" else bounds.designs()
            allowed.check(value, f"--{name}")
            s = replace(s, **{name: value})
    return s


def reference_design(spec: PlatformSpec) -> Design:
    """The spec as given, as a design."""
    built = build_design(spec, [(p.name, current_choice(p)) for p in spec.node_pools if p.is_gpu])
    if not isinstance(built, Design):  # the spec loaded, so it is valid; this is a planner bug
        raise AssertionError(f"the spec as given is not a valid design: {built.reason}")
    return built


def check_options(o: PlanOptions) -> None:
    """The numeric options the command line checks too (the same ranges, for callers in code)."""
    if o.limit is not None:
        bounds.rows().check(o.limit, "--limit")
    if o.num_cpus is not None:
        bounds.num_cpus().check(o.num_cpus, "--num-cpus")


def _backend(o: PlanOptions, workloads: list[Any], config: SimConfig, prices: ApiPrices) -> Backend:
    if o.ray or o.ray_address:
        return RayBackend(workloads, config, prices, address=o.ray_address, num_cpus=o.num_cpus)
    return InProcess(workloads, config, prices)


def execute(o: PlanOptions, progress: Progress | None = None) -> PlanRun:
    """Run the plan and write DIR (see the module docstring)."""
    check_options(o)
    folder = PlanFolder(o.out)
    folder.check()
    spec = load_spec(o.spec, priced=True) if o.spec is not None else builtin_spec()
    teams = [t.name for t in spec.teams]
    file = load_space_file(o.space, [p.name for p in spec.node_pools], teams) if o.space is not None else None
    given = o.goal or (file.goal if file is not None else [])
    goal = parse_goal(given, teams, "--goal" if o.goal else "plan.yaml goal")
    config = _config(o)
    settings = _settings(o, file)
    prices = ApiPrices.parse(o.api_prices, spec.costs.currency)
    workload_source = WorkloadSource(o.workload, o.fmt, o.team_map, False, o.limit)
    workloads, _ = workload_source.load(spec, o.seed, builtin_platform=o.spec is None)
    if not workloads:
        raise UsageError("the workload has no rows to plan with", option="--workload")
    profiles = sorted({p for w in workloads for p in w.mig_profiles})
    space = derive_space(spec, file, profiles)
    backend = _backend(o, workloads, config, prices)  # connects Ray before DIR is touched
    try:
        with folder:
            cache = Cache(folder.cache, workloads, config, prices)
            run = Evaluator(backend, cache, progress)
            ref = reference_design(spec)
            runs = run([Task(ref.id, ref.spec, 1.0, seed) for seed in seeds_of(settings)])
            mean = mean_result(runs)
            goal = goal or default_goal(mean)
            reference = Scored(ref, mean, judge(mean, goal), tuple(runs))
            result = search(spec, space, reference, goal, run, settings)
            source = str(o.spec) if o.spec is not None else BUILTIN_NAME
            written = _write(folder, o, result, spec, source, len(workloads), workload_source.label)
    finally:
        exit_ = getattr(backend, "__exit__", None)
        if exit_ is not None:
            exit_(None, None, None)
    return PlanRun(
        result, written, spec.costs.currency, cache.hits, list(cache.damaged), workload_source.label
    )


def _write(
    folder: PlanFolder,
    o: PlanOptions,
    result: SearchResult,
    spec: PlatformSpec,
    source: str,
    rows: int,
    workload: str,
) -> list[Path]:
    currency = spec.costs.currency
    context = {
        "spec": source,
        "workload": workload,
        "workloads": rows,
        "seed": o.seed,
        "currency": currency,
    }
    texts = {
        "plan.json": dumps(plan_dict(result, context)),
        "designs.csv": designs_csv(result),
        "report.html": build_report(result, source, currency).render(),
    }
    if result.winner is not None:
        texts["winner.yaml"] = winner_yaml(result.winner.design, source)
    else:
        folder.remove("winner.yaml")  # a stale winner from an earlier run
    return [folder.write(name, text) for name, text in texts.items()]
