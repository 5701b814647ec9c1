"""Inline SVG charts for the HTML reports: line, stacked area, stacked bars, bars, histogram, boxes, CDF.

Each function takes plain Python data and returns an `Html` fragment holding one `<svg>`; no
JavaScript, no external resources, and the same data always gives the same bytes.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from gpuplane.report import svg
from gpuplane.report.html import Html
from gpuplane.report.svg import Formatter, Frame, colour, esc, num

#: Candidate tick steps for time axes, in seconds (minute to week).
_TIME_STEPS = (60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400)


def time_ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    """Tick values (Unix seconds) on round UTC minutes/hours/days covering [lo, hi]."""
    span = max(hi - lo, 1.0)
    step = next((s for s in _TIME_STEPS if span / s <= count), _TIME_STEPS[-1])
    first = math.ceil(lo / step) * step
    ticks = [float(t) for t in range(int(first), int(hi) + 1, step)]
    return ticks or [lo, hi]


def time_format(span_seconds: float) -> Formatter:
    """Formatter for Unix seconds: dates for long spans, times for short ones (UTC)."""
    pattern = "%m-%d" if span_seconds > 3 * 86400 else "%m-%d %H:%M" if span_seconds > 86400 else "%H:%M"
    return lambda t: datetime.fromtimestamp(t, tz=UTC).strftime(pattern)


def _bounds(values: Sequence[float], *, zero: bool = True) -> tuple[float, float]:
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return 0.0, 1.0
    lo, hi = min(finite), max(finite)
    if zero:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    return lo, hi


def _x_axis(
    frame: Frame, lo: float, hi: float, time_axis: bool, fmt: Formatter | None, label: str
) -> tuple[list[str], float, float]:
    """X axis for numeric or time data; returns elements and the axis range actually drawn."""
    if time_axis:
        ticks = time_ticks(lo, hi)
        elements = [svg.baseline(frame)]
        sx = frame.sx(lo, hi)
        formatter = fmt or time_format(hi - lo)
        for tick in ticks:
            x = num(sx(tick))
            elements.append(
                f'<text x="{x}" y="{num(frame.y0 + 16)}" text-anchor="middle" fill="{svg.AXIS_COLOUR}">'
                f"{esc(formatter(tick))}</text>"
            )
        return elements + svg.x_title(frame, label), lo, hi
    ticks = svg.nice_ticks(lo, hi)
    return svg.x_axis_numeric(frame, ticks, fmt or svg.short_number, label), ticks[0], ticks[-1]


def line(
    series: Mapping[str, Sequence[tuple[float, float]]],
    *,
    title: str,
    x_label: str = "",
    y_label: str = "",
    time_axis: bool = False,
    x_format: Formatter | None = None,
    y_format: Formatter | None = None,
    width: int = 720,
    height: int = 300,
    max_points: int = 600,
) -> Html:
    """Several (x, y) series as lines sharing one pair of axes, with a legend."""
    frame = Frame(width=width, height=height)
    data = {name: svg.downsample(sorted(points), max_points) for name, points in series.items()}
    xs = [x for pts in data.values() for x, _ in pts]
    ys = [y for pts in data.values() for _, y in pts]
    if not xs:
        return Html(svg.document(frame, title, [svg.empty_note(frame)]))
    y_ticks = svg.nice_ticks(*_bounds(ys))
    body = svg.y_axis(frame, y_ticks, y_format or svg.short_number, y_label)
    x_elements, x_lo, x_hi = _x_axis(frame, min(xs), max(xs), time_axis, x_format, x_label)
    body.extend(x_elements)
    sx, sy = frame.sx(x_lo, x_hi), frame.sy(y_ticks[0], y_ticks[-1])
    for index, (name, pts) in enumerate(data.items()):
        path = " ".join(f"{num(sx(x))},{num(sy(y))}" for x, y in pts)
        body.append(
            f'<polyline fill="none" stroke="{colour(index)}" stroke-width="1.6" points="{path}">'
            f"<title>{esc(name)}</title></polyline>"
        )
    body.extend(svg.legend(frame, list(data)))
    return Html(svg.document(frame, title, body))


def stacked_area(
    x: Sequence[float],
    series: Mapping[str, Sequence[float]],
    *,
    title: str,
    x_label: str = "",
    y_label: str = "",
    time_axis: bool = False,
    y_format: Formatter | None = None,
    width: int = 720,
    height: int = 300,
    max_points: int = 600,
) -> Html:
    """Series stacked on top of each other over a shared x (e.g. GPUs by state over time)."""
    frame = Frame(width=width, height=height)
    names = list(series)
    if not x or not names:
        return Html(svg.document(frame, title, [svg.empty_note(frame)]))
    columns = {name: svg.downsample(list(zip(x, series[name], strict=True)), max_points) for name in names}
    xs = [p[0] for p in columns[names[0]]]
    tops: list[list[float]] = []
    running = [0.0] * len(xs)
    for name in names:
        running = [r + max(v, 0.0) for r, (_, v) in zip(running, columns[name], strict=True)]
        tops.append(running)
    y_ticks = svg.nice_ticks(0.0, max(running) if running else 1.0)
    body = svg.y_axis(frame, y_ticks, y_format or svg.short_number, y_label)
    x_elements, x_lo, x_hi = _x_axis(frame, min(xs), max(xs), time_axis, None, x_label)
    body.extend(x_elements)
    sx, sy = frame.sx(x_lo, x_hi), frame.sy(y_ticks[0], y_ticks[-1])
    below = [0.0] * len(xs)
    for index, (name, top) in enumerate(zip(names, tops, strict=True)):
        upper = [f"{num(sx(a))},{num(sy(b))}" for a, b in zip(xs, top, strict=True)]
        lower = [f"{num(sx(a))},{num(sy(b))}" for a, b in zip(reversed(xs), reversed(below), strict=True)]
        body.append(
            f'<polygon fill="{colour(index)}" fill-opacity="0.85" stroke="none" points="{" ".join(upper + lower)}">'
            f"<title>{esc(name)}</title></polygon>"
        )
        below = top
    body.extend(svg.legend(frame, names))
    return Html(svg.document(frame, title, body))


def _category_axis(frame: Frame, categories: Sequence[str], label: str) -> tuple[list[str], float]:
    """Category labels under evenly spaced slots; returns elements and the slot width."""
    slot = (frame.x1 - frame.x0) / max(len(categories), 1)
    out = [svg.baseline(frame)]
    for index, name in enumerate(categories):
        x = num(frame.x0 + slot * (index + 0.5))
        out.append(
            f'<text x="{x}" y="{num(frame.y0 + 16)}" text-anchor="middle" fill="{svg.AXIS_COLOUR}">{esc(name)}</text>'
        )
    return out + svg.x_title(frame, label), slot


def stacked_bars(
    categories: Sequence[str],
    series: Mapping[str, Sequence[float]],
    *,
    title: str,
    x_label: str = "",
    y_label: str = "",
    y_format: Formatter | None = None,
    width: int = 720,
    height: int = 300,
) -> Html:
    """One bar per category, split into the series (e.g. GPU-hours by kind per team)."""
    frame = Frame(width=width, height=height)
    names = list(series)
    if not categories or not names:
        return Html(svg.document(frame, title, [svg.empty_note(frame)]))
    totals = [sum(max(series[n][i], 0.0) for n in names) for i in range(len(categories))]
    y_ticks = svg.nice_ticks(0.0, max(totals))
    body = svg.y_axis(frame, y_ticks, y_format or svg.short_number, y_label)
    axis, slot = _category_axis(frame, categories, x_label)
    body.extend(axis)
    sy = frame.sy(y_ticks[0], y_ticks[-1])
    bar = slot * 0.6
    for i, category in enumerate(categories):
        x = frame.x0 + slot * i + (slot - bar) / 2
        base = 0.0
        for index, name in enumerate(names):
            value = max(series[name][i], 0.0)
            top, bottom = sy(base + value), sy(base)
            body.append(
                f'<rect x="{num(x)}" y="{num(top)}" width="{num(bar)}" height="{num(bottom - top)}" '
                f'fill="{colour(index)}"><title>{esc(category)} {esc(name)}: {esc(svg.short_number(value))}</title></rect>'
            )
            base += value
    body.extend(svg.legend(frame, names))
    return Html(svg.document(frame, title, body))


def bars(
    categories: Sequence[str],
    values: Sequence[float],
    *,
    title: str,
    x_label: str = "",
    y_label: str = "",
    y_format: Formatter | None = None,
    width: int = 720,
    height: int = 300,
) -> Html:
    """A plain bar chart: one value per category."""
    return stacked_bars(
        categories,
        {y_label or "value": values},
        title=title,
        x_label=x_label,
        y_label=y_label,
        y_format=y_format,
        width=width,
        height=height,
    )


def histogram(
    values: Sequence[float],
    *,
    title: str,
    bins: int = 20,
    x_label: str = "",
    y_label: str = "count",
    width: int = 720,
    height: int = 300,
) -> Html:
    """Distribution of `values` in `bins` equal-width bins over their range."""
    frame = Frame(width=width, height=height)
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return Html(svg.document(frame, title, [svg.empty_note(frame)]))
    lo, hi = min(finite), max(finite)
    if hi == lo:
        hi = lo + 1.0
    counts = [0] * bins
    for value in finite:
        counts[min(int((value - lo) / (hi - lo) * bins), bins - 1)] += 1
    y_ticks = svg.nice_ticks(0.0, float(max(counts)))
    body = svg.y_axis(frame, y_ticks, svg.short_number, y_label)
    x_ticks = svg.nice_ticks(lo, hi)
    body.extend(svg.x_axis_numeric(frame, x_ticks, svg.short_number, x_label))
    sx, sy = frame.sx(x_ticks[0], x_ticks[-1]), frame.sy(y_ticks[0], y_ticks[-1])
    width_each = (hi - lo) / bins
    for index, count in enumerate(counts):
        left, right = sx(lo + index * width_each), sx(lo + (index + 1) * width_each)
        body.append(
            f'<rect x="{num(left)}" y="{num(sy(count))}" width="{num(max(right - left - 1, 0.5))}" '
            f'height="{num(sy(0) - sy(count))}" fill="{colour(0)}"><title>{count}</title></rect>'
        )
    return Html(svg.document(frame, title, body))


def five_numbers(values: Sequence[float]) -> tuple[float, float, float, float, float]:
    """Minimum, lower quartile, median, upper quartile and maximum (inclusive quartiles)."""
    ordered = sorted(values)
    if len(ordered) == 1:
        v = ordered[0]
        return v, v, v, v, v
    q1, q2, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    return ordered[0], q1, q2, q3, ordered[-1]


def boxes(
    groups: Mapping[str, Sequence[float]],
    *,
    title: str,
    x_label: str = "",
    y_label: str = "",
    y_format: Formatter | None = None,
    width: int = 720,
    height: int = 300,
) -> Html:
    """Box plots (min, quartiles, median, max) of one distribution per group."""
    frame = Frame(width=width, height=height)
    data = {name: [v for v in vals if math.isfinite(v)] for name, vals in groups.items()}
    data = {name: vals for name, vals in data.items() if vals}
    if not data:
        return Html(svg.document(frame, title, [svg.empty_note(frame)]))
    y_ticks = svg.nice_ticks(*_bounds([v for vals in data.values() for v in vals]))
    body = svg.y_axis(frame, y_ticks, y_format or svg.short_number, y_label)
    axis, slot = _category_axis(frame, list(data), x_label)
    body.extend(axis)
    sy = frame.sy(y_ticks[0], y_ticks[-1])
    for index, (name, vals) in enumerate(data.items()):
        low, q1, median, q3, high = five_numbers(vals)
        centre = frame.x0 + slot * (index + 0.5)
        half = min(slot * 0.3, 40.0)
        c = colour(index)
        body.append(
            f"<g><title>{esc(name)}: median {esc(svg.short_number(median))}, n={len(vals)}</title>"
            f'<line x1="{num(centre)}" x2="{num(centre)}" y1="{num(sy(low))}" y2="{num(sy(high))}" stroke="{c}"/>'
            f'<rect x="{num(centre - half)}" y="{num(sy(q3))}" width="{num(2 * half)}" '
            f'height="{num(max(sy(q1) - sy(q3), 0.5))}" fill="{c}" fill-opacity="0.25" stroke="{c}"/>'
            f'<line x1="{num(centre - half)}" x2="{num(centre + half)}" y1="{num(sy(median))}" '
            f'y2="{num(sy(median))}" stroke="{c}" stroke-width="2"/></g>'
        )
    return Html(svg.document(frame, title, body))


def _cdf_steps(values: Sequence[float], floor: float, max_points: int) -> list[tuple[float, float]]:
    """(x, share of values <= x) at the distinct values (clipped at `floor`), at most `max_points`."""
    ordered = sorted(max(v, floor) for v in values)
    n = len(ordered)
    steps = [(x, (i + 1) / n) for i, x in enumerate(ordered) if i + 1 == n or ordered[i + 1] != x]
    if len(steps) <= max_points:
        return steps
    # Keep the steps nearest to an even grid of shares, and always the last one (the maximum).
    keep = sorted(
        {min(len(steps) - 1, round(k * (len(steps) - 1) / max_points)) for k in range(max_points + 1)}
    )
    return [steps[i] for i in keep]


def _log_axis(
    frame: Frame, lo: float, hi: float, ticks: Sequence[float] | None, fmt: Formatter, label: str
) -> list[str]:
    """Tick labels at `ticks` (default: the powers of ten) between 10**lo and 10**hi."""
    sx = frame.sx(lo, hi)
    out = [svg.baseline(frame)]
    if ticks is None:
        ticks = [10.0**e for e in range(math.ceil(lo - 1e-9), math.floor(hi + 1e-9) + 1)]
    for tick in ticks:
        exp = math.log10(tick)
        if not lo - 1e-9 <= exp <= hi + 1e-9:
            continue
        x = num(sx(exp))
        out.append(
            f'<line x1="{x}" x2="{x}" y1="{num(frame.y0)}" y2="{num(frame.y1)}" stroke="{svg.GRID_COLOUR}"/>'
        )
        out.append(
            f'<text x="{x}" y="{num(frame.y0 + 16)}" text-anchor="middle" fill="{svg.AXIS_COLOUR}">'
            f"{esc(fmt(tick))}</text>"
        )
    return out + svg.x_title(frame, label)


def cdf(
    groups: Mapping[str, Sequence[float]],
    *,
    title: str,
    floor: float,
    x_label: str = "",
    x_ticks: Sequence[float] | None = None,
    x_format: Formatter | None = None,
    width: int = 720,
    height: int = 300,
    max_points: int = 400,
) -> Html:
    """Empirical CDFs (share of values <= x) of one distribution per group, on a log x axis.

    Values below `floor` (zeros included) count at `floor`, the left edge, so a distribution
    whose median is 0 still shows where its tail goes; the axis ends at the largest value.
    `x_ticks` (data units) default to the powers of ten.
    """
    frame = Frame(width=width, height=height)
    if floor <= 0:
        raise ValueError("floor must be positive")
    data = {name: [v for v in vals if math.isfinite(v)] for name, vals in groups.items()}
    steps = {name: _cdf_steps(vals, floor, max_points) for name, vals in data.items() if vals}
    if not steps:
        return Html(svg.document(frame, title, [svg.empty_note(frame)]))
    lo = math.log10(floor)
    hi = max(math.log10(max(pts[-1][0] for pts in steps.values())), lo + 1.0)
    body = svg.y_axis(frame, [0.0, 0.25, 0.5, 0.75, 1.0], lambda v: f"{v * 100:.0f}%", "share of workloads")
    body.extend(_log_axis(frame, lo, hi, x_ticks, x_format or svg.short_number, x_label))
    sx, sy = frame.sx(lo, hi), frame.sy(0.0, 1.0)
    for index, (name, pts) in enumerate(steps.items()):
        path, prev = [], 0.0
        for x, share in pts:
            px = num(sx(math.log10(x)))
            path += [f"{px},{num(sy(prev))}", f"{px},{num(sy(share))}"]
            prev = share
        path.append(f"{num(frame.x1)},{num(sy(prev))}")
        body.append(
            f'<polyline fill="none" stroke="{colour(index)}" stroke-width="1.6" points="{" ".join(path)}">'
            f"<title>{esc(name)}: n={len(data[name])}</title></polyline>"
        )
    body.extend(svg.legend(frame, list(steps)))
    return Html(svg.document(frame, title, body))
