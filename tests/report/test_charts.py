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
