"""A what-if session: which platforms, which workload, and one run per platform on the same seed.

The built-in example (no arguments) is the packaged platform `data/builtin-platform.yaml` on the
built-in synthetic week (`gpuplane.traces.builtin_week`); the installed tool needs nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from gpuplane.baselines import ApiPrices
from gpuplane.costs import Overheads
from gpuplane.errors import Problem
from gpuplane.sim.baselines import baselines_of
from gpuplane.sim.config import SimConfig
from gpuplane.sim.engine import Outcome, Progress
from gpuplane.sim.metrics import summarize
from gpuplane.sim.replay import simulate
from gpuplane.sim.summary import Baselines, RunSummary
from gpuplane.spec import PlatformSpec, load_spec, parse_spec
from gpuplane.traces import DEFAULT_TEAMS, Checkpoint, Workload, builtin_week, with_checkpoint

BUILTIN_NAME = "built-in example (demo-aks)"


def builtin_spec() -> PlatformSpec:
    """The packaged example platform."""
    text = resources.files("gpuplane.sim").joinpath("data/builtin-platform.yaml").read_text(encoding="utf-8")
    return parse_spec(text, "<builtin-platform.yaml>", priced=True)[0]


@dataclass
class Platform:
    """One platform of a what-if: a label, its spec."""

    label: str
    spec: PlatformSpec


@dataclass
class WorkloadSource:
    """Where workloads come from: a trace file (with options) or the built-in week."""

    path: Path | None = None
    fmt: str = "auto"
    team_map: Path | None = None
    strict: bool = False
    limit: int | None = None
    checkpoint: Checkpoint | None = None

    note: str = ""

    @property
    def label(self) -> str:
        """What reports call the workload (after `load`: what the generated one was made of)."""
        if self.path is not None:
            return str(self.path)
        return self.note or "built-in synthetic week"

    def load(
        self, spec: PlatformSpec, seed: int, *, builtin_platform: bool = False
    ) -> tuple[list[Workload], list[Problem]]:
        """Workloads with teams mapped onto the spec's teams, and warnings about skipped rows.

        Without a trace: the built-in week on the built-in platform (it is made for it), else a
        synthetic week made for the spec (`sim.spec_workload`); `label` then says which."""
        teams = [t.name for t in spec.teams]
        problems: list[Problem] = []
        if self.path is None and builtin_platform:
            workloads = _builtin_for(teams, seed)
            self.note = "built-in synthetic week"
        elif self.path is None:
            from gpuplane.sim.spec_workload import spec_workload

            made = spec_workload(spec, seed)
            workloads, self.note = made.workloads, made.note
        else:
            from gpuplane.traces.load import load_workload

            loaded = load_workload(
                self.path, self.fmt, team_map=self.team_map, strict=self.strict, limit=self.limit, teams=teams
            )
            workloads, problems = list(loaded.workloads), list(loaded.warnings)
        if self.checkpoint is not None:
            workloads = [w if w.checkpoint else with_checkpoint(w, self.checkpoint) for w in workloads]
        return workloads, problems


def _builtin_for(teams: list[str], seed: int) -> list[Workload]:
    """The built-in week; its three teams become the spec's teams in sorted order (wrapping)."""
    from gpuplane.traces.teams import map_teams

    week = builtin_week(seed)
    if not teams:
        return week
    ordered = sorted(teams)
    mapping = {name: ordered[i % len(ordered)] for i, name in enumerate(DEFAULT_TEAMS)}
    return map_teams(week, teams, mapping)


@dataclass
class RunResult:
    """One platform's run: its label, spec, outcome and summary figures."""

    label: str
    spec: PlatformSpec
    outcome: Outcome
    summary: RunSummary
    problems: list[Problem] = field(default_factory=list)


def platforms_from(paths: Sequence[Path]) -> list[Platform]:
    """Platforms from spec files (InputError on a bad one), or the built-in example."""
    if not paths:
        return [Platform(BUILTIN_NAME, builtin_spec())]
    return [Platform(str(p), load_spec(p, priced=True)) for p in paths]


def run_all(
    platforms: Sequence[Platform],
    source: WorkloadSource,
    config: SimConfig,
    progress: Progress | None = None,
    api_prices: ApiPrices | None = None,
) -> list[RunResult]:
    """Run every platform on the same workload and seed, each with its baselines (the same
    accepted work as rented VMs and from a model API at `api_prices`)."""
    results = []
    for platform in platforms:
        workloads, problems = source.load(
            platform.spec, config.seed, builtin_platform=platform.label == BUILTIN_NAME
        )
        outcome = simulate(platform.spec, workloads, config, progress)
        summary = summarize(
            outcome,
            config,
            Overheads.from_spec(platform.spec),
            platform.label,
            workload=source.label,
            skipped_rows=len(problems),
            baselines=Baselines(*baselines_of(platform.spec, outcome, config, api_prices)),
        )
        results.append(RunResult(platform.label, platform.spec, outcome, summary, problems))
    return results
