"""SVG building blocks for the charts: scales, nice ticks, axes, legends, number formatting.

Everything returns strings and is a pure function of its inputs, so the same data always gives
byte-identical SVG (numbers are written with a fixed number of decimals).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: Okabe & Ito's colour-blind-safe palette (Color Universal Design, 2008), blue first.
PALETTE: tuple[str, ...] = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#F0E442",
    "#000000",
)
AXIS_COLOUR = "#555"
GRID_COLOUR = "#e4e4e4"
FONT = "font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\""

Formatter = Callable[[float], str]


def colour(index: int) -> str:
    """The palette colour for series number `index` (cycling)."""
    return PALETTE[index % len(PALETTE)]


def esc(text: str) -> str:
    """Escape text for use inside SVG/HTML content and attribute values."""
    return html.escape(text, quote=True)


def num(value: float) -> str:
    """A coordinate with two decimals and no trailing zeros: stable across platforms."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def short_number(value: float) -> str:
    """Human tick label: 1.5k, 2M, 0.25, 12."""
    magnitude = abs(value)
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if magnitude >= limit:
            return f"{value / limit:.3g}{suffix}"
    if magnitude == 0:
        return "0"
    return f"{value:.3g}"


def nice_step(span: float, count: int) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten) giving about `count` intervals."""
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / max(count, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (1.0, 2.0, 2.5, 5.0, 10.0):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi]; the first tick <= lo and the last >= hi."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [0.0, 1.0]
    if hi < lo:
        lo, hi = hi, lo
    if hi - lo < 1e-9 * max(abs(lo), abs(hi), 1.0):  # flat or float-noise range: give it height
        hi = lo + max(abs(lo), 1.0)
    step = nice_step(hi - lo, count)
    decimals = max(0, 3 - math.floor(math.log10(step)))
    first, last = math.floor(lo / step), math.ceil(hi / step)
    if last - first > 50:
        last = first + 50
    return [round(k * step, decimals) for k in range(first, max(last, first + 1) + 1)]


@dataclass(frozen=True)
class Frame:
    """The plotting rectangle inside an SVG of `width` x `height` pixels."""

    width: int = 720
    height: int = 300
    left: int = 64
    right: int = 16
    top: int = 36
    bottom: int = 48

    @property
    def x0(self) -> float:
        """Left edge of the plot in pixels."""
        return float(self.left)

    @property
    def x1(self) -> float:
        """Right edge of the plot in pixels."""
        return float(self.width - self.right)

    @property
    def y0(self) -> float:
        """Bottom of the plot (SVG y grows downwards)."""
        return float(self.height - self.bottom)

    @property
    def y1(self) -> float:
        """Top of the plot in pixels (SVG y grows downwards)."""
        return float(self.top)

    def sx(self, lo: float, hi: float) -> Callable[[float], float]:
        """Map data x in [lo, hi] to pixels."""
        span = (hi - lo) or 1.0
        return lambda v: self.x0 + (v - lo) / span * (self.x1 - self.x0)

    def sy(self, lo: float, hi: float) -> Callable[[float], float]:
        """Map data y in [lo, hi] to pixels (lo at the bottom)."""
        span = (hi - lo) or 1.0
        return lambda v: self.y0 - (v - lo) / span * (self.y0 - self.y1)


def document(frame: Frame, title: str, body: Sequence[str], *, css_class: str = "chart") -> str:
    """Wrap chart elements into one standalone, accessible <svg> element."""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{css_class}" role="img" '
        f'viewBox="0 0 {frame.width} {frame.height}" width="{frame.width}" height="{frame.height}" '
        f'{FONT} font-size="11">'
    )
    parts = [head, f"<title>{esc(title)}</title>"]
    if title:
        parts.append(
            f'<text x="{num(frame.x0)}" y="18" font-size="13" font-weight="600" fill="#222">{esc(title)}</text>'
        )
    parts.extend(body)
    parts.append("</svg>")
    return "".join(parts)


def y_axis(frame: Frame, ticks: Sequence[float], fmt: Formatter, label: str = "") -> list[str]:
    """Horizontal grid lines with labels on the left, and the y-axis title."""
    sy = frame.sy(ticks[0], ticks[-1])
    out: list[str] = []
    for tick in ticks:
        y = num(sy(tick))
        out.append(
            f'<line x1="{num(frame.x0)}" x2="{num(frame.x1)}" y1="{y}" y2="{y}" stroke="{GRID_COLOUR}"/>'
        )
        out.append(
            f'<text x="{num(frame.x0 - 6)}" y="{y}" text-anchor="end" dominant-baseline="middle" '
            f'fill="{AXIS_COLOUR}">{esc(fmt(tick))}</text>'
        )
    if label:
        mid = num((frame.y0 + frame.y1) / 2)
        out.append(
            f'<text transform="translate(14 {mid}) rotate(-90)" text-anchor="middle" '
            f'fill="{AXIS_COLOUR}">{esc(label)}</text>'
        )
    return out


def x_axis_numeric(frame: Frame, ticks: Sequence[float], fmt: Formatter, label: str = "") -> list[str]:
    """The x baseline with numeric tick labels and the x-axis title."""
    sx = frame.sx(ticks[0], ticks[-1])
    out = [baseline(frame)]
    for tick in ticks:
        x = num(sx(tick))
        out.append(
            f'<line x1="{x}" x2="{x}" y1="{num(frame.y0)}" y2="{num(frame.y0 + 4)}" stroke="{AXIS_COLOUR}"/>'
        )
        out.append(
            f'<text x="{x}" y="{num(frame.y0 + 16)}" text-anchor="middle" fill="{AXIS_COLOUR}">{esc(fmt(tick))}</text>'
        )
    out.extend(x_title(frame, label))
    return out


def baseline(frame: Frame) -> str:
    """The x-axis line at the bottom of the plot."""
    return (
        f'<line x1="{num(frame.x0)}" x2="{num(frame.x1)}" y1="{num(frame.y0)}" y2="{num(frame.y0)}" '
        f'stroke="{AXIS_COLOUR}"/>'
    )


def x_title(frame: Frame, label: str) -> list[str]:
    """The x-axis title under the tick labels (nothing when empty)."""
    if not label:
        return []
    mid = num((frame.x0 + frame.x1) / 2)
    return [
        f'<text x="{mid}" y="{num(frame.height - 8)}" text-anchor="middle" fill="{AXIS_COLOUR}">{esc(label)}</text>'
    ]


def legend(frame: Frame, names: Sequence[str]) -> list[str]:
    """Coloured swatches with series names, laid out right to left along the top edge."""
    out: list[str] = []
    x = frame.x1
    for index in range(len(names) - 1, -1, -1):
        name = names[index]
        width = 18 + 6.2 * len(name)
        x -= width
        out.append(f'<rect x="{num(x)}" y="9" width="10" height="10" fill="{colour(index)}"/>')
        out.append(f'<text x="{num(x + 14)}" y="18" fill="#333">{esc(name)}</text>')
        x -= 10
    return out


def empty_note(frame: Frame) -> str:
    """Text shown in place of a plot when there is no data."""
    return (
        f'<text x="{num((frame.x0 + frame.x1) / 2)}" y="{num((frame.y0 + frame.y1) / 2)}" '
        f'text-anchor="middle" fill="{AXIS_COLOUR}">no data</text>'
    )


def downsample(points: Sequence[tuple[float, float]], max_points: int) -> list[tuple[float, float]]:
    """At most `max_points` points: consecutive points averaged in equal-sized buckets.

    Keeps a week of 30-second samples (20,160 points) from turning into a multi-megabyte SVG.
    """
    if max_points <= 0 or len(points) <= max_points:
        return list(points)
    size = math.ceil(len(points) / max_points)
    out: list[tuple[float, float]] = []
    for start in range(0, len(points), size):
        bucket = points[start : start + size]
        out.append((sum(p[0] for p in bucket) / len(bucket), sum(p[1] for p in bucket) / len(bucket)))
    return out
