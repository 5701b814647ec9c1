"""The goal of a plan: minimise cost per accepted unit subject to constraints.

A constraint is written `METRIC[SCOPE]OP LIMIT`:

    p90-wait<=4h              every team's p90 queue wait at most 4 hours (also p50-, p99-wait)
    p99-wait[team-a]<=1d      one team's (a spec team) or one class's (training, inference, batch)
    p90-wait[inference]<=10m
    availability>=99.9%       inference availability (downtime / lifetime of services)
    completed>=99%            share of the workloads that can complete (the trace does not end
                              them as failed or killed) that completed

Durations take s, m, h or d (a bare number is seconds); shares a % or a fraction.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpuplane.durations import UNITS
from gpuplane.errors import UsageError
from gpuplane.plan.defaults import default
from gpuplane.plan.evaluate import DesignResult
from gpuplane.traces import WORKLOAD_CLASSES

WAITS = ("p50-wait", "p90-wait", "p99-wait")
SHARES = ("availability", "completed")
_PATTERN = re.compile(
    r"^\s*([a-z0-9-]+)\s*(?:\[\s*([a-z0-9-]+)\s*\])?\s*(<=|>=)\s*([0-9.eE+-]+)\s*([a-z%]*)\s*$"
)
# A limit is one number (e-notation allowed) and one unit of `gpuplane.durations` (no weeks; a
# bare number is seconds): part of the constraint grammar, so parsed here, with the shared table.
_UNITS = {"": 1.0, **{u: float(UNITS[u]) for u in ("s", "m", "h", "d")}}


@dataclass(frozen=True)
class Constraint:
    """One constraint: a metric (over a scope: None = every team), a direction and a limit."""

    metric: str
    scope: str | None
    op: str
    limit: float

    @property
    def text(self) -> str:
        """The constraint as a user writes it."""
        scope = f"[{self.scope}]" if self.scope else ""
        if self.metric in WAITS:
            return f"{self.metric}{scope}{self.op}{format_duration(self.limit)}"
        return f"{self.metric}{scope}{self.op}{self.limit * 100:.3f}%"

    def value(self, result: DesignResult) -> float:
        """The constrained figure of a result (worst team for an unscoped wait)."""
        if self.metric in WAITS:
            q = self.metric.split("-")[0]
            if self.scope is None:
                return max((w.get(q) for w in result.team_waits), default=0.0)
            for w in (*result.team_waits, *result.class_waits):
                if w.name == self.scope:
                    return w.get(q)
            return 0.0
        return result.availability if self.metric == "availability" else result.completed_share

    def slack(self, result: DesignResult) -> float:
        """How far inside the limit the result is, relative to the limit for a wait and to the
        room above the limit for a share (< 0: violated)."""
        value = self.value(result)
        # A wait against its limit; a share against the room it leaves (99.9 % of 99.8 % is half used).
        scale = max(self.limit, 1.0) if self.metric in WAITS else max(1.0 - self.limit, 1e-6)
        diff = self.limit - value if self.op == "<=" else value - self.limit
        return diff / scale

    def met(self, result: DesignResult) -> bool:
        """Whether the result meets the constraint."""
        return self.slack(result) >= -1e-12


def format_duration(seconds: float) -> str:
    """`4h`, `90m`, `30s`, `1.5d`: the largest unit that keeps it short."""
    for unit in ("d", "h", "m"):
        size = _UNITS[unit]
        if seconds >= size:
            return f"{seconds / size:.4g}{unit}"
    return f"{seconds:.4g}s"


def parse_constraint(text: str, teams: Sequence[str], option: str = "--goal") -> Constraint:
    """One constraint from its text; a UsageError names what is wrong."""
    match = _PATTERN.match(text.lower())
    if match is None:
        raise UsageError(
            f"{text!r}: expected METRIC[SCOPE]<=LIMIT or >=LIMIT, e.g. p90-wait<=4h", option=option
        )
    metric, scope, op, number, unit = match.groups()
    if metric not in (*WAITS, *SHARES):
        raise UsageError(
            f"{text!r}: unknown metric {metric!r} (known: {', '.join((*WAITS, *SHARES))})", option=option
        )
    if scope is not None and (metric not in WAITS or scope not in (*teams, *WORKLOAD_CLASSES)):
        known = ", ".join((*teams, *WORKLOAD_CLASSES))
        raise UsageError(
            f"{text!r}: scope {scope!r} is not a team or class of this spec (known: {known})", option=option
        )
    try:
        value = float(number)
    except ValueError:
        value = math.nan
    if metric in WAITS:
        ok = op == "<=" and unit in _UNITS and value >= 0
        limit = value * _UNITS.get(unit, math.nan)
    else:
        ok = op == ">=" and unit in ("", "%") and value >= 0
        limit = value / 100.0 if unit == "%" else value
        ok = ok and limit <= 1.0
    if not ok or not math.isfinite(limit):
        raise UsageError(
            f"{text!r}: waits are <= a duration (s, m, h, d), shares >= a fraction or %", option=option
        )
    return Constraint(metric, scope, op, limit)


def parse_goal(items: Iterable[str], teams: Sequence[str], option: str = "--goal") -> tuple[Constraint, ...]:
    """Every constraint of the goal, in the order given."""
    return tuple(parse_constraint(item, teams, option) for item in items)


def default_goal(reference: DesignResult) -> tuple[Constraint, ...]:
    """With no goal given: no worse than the spec as given (`reference`), with the slack of
    `defaults.yaml`, on each team's p90 wait, inference availability and completed share."""
    ratio, slack = float(default("default_goal_wait_ratio")), float(default("default_goal_wait_slack_s"))
    out = [
        Constraint("p90-wait", w.name, "<=", round(max(w.p90 * ratio, w.p90 + slack), 3))
        for w in reference.team_waits
    ]
    if reference.services:
        floor = reference.availability - float(default("default_goal_availability_slack"))
        out.append(Constraint("availability", None, ">=", round(max(floor, 0.0), 6)))
    floor = reference.completed_share - float(default("default_goal_completed_slack"))
    out.append(Constraint("completed", None, ">=", round(max(floor, 0.0), 6)))
    return tuple(out)


#: Why a design that accepted no unit of work (no workload completed, or every class weighs 0)
#: cannot win, whatever the constraints say.
NO_WORK = "accepts no work (no workload with a unit weight completed)"


@dataclass(frozen=True)
class Verdict:
    """A result against the goal: feasible or not, the violated constraints and the tightest one."""

    feasible: bool
    violated: tuple[str, ...]
    binding: str | None
    violation: float


def judge(result: DesignResult, goal: Sequence[Constraint]) -> Verdict:
    """Check every constraint; `binding` is the one with the least slack (the one that decides)."""
    slacks = [(c.slack(result), c) for c in goal]
    violated = tuple(c.text for s, c in slacks if s < -1e-12)
    binding = min(slacks, key=lambda sc: sc[0])[1].text if slacks else None
    violation = sum(-s for s, _ in slacks if s < 0)
    if result.cost_per_unit is None:  # nothing accepted: no cost per unit to minimise, never a winner
        violated = (NO_WORK, *violated)
        violation += 1.0
    return Verdict(not violated, violated, binding, violation)
