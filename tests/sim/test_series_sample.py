"""A pool's step series (sim/series.py): one sample per changed instant, repeats skipped, a second
sample at one instant replaces the first, busy GPUs rounded to 9 decimals. Hand event tables."""

from __future__ import annotations

import math

from gpuplane.sim.series import PoolSeries


def _rows(s: PoolSeries) -> list[tuple[float, int, int, int, float]]:
    return list(zip(s.t, s.nodes, s.provisioned, s.allocated, s.busy, strict=True))


def test_samples_replace_skip_and_round() -> None:
    s = PoolSeries()
    s.sample(0.0, 1, 8, 0, 0.0)
    s.sample(10.0, 1, 8, 2, 1.5)
    s.sample(10.0, 1, 8, 3, 1.5)  # same instant: replaces the sample at 10
    s.sample(20.0, 1, 8, 3, 1.5)  # nothing changed: skipped
    s.sample(30.0, 1, 8, 3, 0.1 + 0.2)  # 0.30000000000000004 is kept as 0.3
    s.sample(40.0, 1, 8, 3, 0.1 + 0.2)  # the same raw figure again: a repeat, skipped
    s.sample(50.0, 2, 16, 3, 0.3)  # a node more
    assert _rows(s) == [
        (0.0, 1, 8, 0, 0.0),
        (10.0, 1, 8, 3, 1.5),
        (30.0, 1, 8, 3, 0.3),
        (50.0, 2, 16, 3, 0.3),
    ]


def test_a_replaced_sample_is_what_the_next_one_is_compared_with() -> None:
    s = PoolSeries()
    s.sample(0.0, 1, 8, 0, 0.0)
    s.sample(5.0, 1, 8, 4, 2.0)
    s.sample(5.0, 1, 8, 0, 0.0)  # back to the state at 0, at the same instant: replaced
    s.sample(6.0, 1, 8, 0, 0.0)  # equal to the replaced sample: skipped
    s.sample(7.0, 1, 8, 4, 2.0)  # the raw busy figure seen before, but a change: recorded
    assert _rows(s) == [(0.0, 1, 8, 0, 0.0), (5.0, 1, 8, 0, 0.0), (7.0, 1, 8, 4, 2.0)]


def test_a_negative_zero_is_recorded_as_it_comes() -> None:
    s = PoolSeries()
    s.sample(0.0, 1, 8, 0, 0.0)
    s.sample(1.0, 1, 8, 1, -0.0)
    assert math.copysign(1.0, s.busy[-1]) == -1.0
