"""Constraints, verdicts, ranking and the Pareto front on hand-made results."""

from __future__ import annotations

import pytest

from gpuplane.errors import UsageError
from gpuplane.plan.evaluate import DesignResult, Waits, prefix
from gpuplane.plan.goal import Constraint, default_goal, judge, parse_constraint
from gpuplane.plan.search import Settings, fractions, mean_result
from gpuplane.traces import PodSet, Workload

TEAMS = ["team-a", "team-b"]


def _result(
    cost: float | None = 1.0,
    a90: float = 60.0,
    b90: float = 120.0,
    *,
    completed_share: float = 0.98,
    seed: int = 0,
) -> DesignResult:
    return DesignResult(
        design="d",
        fraction=1.0,
        seed=seed,
        cost_per_unit=cost,
        total_cost=100.0,
        accepted_units=100.0,
        team_waits=(Waits("team-a", 10, 0.0, a90, 2 * a90), Waits("team-b", 10, 0.0, b90, 2 * b90)),
        class_waits=(Waits("training", 20, 0.0, 90.0, 180.0),),
        availability=0.999,
        services=2,
        completed_share=completed_share,
        workloads=20,
        unfinished=0,
        rejected=0,
        gpu_hours=10.0,
        allocated_gpu_hours=8.0,
        window_hours=5.0,
        rental_per_unit=2.0,
        rental_cost=200.0,
        api_per_unit=None,
        api_cost=0.0,
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("p90-wait<=4h", Constraint("p90-wait", None, "<=", 14400.0)),
        ("p99-wait[team-a]<=1.5d", Constraint("p99-wait", "team-a", "<=", 129600.0)),
        ("p50-wait[inference] <= 90s", Constraint("p50-wait", "inference", "<=", 90.0)),
        ("p90-wait<=300", Constraint("p90-wait", None, "<=", 300.0)),
        ("availability>=99.9%", Constraint("availability", None, ">=", 0.999)),
        ("completed>=0.95", Constraint("completed", None, ">=", 0.95)),
    ],
)
def test_constraints_parse(text: str, expected: Constraint) -> None:
    got = parse_constraint(text, TEAMS)
    assert (got.metric, got.scope, got.op) == (expected.metric, expected.scope, expected.op)
    assert got.limit == pytest.approx(expected.limit)


@pytest.mark.parametrize(
    "text",
    [
        "p90<=4h",
        "p90-wait>=4h",
        "p90-wait<=4y",
        "p90-wait[nobody]<=1h",
        "availability>=120%",
        "completed<=1",
        "cost<=3",
    ],
)
def test_bad_constraints_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        parse_constraint(text, TEAMS)


def test_unscoped_wait_is_the_worst_team_and_scopes_pick_one() -> None:
    r = _result(a90=60.0, b90=600.0)
    assert parse_constraint("p90-wait<=5m", TEAMS).value(r) == 600.0
    assert parse_constraint("p90-wait[team-a]<=5m", TEAMS).value(r) == 60.0
    assert parse_constraint("p99-wait[training]<=5m", TEAMS).value(r) == 180.0


def test_binding_is_the_tightest_constraint_and_violations_are_listed() -> None:
    goal = [parse_constraint(t, TEAMS) for t in ("p90-wait<=5m", "availability>=99.8%", "completed>=97%")]
    ok = judge(_result(a90=60.0, b90=250.0), goal)
    # slack: p90 (300 - 250) / 300 = 1/6; availability (0.999 - 0.998) / 0.002 = 1/2; completed 1/3.
    assert ok.feasible and ok.binding == "p90-wait<=5m"
    bad = judge(_result(b90=400.0, completed_share=0.9), goal)
    assert not bad.feasible
    assert bad.violated == ("p90-wait<=5m", "completed>=97.000%")
    assert bad.violation > 0


def test_default_goal_is_no_worse_than_the_spec() -> None:
    goal = {c.text: c for c in default_goal(_result(a90=0.0, b90=7200.0))}
    # team-a: p90 0 -> 15 minutes of slack; team-b: max(2 h x 1.1, 2 h + 15 min) = 2.25 h;
    # availability and completed share: 0.05 and 0.5 percentage points below the spec's.
    assert goal["p90-wait[team-a]<=15m"].limit == 900.0
    assert goal["p90-wait[team-b]<=2.25h"].limit == pytest.approx(8100.0)
    assert goal["availability>=99.850%"].limit == pytest.approx(0.9985)
    assert goal["completed>=97.500%"].limit == pytest.approx(0.975)


def test_rung_fractions_end_with_the_whole_trace() -> None:
    assert fractions(Settings(eta=3, rungs=3)) == pytest.approx([1 / 9, 1 / 3, 1.0])
    assert fractions(Settings(eta=2, rungs=1)) == [1.0]


def test_mean_over_seeds() -> None:
    mean = mean_result([_result(cost=1.0, a90=60.0), _result(cost=3.0, a90=180.0, seed=1)])
    assert mean.cost_per_unit == 2.0 and mean.team_waits[0].p90 == 120.0 and mean.seed == 0
    assert mean_result([_result(cost=None), _result(cost=1.0)]).cost_per_unit is None


def test_prefix_keeps_the_first_part_of_the_submission_span() -> None:
    ws = [
        Workload(f"w{i}", "t", "t", "training", float(s), (PodSet("p", 1, 1.0),), work_gpu_seconds=1.0)
        for i, s in enumerate((100, 200, 500, 1000))
    ]
    assert [w.id for w in prefix(ws, 1 / 3)] == ["w0", "w1"]  # cut at 100 + 900/3 = 400
    assert prefix(ws, 1.0) == ws


def test_pareto_front_keeps_the_designs_nobody_beats_on_both_axes() -> None:
    from gpuplane.plan.design import Design
    from gpuplane.plan.goal import Verdict
    from gpuplane.plan.search import Scored, pareto_front
    from gpuplane.sim.whatif import builtin_spec

    spec = builtin_spec()
    # (cost per unit, worst p90 s): b and d are dominated by a and c.
    points = {"a": (1.0, 900.0), "b": (1.5, 950.0), "c": (2.0, 100.0), "d": (2.5, 100.0), "e": (3.0, 0.0)}
    scored = [
        Scored(
            Design(name, (), spec, ""), _result(cost=cost, a90=wait, b90=wait), Verdict(True, (), None, 0.0)
        )
        for name, (cost, wait) in points.items()
    ]
    assert [s.design.id for s in pareto_front(scored)] == ["a", "c", "e"]
