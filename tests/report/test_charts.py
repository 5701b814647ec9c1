"""Charts: geometry follows the data, output is deterministic, text is escaped, empty data is said."""

from __future__ import annotations

import re

import pytest

from gpuplane.report import charts


def _floats(attr: str, text: str) -> list[float]:
    return [float(v) for v in re.findall(rf'{attr}="(-?[0-9.]+)"', text)]


def test_line_draws_one_polyline_per_series_inside_the_frame() -> None:
    out = charts.line({"a": [(0, 1), (10, 5)], "b": [(0, 2), (10, 0)], "c": [(5, 3)]}, title="t")
    polylines = re.findall(r'<polyline[^>]*points="([^"]+)"', out)
    assert len(polylines) == 3
    for pts in polylines:
        for pair in pts.split():
            x, y = map(float, pair.split(","))
            assert 0 <= x <= 720 and 0 <= y <= 300


def test_line_higher_values_are_drawn_higher() -> None:
    out = charts.line({"s": [(0, 1), (1, 9)]}, title="t")
    points = re.search(r'points="([^"]+)"', out)
    assert points is not None
    (_, y_low), (_, y_high) = (map(float, p.split(",")) for p in points.group(1).split())
    assert y_high < y_low  # SVG y grows downwards


def test_same_data_gives_identical_bytes() -> None:
    data = {"x": [(float(i), float(i * i % 7)) for i in range(50)]}
    assert charts.line(data, title="t") == charts.line(dict(data), title="t")
    assert charts.histogram([3.0, 1.0, 2.0], title="h") == charts.histogram([3.0, 1.0, 2.0], title="h")


def test_stacked_bar_segments_are_proportional_to_values() -> None:
    out = charts.stacked_bars(["t1", "t2"], {"useful": [6.0, 2.0], "idle": [2.0, 0.0]}, title="s")
    heights = [float(h) for h in re.findall(r'<rect[^>]*height="([0-9.]+)"[^>]*><title>', out)]
    useful_t1, idle_t1, useful_t2, idle_t2 = heights
    assert useful_t1 == pytest.approx(3 * idle_t1, rel=0.02)
    assert useful_t1 == pytest.approx(3 * useful_t2, rel=0.02)
    assert idle_t2 == 0


def test_histogram_counts_every_value_once() -> None:
    values = [0.1 * i for i in range(37)]
    out = charts.histogram(values, title="h", bins=6)
    counts = [int(c) for c in re.findall(r"<rect[^>]*><title>(\d+)</title>", out)]
    assert len(counts) == 6 and sum(counts) == 37


def test_five_numbers_are_min_quartiles_median_max() -> None:
    assert charts.five_numbers([5, 1, 3, 2, 4]) == (1, 2, 3, 4, 5)
    assert charts.five_numbers([7]) == (7, 7, 7, 7, 7)


def test_boxes_draw_one_box_per_non_empty_group() -> None:
    out = charts.boxes({"a": [1, 2, 3], "b": [], "c": [4, 5]}, title="b")
    assert out.count("<g>") == 2


def test_series_names_are_escaped() -> None:
    out = charts.line({"<script>x</script>": [(0, 1), (1, 2)]}, title="a & b")
    assert "<script>" not in out and "&lt;script&gt;" in out and "a &amp; b" in out


def test_empty_data_says_no_data() -> None:
    assert "no data" in charts.line({}, title="t")
    assert "no data" in charts.stacked_area([], {}, title="t")
    assert "no data" in charts.boxes({"a": []}, title="t")


def test_stacked_area_top_edge_is_the_sum_of_series() -> None:
    out = charts.stacked_area([0.0, 1.0], {"a": [1.0, 1.0], "b": [3.0, 3.0]}, title="t")
    polygons = re.findall(r'<polygon[^>]*points="([^"]+)"', out)
    top_a = float(polygons[0].split()[0].split(",")[1])
    top_b = float(polygons[1].split()[0].split(",")[1])
    bottom = 300 - 48
    assert (bottom - top_b) == pytest.approx(4 * (bottom - top_a), rel=0.02)


def test_time_ticks_fall_on_round_hours() -> None:
    ticks = charts.time_ticks(1_700_000_123.0, 1_700_000_123.0 + 6 * 3600)
    assert all(t % 3600 == 0 for t in ticks) and len(ticks) >= 3


def _cdf_points(out: str) -> list[tuple[float, float]]:
    """(x pixel, share) of the first CDF polyline; the frame's plot spans y 252 (0 %) to 36 (100 %)."""
    found = re.search(r'<polyline[^>]*points="([^"]+)"', out)
    assert found is not None
    pairs = [tuple(map(float, p.split(","))) for p in found.group(1).split()]
    return [(x, (252.0 - y) / (252.0 - 36.0)) for x, y in pairs]


def test_cdf_of_a_distribution_with_median_zero_still_shows_its_tail() -> None:
    # Half the waits are 0, half are 200 h: the curve stands at 50 % at the left edge (the floor)
    # and reaches 100 % only at 200 h, the right edge (log10(200 / (1/60)) = 4.08 decades wide).
    out = charts.cdf({"team": [0.0] * 50 + [200.0] * 50}, title="waits", floor=1 / 60)
    points = _cdf_points(out)
    left, right = 64.0, 704.0
    assert points[0] == (left, 0.0) and points[1] == (left, 0.5)
    assert points[2] == (right, 0.5) and points[3] == (right, 1.0)


def test_cdf_steps_are_at_the_values_with_the_share_at_or_below_each() -> None:
    # Values 1, 10, 100 on a floor of 1: at x = 10 (half way on a 2-decade axis) the share is 2/3.
    points = _cdf_points(charts.cdf({"g": [100.0, 1.0, 10.0]}, title="t", floor=1.0))
    assert [round(s, 4) for _, s in points] == [0.0, 0.3333, 0.3333, 0.6667, 0.6667, 1.0, 1.0]
    assert [x for x, _ in points] == [64.0, 64.0, 384.0, 384.0, 704.0, 704.0, 704.0]


def test_cdf_without_values_says_no_data_and_refuses_a_zero_floor() -> None:
    assert "no data" in charts.cdf({"g": []}, title="t", floor=1.0)
    with pytest.raises(ValueError, match="floor"):
        charts.cdf({"g": [1.0]}, title="t", floor=0.0)
