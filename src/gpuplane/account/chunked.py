"""Running one PromQL expression over every chunk of a window and folding the answers.

GPU-hours are integrals: `sum_over_time((expr)[R:step])` summed over consecutive chunks of the
window, times step / 3600. Each chunk's subquery is evaluated at its last step, so the chunks
cover the window's steps exactly once (`Window.chunks`). Prometheus does the joins, so only one
number per group and chunk comes back, whatever the scrape resolution.
"""

from __future__ import annotations

from collections.abc import Callable

from gpuplane.account.answers import Series
from gpuplane.account.prom import PromClient
from gpuplane.account.window import Window

Key = tuple[str, ...]


def key_of(series: Series, by: tuple[str, ...]) -> Key:
    """The values of the `by` labels ("" when absent)."""
    return tuple(series.labels.get(name, "") for name in by)


def integrate(client: PromClient, w: Window, inner: str, by: tuple[str, ...]) -> dict[Key, float]:
    """Hours of `inner` (value x time) per group `by` over the window."""
    out: dict[Key, float] = {}
    group = ", ".join(by)
    for at, span in w.chunks():
        query = f"sum by ({group}) (sum_over_time(({inner})[{span}:{int(w.step)}s]))"
        for series in client.instant(query, at):
            key = key_of(series, by)
            out[key] = out.get(key, 0.0) + series.value * w.step / 3600
    return out


def per_chunk(
    client: PromClient,
    w: Window,
    make: Callable[[str], str],
    by: tuple[str, ...],
    combine: Callable[[float, float], float],
) -> dict[Key, float]:
    """Run `make(range)` once per chunk and fold the values per group with `combine`."""
    out: dict[Key, float] = {}
    for at, span in w.chunks():
        for series in client.instant(make(span), at):
            key = key_of(series, by)
            out[key] = combine(out[key], series.value) if key in out else series.value
    return out


def labels_per_chunk(client: PromClient, w: Window, make: Callable[[str], str]) -> list[dict[str, str]]:
    """Label sets of `make(range)` over all chunks (deduplicated, sorted)."""
    seen: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
    for at, span in w.chunks():
        for series in client.instant(make(span), at):
            seen.setdefault(series.key, series.labels)
    return [seen[k] for k in sorted(seen)]


def any_chunk(client: PromClient, w: Window, make: Callable[[str], str]) -> float:
    """The largest value `make(range)` gives over the chunks (0 when it is empty everywhere)."""
    best = 0.0
    for at, span in w.chunks():
        for series in client.instant(make(span), at):
            best = max(best, series.value)
    return best
