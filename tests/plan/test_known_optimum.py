"""`gpuplane plan` finds an optimum known from queueing theory: the smallest always-on pool whose
M/M/c p90 queue wait (Erlang C, computed here from the formula) meets the target."""

from __future__ import annotations

from pathlib import Path

from gpuplane.plan.command import PlanOptions, execute
from gpuplane.spec import load_spec
from tests.plan.conftest import LAM_PER_H, MU_PER_H, SIZES
from tests.support.queueing import smallest_pool, wait_quantile

TARGET_S = 600.0  # p90 wait <= 10 minutes


def test_theory_puts_the_optimum_well_inside_the_grid() -> None:
    best = smallest_pool(LAM_PER_H, MU_PER_H, 0.9, TARGET_S / 3600.0, range(SIZES[0], SIZES[-1] + 1))
    assert best == 12
    # The target sits between the p90 of c* and of c* - 1 with room for sampling noise either side.
    assert wait_quantile(best, LAM_PER_H, MU_PER_H, 0.9) * 3600 < TARGET_S / 1.5
    assert wait_quantile(best - 1, LAM_PER_H, MU_PER_H, 0.9) * 3600 > TARGET_S * 1.5


def test_plan_finds_the_smallest_pool_meeting_the_wait_target(
    mmc: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    trace, spec, space = mmc
    out = tmp_path / "plan"
    run = execute(
        PlanOptions(
            spec=spec,
            workload=trace,
            space=space,
            out=out,
            goal=["p90-wait<=10m"],
            failure_rate=0.0,
            seeds=2,
            finalists=2,
            ray=False,
        )
    )
    expected = smallest_pool(LAM_PER_H, MU_PER_H, 0.9, TARGET_S / 3600.0, range(SIZES[0], SIZES[-1] + 1))
    result = run.result
    assert result.mode == "grid" and len(result.evaluated) == len(SIZES)
    assert result.winner is not None
    choice = dict(result.winner.design.choices)["gpu"]
    assert (choice.max_nodes, choice.min_nodes) == (expected, expected)
    assert result.winner.verdict.binding == "p90-wait<=10m"
    assert len(result.winner.runs) == 2  # two seeds
    assert result.reference.design.id in {s.design.id for s in result.evaluated}
    # The next cheaper design is one GPU smaller and misses the wait target.
    from gpuplane.plan.search import next_cheaper

    cheaper = next_cheaper(result)
    assert cheaper is not None
    assert dict(cheaper.design.choices)["gpu"].max_nodes == expected - 1
    assert cheaper.verdict.violated == ("p90-wait<=10m",)
    # The winning spec is a spec: quotas scaled with the pool, loadable as written.
    winner = load_spec(out / "winner.yaml")
    assert winner.node_pools[0].max_nodes == expected
    assert winner.teams[0].quotas[0].nominal == expected
