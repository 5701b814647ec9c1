"""SVG primitives: ticks cover the data with round steps, numbers are stable, downsampling keeps means."""

from __future__ import annotations

import itertools
import math

from hypothesis import given
from hypothesis import strategies as st

from gpuplane.report import svg


@given(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
)
def test_nice_ticks_cover_the_range_with_equal_round_steps(a: float, b: float) -> None:
    lo, hi = min(a, b), max(a, b)
    ticks = svg.nice_ticks(lo, hi)
    assert ticks[0] <= lo + 1e-9 and ticks[-1] >= hi - 1e-9
    steps = [y - x for x, y in itertools.pairwise(ticks)]
    step = steps[0]
    assert step > 0 and all(
        math.isclose(s, step, rel_tol=1e-6, abs_tol=1e-9 * max(1.0, abs(hi))) for s in steps
    )
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert any(math.isclose(mantissa, m, rel_tol=1e-6) for m in (1, 2, 2.5, 5, 10))


def test_num_writes_two_decimals_without_trailing_zeros() -> None:
    assert [svg.num(v) for v in (1.0, 1.5, 1.234, -0.001, 100.999)] == ["1", "1.5", "1.23", "0", "101"]


def test_downsample_averages_buckets_and_bounds_the_point_count() -> None:
    points = [(float(i), float(i % 2)) for i in range(1000)]
    out = svg.downsample(points, 100)
    assert len(out) == 100
    assert all(math.isclose(y, 0.5) for _, y in out)
    assert svg.downsample(points[:10], 100) == points[:10]


def test_short_number_uses_si_suffixes() -> None:
    assert [svg.short_number(v) for v in (0, 12, 1500, 2_000_000, 0.25)] == ["0", "12", "1.5k", "2M", "0.25"]
