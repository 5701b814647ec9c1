"""The self-contained HTML report of a simulation (one platform or a what-if comparison).

Plots: queue-wait distribution per team; GPUs provisioned / allocated / busy over time per pool;
nodes over time; cost breakdown (useful, idle, failed, evicted-and-lost, unallocated) by team and
by pool; effective cost per accepted unit. Built with `gpuplane.report` (inline SVG, no script).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpuplane.costs import GPU_TIME_KINDS, GpuTime
from gpuplane.report import Html, Page, cards, charts, figure, note, table
from gpuplane.sim.series import PoolSeries
from gpuplane.sim.session import RunResult

GRID_POINTS = 400
DAY = 86400.0
# The twin measures every held second, so it never reports `unmeasured` GPU time.
KINDS = tuple(k.value for k in GPU_TIME_KINDS if k is not GpuTime.UNMEASURED)
KIND_LABELS = tuple(k.label for k in GPU_TIME_KINDS if k is not GpuTime.UNMEASURED)


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
    c = s["currency"]
    w = s["workloads"]
    return cards(
        [
            ("cost per accepted unit", _money(s["cost_per_accepted_unit"], c)),
            (
                "rented VMs per unit",
                _money(s.get("baselines", {}).get("rental", {}).get("per_accepted_unit"), c),
            ),
            ("model API per unit", _money(s.get("baselines", {}).get("api", {}).get("per_accepted_unit"), c)),
            ("total cost", _money(s["cost"]["total"], c)),
            ("accepted units", f"{s['accepted_units']:,.0f}"),
            ("workloads", f"{w['total']:,}"),
            ("completed / failed / killed", f"{w['completed']:,} / {w['failed']:,} / {w['killed']:,}"),
            ("still waiting at the end", f"{w['pending'] + w['admitted']:,}"),
            ("simulated window", f"{s['window_hours'] / 24:,.1f} days"),
            (
                "evictions / preemptions",
                f"{s['interruptions']['evictions']} / {s['interruptions']['preemptions']}",
            ),
        ]
    )


def _waits_figure(result: RunResult) -> Html:
    groups: dict[str, list[float]] = {}
    out = result.outcome
    for run in out.runs:
        if run.first_start is not None:
            groups.setdefault(out.teams[run.team], []).append(_hours(run.quota_wait + run.capacity_wait))
    box = charts.boxes(dict(sorted(groups.items())), title="Queue wait per team", y_label="hours")
    rows = [
        [
            team,
            v["queue_wait"]["n"],
            _hours(v["queue_wait"]["mean_s"]),
            _hours(v["queue_wait"]["p50_s"]),
            _hours(v["queue_wait"]["p90_s"]),
            _hours(v["queue_wait"]["p99_s"]),
            _hours(v["quota_wait"]["mean_s"]),
            _hours(v["capacity_wait"]["mean_s"]),
        ]
        for team, v in result.summary["teams"].items()
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
    return Html(figure(box, "Box: quartiles and median; whiskers: min and max.") + table(head, rows))


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
    teams = list(s["teams"])
    pools = list(s["pools"])
    by_team = {
        label: [s["teams"][t]["cost"][k] for t in teams]
        for k, label in zip(KINDS, KIND_LABELS, strict=True)
        if k != "unallocated"
    }
    by_pool = {
        label: [s["pools"][p]["cost"][k] for p in pools] for k, label in zip(KINDS, KIND_LABELS, strict=True)
    }
    cur = s["currency"]
    overhead_rows = [[k, s["cost"][k]] for k in ("support", "operations", "storage", "network")]
    return [
        figure(charts.stacked_bars(teams, by_team, title="GPU cost by team", y_label=cur)),
        figure(charts.stacked_bars(pools, by_pool, title="GPU cost by pool", y_label=cur)),
        table(["overhead (prorated)", cur], overhead_rows),
    ]


def _run_sections(page: Page, result: RunResult, prefix: str) -> None:
    page.section(f"{prefix}Key figures", _key_figures(result), *_warnings(result))
    page.section(f"{prefix}Queue wait", _waits_figure(result))
    page.section(f"{prefix}Capacity over time", *_pool_figures(result))
    page.section(f"{prefix}Cost breakdown", *_cost_figures(result))


def _warnings(result: RunResult) -> list[Html]:
    notes = [note(w, warn=True) for w in result.summary["warnings"]]
    if result.summary["skipped_rows"]:
        notes.append(note(f"{result.summary['skipped_rows']} bad trace rows were skipped", warn=True))
    return notes


def _comparison(results: Sequence[RunResult]) -> Html:
    labels = [r.label for r in results]
    per_unit = [r.summary["cost_per_accepted_unit"] or 0.0 for r in results]
    parts = {
        label: [r.summary["cost"][k] for r in results] for k, label in zip(KINDS, KIND_LABELS, strict=True)
    }
    parts["overheads"] = [r.summary["overheads"]["total"] for r in results]
    rows: list[list[Any]] = []
    for r in results:
        s = r.summary
        waits = [v["queue_wait"]["p90_s"] for v in s["teams"].values()]
        rows.append(
            [
                r.label,
                s["cost_per_accepted_unit"],
                s["cost"]["total"],
                s["accepted_units"],
                s["workloads"]["completed"],
                _hours(max(waits, default=0.0)),
                s["interruptions"]["evictions"],
                s["interruptions"]["preemptions"],
            ]
        )
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
    return Html(
        table(head, rows)
        + legend
        + figure(
            charts.bars(
                short,
                per_unit,
                title="Effective cost per accepted unit",
                y_label=results[0].summary["currency"],
            )
        )
        + figure(
            charts.stacked_bars(
                short, parts, title="Total cost by component", y_label=results[0].summary["currency"]
            )
        )
    )


def build_report(results: Sequence[RunResult]) -> Page:
    """The report page for one run or a side-by-side what-if of several."""
    first = results[0].summary
    subtitle = f"workload: {first['workload']} · seed {first['seed']}"
    page = Page("gpuplane simulate", subtitle, footer="Generated by gpuplane simulate (digital twin).")
    if len(results) > 1:
        page.section("What-if comparison (same workload, same seed)", _comparison(results))
    for i, result in enumerate(results):
        prefix = f"#{i + 1} {result.label}: " if len(results) > 1 else f"{result.label}: "
        _run_sections(page, result, prefix)
    return page


def write_report(path: Path, results: Sequence[RunResult]) -> None:
    """Write the HTML report atomically."""
    build_report(results).write(path)
