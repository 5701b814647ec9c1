"""The self-contained HTML report of a simulation (one platform or a what-if comparison).

Plots: queue-wait distribution per team (a CDF on a log time axis, so a tail behind a median of
0 shows); GPUs provisioned / allocated / busy over time per pool;
nodes over time; cost breakdown (useful, idle, failed, evicted-and-lost, unallocated) by team and
by pool; effective cost per accepted unit. Built with `gpuplane.report` (inline SVG, no script).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from gpuplane.costs import GPU_TIME_KINDS, GpuTime, overhead_rows
from gpuplane.report import Html, Page, cards, charts, figure, note, table
from gpuplane.sim.series import PoolSeries
from gpuplane.sim.whatif import RunResult

GRID_POINTS = 400
DAY = 86400.0
#: Waits shorter than this (one minute, in hours) sit at the left edge of the log-scale wait chart.
WAIT_FLOOR_H = 1.0 / 60.0
#: Ticks of that chart, in hours: 1 min, 10 min, 1 h, 10 h, 100 h, 1,000 h, 10,000 h.
WAIT_TICKS_H = (1.0 / 60.0, 10.0 / 60.0, 1.0, 10.0, 100.0, 1_000.0, 10_000.0)
# The twin measures every held second, so it never reports `unmeasured` GPU time.
KINDS = tuple(k for k in GPU_TIME_KINDS if k is not GpuTime.UNMEASURED)


def step_points(
    t: Sequence[float], values: Sequence[float], end: float, points: int = GRID_POINTS
) -> list[tuple[float, float]]:
    """A step series sampled on a regular grid of `points` instants over [0, end], x in days."""
    if not t:
        return []
    span = max(end, t[-1], 1.0)
    out = []
    for i in range(points + 1):
        at = span * i / points
        k = bisect_right(t, at) - 1
        out.append((at / DAY, float(values[k]) if k >= 0 else 0.0))
    return out


def _money(value: float | None, currency: str) -> str:
    return "–" if value is None else f"{value:,.2f} {currency}"


def _hours(seconds: float) -> float:
    return seconds / 3600.0


def _key_figures(result: RunResult) -> Html:
    s = result.summary
    c = s.currency
    w = s.workloads
    return cards(
        [
            ("cost per accepted unit", _money(s.cost_per_accepted_unit, c)),
            ("rented VMs per unit", _money(s.baselines.rental.per_accepted_unit if s.baselines else None, c)),
            ("model API per unit", _money(s.baselines.api.per_accepted_unit if s.baselines else None, c)),
            ("total cost", _money(s.cost.total, c)),
            ("accepted units", f"{s.accepted_units:,.0f}"),
            ("workloads", f"{w.total:,}"),
            ("completed / failed / killed", f"{w.completed:,} / {w.failed:,} / {w.killed:,}"),
            ("still waiting at the end", f"{w.waiting:,}"),
            ("simulated window", f"{s.window_hours / 24:,.1f} days"),
            ("evictions / preemptions", f"{s.evictions} / {s.preemptions}"),
        ]
    )


def _hour_label(hours: float) -> str:
    """Tick labels of the wait axis: minutes below an hour, then hours; the floor reads "≤ 1 min"."""
    text = f"{hours * 60:.0f} min" if hours < 1.0 else f"{hours:,.0f} h"
    return f"≤ {text}" if hours <= WAIT_FLOOR_H else text


def _waits_figure(result: RunResult) -> Html:
    groups: dict[str, list[float]] = {}
    out = result.outcome
    for run in out.runs:
        if run.first_start is not None:
            groups.setdefault(out.teams[run.team], []).append(_hours(run.quota_wait + run.capacity_wait))
    chart = charts.cdf(
        dict(sorted(groups.items())),
        title="Queue wait per team (cumulative)",
        floor=WAIT_FLOOR_H,
        x_label="queue wait (log scale)",
        x_ticks=WAIT_TICKS_H,
        x_format=_hour_label,
    )
    rows: list[list[Any]] = [
        [
            t.name,
            t.queue_wait.n,
            _hours(t.queue_wait.mean_s),
            _hours(t.queue_wait.p50_s),
            _hours(t.queue_wait.p90_s),
            _hours(t.queue_wait.p99_s),
            _hours(t.quota_wait.mean_s),
            _hours(t.capacity_wait.mean_s),
        ]
        for t in result.summary.teams
    ]
    head = [
        "team",
        "started",
        "mean h",
        "p50 h",
        "p90 h",
        "p99 h",
        "quota wait mean h",
        "capacity wait mean h",
    ]
    caption = (
        "Share of each team's started workloads that waited at most x; waits of one minute or "
        "less (zero included) sit at the left edge."
    )
    return Html(figure(chart, caption) + table(head, rows))


def _pool_figures(result: RunResult) -> list[Html]:
    out = result.outcome
    blocks: list[Html] = []
    for pool, series in zip(out.pools, out.series, strict=True):
        blocks.append(
            figure(
                charts.line(
                    _gpu_lines(series, out.end),
                    title=f"GPUs over time: {pool.name}",
                    x_label="simulated days",
                    y_label="GPUs",
                )
            )
        )
    nodes = {p.name: step_points(s.t, s.nodes, out.end) for p, s in zip(out.pools, out.series, strict=True)}
    blocks.append(
        figure(charts.line(nodes, title="Ready nodes per pool", x_label="simulated days", y_label="nodes"))
    )
    return blocks


def _gpu_lines(series: PoolSeries, end: float) -> dict[str, list[tuple[float, float]]]:
    return {
        "provisioned": step_points(series.t, series.provisioned, end),
        "allocated": step_points(series.t, series.allocated, end),
        "busy (GPU-equivalents)": step_points(series.t, series.busy, end),
    }


def _cost_figures(result: RunResult) -> list[Html]:
    s = result.summary
    teams = [t.name for t in s.teams]
    pools = [p.name for p in s.pools]
    by_team = {
        k.label: [getattr(t.cost, k.value) for t in s.teams] for k in KINDS if k is not GpuTime.UNALLOCATED
    }
    by_pool = {k.label: [getattr(p.cost, k.value) for p in s.pools] for k in KINDS}
    cur = s.currency
    overheads = [[label, value] for label, value in overhead_rows(s.cost)]
    return [
        figure(charts.stacked_bars(teams, by_team, title="GPU cost by team", y_label=cur)),
        figure(charts.stacked_bars(pools, by_pool, title="GPU cost by pool", y_label=cur)),
        table(["overhead (prorated)", cur], overheads),
    ]


def _run_sections(page: Page, result: RunResult, prefix: str) -> None:
    page.section(f"{prefix}Key figures", _key_figures(result), *_warnings(result))
    page.section(f"{prefix}Queue wait", _waits_figure(result))
    page.section(f"{prefix}Capacity over time", *_pool_figures(result))
    page.section(f"{prefix}Cost breakdown", *_cost_figures(result))


def _warnings(result: RunResult) -> list[Html]:
    notes = [note(w, warn=True) for w in result.summary.warnings]
    if result.summary.skipped_rows:
        notes.append(note(f"{result.summary.skipped_rows} bad trace rows were skipped", warn=True))
    return notes


def _comparison(results: Sequence[RunResult]) -> Html:
    labels = [r.label for r in results]
    per_unit = [r.summary.cost_per_accepted_unit or 0.0 for r in results]
    parts = {k.label: [getattr(r.summary.cost, k.value) for r in results] for k in KINDS}
    parts["overheads"] = [r.summary.overheads.total for r in results]
    rows: list[list[Any]] = [
        [
            r.label,
            r.summary.cost_per_accepted_unit,
            r.summary.cost.total,
            r.summary.accepted_units,
            r.summary.workloads.completed,
            _hours(r.summary.worst_p90_wait_s),
            r.summary.evictions,
            r.summary.preemptions,
        ]
        for r in results
    ]
    head = [
        "platform",
        "cost / unit",
        "total cost",
        "units",
        "completed",
        "worst team p90 wait h",
        "evictions",
        "preemptions",
    ]
    short = [f"#{i + 1}" for i in range(len(labels))]
    legend = table(["#", "platform"], [[s, label] for s, label in zip(short, labels, strict=True)])
    currency = results[0].summary.currency
    return Html(
        table(head, rows)
        + legend
        + figure(charts.bars(short, per_unit, title="Effective cost per accepted unit", y_label=currency))
        + figure(charts.stacked_bars(short, parts, title="Total cost by component", y_label=currency))
    )


def build_report(results: Sequence[RunResult]) -> Page:
    """The report page for one run or a side-by-side what-if of several."""
    first = results[0].summary
    subtitle = f"workload: {first.workload} · seed {first.seed}"
    page = Page("gpuplane simulate", subtitle, footer="Generated by gpuplane simulate (digital twin).")
    if len(results) > 1:
        page.section("What-if comparison (same workload, same seed)", _comparison(results))
    for i, result in enumerate(results):
        prefix = f"#{i + 1} {result.label}: " if len(results) > 1 else f"{result.label}: "
        _run_sections(page, result, prefix)
    return page
