"""The deterministic search: a grid for small spaces, successive halving on trace prefixes for large
ones, then several seeds for the finalists.

- Every design of a space of at most `designs` designs runs on the whole trace (grid). A larger
  space is sampled to `designs` designs (seeded, so the same seed picks the same designs), and
  successive halving runs them on the first 1/eta^(rungs-1) of the trace's submission span,
  keeps the best 1/eta, gives those eta times more trace, and so on to the whole trace.
- Ranking: designs that meet the goal first, by cost per accepted unit; then the others by how far
  they miss it; the design id breaks ties.
- The spec as given (design 0) is kept at every rung, so it is always compared on the whole trace.
- The best `finalists` run again with `seeds` seeds; the mean over the seeds is judged against the
  goal and ranks them, and the spread over the seeds (and how many seeds meet the goal) is reported.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace

from gpuplane.plan.defaults import default
from gpuplane.plan.design import Design, Invalid, build_design
from gpuplane.plan.evaluate import DesignResult, Task, Waits
from gpuplane.plan.goal import Constraint, Verdict, judge
from gpuplane.plan.quotas import QuotaChange, quota_changes
from gpuplane.plan.space import SearchSpace
from gpuplane.spec import PlatformSpec

Evaluate = Callable[[Sequence[Task]], list[DesignResult]]


@dataclass(frozen=True)
class Settings:
    """How hard to search (defaults from `defaults.yaml`)."""

    designs: int = field(default_factory=lambda: int(default("designs")))
    seeds: int = field(default_factory=lambda: int(default("seeds")))
    finalists: int = field(default_factory=lambda: int(default("finalists")))
    eta: int = field(default_factory=lambda: int(default("halving_eta")))
    rungs: int = field(default_factory=lambda: int(default("halving_rungs")))
    seed: int = 0


@dataclass(frozen=True)
class Scored:
    """A design with its result (the mean over seeds for a finalist) and its verdict."""

    design: Design
    result: DesignResult
    verdict: Verdict
    runs: tuple[DesignResult, ...] = ()

    @property
    def key(self) -> tuple[int, float, str]:
        """Ranking key: feasible first, then cost per unit (or violation), then id."""
        if self.verdict.feasible:
            return (0, self.result.rank_cost, self.design.id)
        return (1, self.verdict.violation, self.design.id)


@dataclass
class Rung:
    """One rung of the search: the trace fraction and the designs it ran."""

    fraction: float
    scored: list[Scored]


@dataclass
class SearchResult:
    """Everything the search found."""

    mode: str
    space_size: int
    goal: tuple[Constraint, ...]
    reference: Scored
    rungs: list[Rung]
    finalists: list[Scored]
    invalid: list[Invalid]
    winner: Scored | None
    quota_mode: str = "scale"
    quota_changes: list[QuotaChange] = field(default_factory=list)

    @property
    def evaluated(self) -> list[Scored]:
        """The designs run on the whole trace with the first seed, best first."""
        return self.rungs[-1].scored if self.rungs else []


def pick_designs(space: SearchSpace, count: int, seed: int) -> list[int]:
    """Design indices to consider: all of a small space, else a seeded sample that keeps design 0."""
    if space.size <= count:
        return list(range(space.size))
    rng = random.Random(seed)
    chosen = set(rng.sample(range(1, space.size), count - 1))
    return [0, *sorted(chosen)]


def build_all(
    spec: PlatformSpec, space: SearchSpace, indices: Sequence[int]
) -> tuple[list[Design], list[Invalid]]:
    """Valid designs (first of each distinct spec) and the invalid combinations."""
    valid: dict[str, Design] = {}
    invalid: list[Invalid] = []
    for index in indices:
        built = build_design(
            spec,
            list(zip(space.pools, space.design(index), strict=True)),
            scale_quotas=space.quotas == "scale",
        )
        if isinstance(built, Invalid):
            invalid.append(built)
        else:
            valid.setdefault(built.id, built)
    return list(valid.values()), invalid


def _score(
    designs: Sequence[Design], fraction: float, seed: int, goal: Sequence[Constraint], run: Evaluate
) -> list[Scored]:
    results = run([Task(d.id, d.spec, fraction, seed) for d in designs])
    scored = [Scored(d, r, judge(r, goal), (r,)) for d, r in zip(designs, results, strict=True)]
    return sorted(scored, key=lambda s: s.key)


def fractions(settings: Settings) -> list[float]:
    """Trace fractions of the rungs, smallest first, the last 1."""
    return [float(settings.eta) ** -(settings.rungs - 1 - i) for i in range(settings.rungs)]


def mean_result(runs: Sequence[DesignResult]) -> DesignResult:
    """The mean of several seeds' results (waits averaged per team and class, percentile by percentile)."""
    first = runs[0]
    if len(runs) == 1:
        return first
    values: dict[str, object] = {}
    for f in fields(DesignResult):
        items = [getattr(r, f.name) for r in runs]
        if f.name in ("team_waits", "class_waits"):
            values[f.name] = tuple(
                Waits(
                    w[0].name,
                    w[0].n,
                    *(round(sum(x.get(q) for x in w) / len(w), 6) for q in ("p50", "p90", "p99")),
                )
                for w in zip(*items, strict=True)
            )
        elif f.name in ("design", "fraction", "seed", "workloads", "services", "purchase"):
            values[f.name] = items[0]
        elif any(v is None for v in items):
            values[f.name] = None
        else:
            values[f.name] = round(sum(items) / len(items), 6)
    return replace(first, **values)  # type: ignore[arg-type]


def seeds_of(settings: Settings) -> list[int]:
    """The seeds every finalist runs with: `seed`, `seed` + 1, ..."""
    return [settings.seed + k for k in range(settings.seeds)]


def _finalists(
    best: Sequence[Scored], settings: Settings, goal: Sequence[Constraint], run: Evaluate
) -> list[Scored]:
    extra = seeds_of(settings)[1:]
    chosen = list(best[: settings.finalists])
    results = run([Task(s.design.id, s.design.spec, 1.0, seed) for s in chosen for seed in extra])
    out = []
    for i, s in enumerate(chosen):
        runs = (s.result, *results[i * len(extra) : (i + 1) * len(extra)])
        mean = mean_result(runs)
        out.append(Scored(s.design, mean, judge(mean, goal), runs))
    return sorted(out, key=lambda s: s.key)


def search(
    spec: PlatformSpec,
    space: SearchSpace,
    reference: Scored,
    goal: Sequence[Constraint],
    run: Evaluate,
    settings: Settings,
) -> SearchResult:
    """Search `space` for the cheapest design that meets `goal` (see the module docstring)."""
    designs, invalid = build_all(spec, space, pick_designs(space, settings.designs, settings.seed))
    grid = space.size <= settings.designs
    rungs: list[Rung] = []
    current = designs
    for fraction in [1.0] if grid else fractions(settings):
        scored = _score(current, fraction, settings.seed, goal, run)
        rungs.append(Rung(fraction, scored))
        keep = max(settings.finalists, math.ceil(len(scored) / settings.eta))
        current = [s.design for s in scored[:keep]]
        if reference.design.id in {d.id for d in designs} and reference.design.id not in {
            d.id for d in current
        }:
            current.append(reference.design)  # the spec as given always reaches the whole trace
    finalists = _finalists(rungs[-1].scored, settings, goal, run) if rungs and rungs[-1].scored else []
    winner = next((s for s in finalists if s.verdict.feasible), None)
    return SearchResult(
        "grid" if grid else "successive halving",
        space.size,
        tuple(goal),
        reference,
        rungs,
        finalists,
        invalid,
        winner,
        space.quotas,
        [] if winner is None else quota_changes(spec, winner.design.spec),
    )


def next_cheaper(result: SearchResult) -> Scored | None:
    """The design just cheaper than the winner (first seed, whole trace): what it violates says
    why the winner is not cheaper."""
    if result.winner is None:
        return None
    base = result.winner.runs[0].rank_cost
    cheaper = [
        s for s in result.evaluated if s.result.rank_cost < base and s.design.id != result.winner.design.id
    ]
    return max(cheaper, key=lambda s: (s.result.rank_cost, s.design.id), default=None)


def pareto_front(scored: Sequence[Scored]) -> list[Scored]:
    """Designs no other design beats on both cost per accepted unit and worst p90 wait."""
    points = sorted(scored, key=lambda s: (s.result.rank_cost, s.result.worst_p90, s.design.id))
    front: list[Scored] = []
    best_wait = math.inf
    for s in points:
        if s.result.worst_p90 < best_wait:
            front.append(s)
            best_wait = s.result.worst_p90
    return front
