"""Workloads submitted at one instant cost linear work, not quadratic (issue 19 "Hangs", issue 23).

Counted, never timed: every heap push the run makes (Kueue's queues and the event heap) and every
nomination (flavor assignment of a head). A burst of n jobs at t=0 on a small platform leaves a
backlog of nearly n; each finishing job releases quota in the cohort and wakes what was set aside.
The reference queue (Kueue's one-by-one requeue) moves the whole backlog back each time: n
releases x n workloads. Grouped by shape, a release moves one group per shape.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections.abc import Callable

import pytest

from gpuplane.kueue import assignment
from gpuplane.kueue.reference import use_reference_engine
from gpuplane.sim.config import SimConfig
from gpuplane.sim.replay import simulate
from gpuplane.sim.whatif import builtin_spec
from gpuplane.traces import generate

SIZES = (150, 300, 600, 1200)


def _burst(n: int) -> list[object]:
    spec = builtin_spec()
    base = generate(5, 30 * 86400.0, [t.name for t in spec.teams], jobs_per_hour=120, services=False)
    assert len(base) >= n
    return [dataclasses.replace(w, submit=0.0) for w in base[:n]]


def _count(n: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, int]:
    """(heap pushes, nominations, workloads that ran to their end) of a burst of n jobs at t=0."""
    pushes = [0]
    nominations = [0]
    push: Callable[..., None] = heapq.heappush
    nominate = assignment.assignments

    def counted_push(heap: list[object], item: object) -> None:
        pushes[0] += 1
        push(heap, item)

    def counted_nominate(*args: object) -> object:
        nominations[0] += 1
        return nominate(*args)  # type: ignore[arg-type]

    with monkeypatch.context() as m:
        m.setattr(heapq, "heappush", counted_push)
        m.setattr("gpuplane.kueue.scheduler.assignments", counted_nominate)
        outcome = simulate(builtin_spec(), _burst(n), SimConfig(seed=5))  # type: ignore[arg-type]
    done = sum(1 for run in outcome.runs if run.outcome in ("completed", "failed", "killed"))
    return pushes[0], nominations[0], done


def _exponent(counts: list[int]) -> float:
    """Least-squares slope of log(count) over log(size)."""
    xs = [math.log(s) for s in SIZES]
    ys = [math.log(c) for c in counts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def test_a_burst_at_one_instant_costs_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = [_count(n, monkeypatch) for n in SIZES]
    assert all(done > 0.8 * n for (_, _, done), n in zip(runs, SIZES, strict=True)), runs  # they ran
    pushes, nominations = [p for p, _, _ in runs], [k for _, k, _ in runs]
    # Measured: pushes 8,731 / 26,969 / 60,306 / 124,613 (exponent 1.27; the last doubling 2.07x),
    # nominations 2,557 / 7,311 / 15,411 / 32,476 (1.21: a bigger burst has more distinct shapes,
    # each nominated once per release, as in Kueue). The reference: pushes exponent 2.18.
    assert _exponent(pushes) < 1.35 and pushes[-1] < 2.3 * pushes[-2]
    assert _exponent(nominations) < 1.3 and nominations[-1] < 2.3 * nominations[-2]


def test_the_reference_queue_is_quadratic_on_the_same_bursts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The count above can fail: Kueue's one-by-one requeue grows with n x backlog."""
    use_reference_engine(True)
    try:
        runs = [_count(n, monkeypatch) for n in SIZES]
    finally:
        use_reference_engine(False)
    pushes = [p for p, _, _ in runs]
    assert _exponent(pushes) > 1.8 and pushes[-1] > 3.5 * pushes[-2]
