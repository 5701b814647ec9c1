"""The HTML account report: the three views with inline SVG charts (`--report account.html`).

It reads the computed result only (views, pools, pods, the timeline), never the raw answers.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from gpuplane.account import views
from gpuplane.account.compute import AccountResult
from gpuplane.account.output import iso
from gpuplane.account.timeline import Timeline
from gpuplane.costs import GpuTime, overhead_rows
from gpuplane.report import Html, Page, cards, charts, figure, note, table

_STATES = (GpuTime.USEFUL, GpuTime.IDLE, GpuTime.UNMEASURED, GpuTime.FAILED, GpuTime.UNALLOCATED)


def _money(value: float | None, currency: str) -> str:
    return "–" if value is None else f"{value:,.2f} {currency}"


def _state_chart(line: Timeline) -> Html:
    return charts.stacked_area(
        line.times,
        {kind.label: getattr(line, kind.value) for kind in _STATES},
        title="GPUs by state",
        y_label="GPUs",
        time_axis=True,
    )


def _team_chart(line: Timeline) -> Html:
    return charts.line(
        {team: list(zip(line.times, values, strict=True)) for team, values in line.allocated_by_team.items()},
        title="Allocated GPUs by team",
        y_label="GPUs",
        time_axis=True,
    )


def _summary(result: AccountResult) -> list[Html]:
    s = views.summary(result)
    cur = result.currency
    figures = [
        ("Provisioned GPU-h", f"{s.provisioned_h:,.1f}"),
        ("Allocated GPU-h", f"{s.hours.allocated:,.1f}"),
    ]
    figures += [(f"{kind.label.capitalize()} GPU-h", f"{s.hours[kind]:,.1f}") for kind in views.ACCOUNT_KINDS]
    figures += [
        ("Total cost", _money(s.cost.total, cur)),
        *((f"{label.capitalize()} ({cur})", value) for label, value in overhead_rows(s.cost)),
        ("Accepted units", str(s.accepted)),
        ("Cost per accepted unit", _money(s.per_accepted_unit, cur)),
    ]
    return [cards(figures), *[note(n, warn=True) for n in result.notes]]


def _financial(result: AccountResult) -> list[Html]:
    cur = result.currency
    teams = [r for r in views.financial(result, "team") if r.name != views.UNALLOCATED_ROW]
    effective = views.team_effective(result)
    kinds = [k for k in views.ACCOUNT_KINDS if k is not GpuTime.UNALLOCATED]
    parts: list[Html] = []
    if result.timeline is not None:
        parts += [figure(_state_chart(result.timeline)), figure(_team_chart(result.timeline))]
    parts.append(
        figure(
            charts.stacked_bars(
                [r.name for r in teams],
                {k.label: [r.hours[k] for r in teams] for k in kinds},
                title="GPU-hours by team",
                y_label="GPU-hours",
            )
        )
    )
    heads = ["team", "allocated GPU-h", *(f"{k.label} GPU-h" for k in kinds)]
    heads += [f"own cost ({cur})", f"effective cost ({cur})", "accepted", f"per accepted unit ({cur})"]
    rows: list[list[Any]] = [
        [
            r.name,
            r.hours.allocated,
            *(r.hours[k] for k in kinds),
            r.cost.gpu,
            effective[r.name].total,
            r.accepted,
            effective[r.name].per_accepted_unit(r.accepted),
        ]
        for r in teams
    ]
    parts.append(table(heads, rows))
    return parts


def _pod_row(w: dict[str, Any]) -> list[Any]:
    wait = None if w["queue_wait_s"] is None else w["queue_wait_s"] / 60
    cells = [f"{w['namespace']}/{w['pod']}", w["team"], w["queue"], w["image"], w["gpus"], w["run_hours"]]
    return [*cells, wait, w["activity"], w["retries"], w["outcome"]]


def _queue_row(q: dict[str, Any]) -> list[Any]:
    usage = ", ".join(f"{r}={v:g}" for r, v in q["resource_usage"].items())
    cells = [q["cluster_queue"], q["pending_workloads"], q["admitted_workloads"], q["admissions"]]
    return [*cells, q["mean_admission_wait_seconds"], usage]


def _workload(result: AccountResult) -> list[Html]:
    by_team: dict[str, list[float]] = defaultdict(list)
    for pod in result.pods:
        if pod.outcome != "Failed" and pod.activity is not None:
            by_team[pod.team].append(pod.activity)
    waits = [p.queue_wait_s / 60 for p in result.pods if p.queue_wait_s is not None]
    rows = sorted(views.workload(result), key=lambda w: (w["namespace"], w["pod"]))
    heads = ["pod", "team", "queue", "image", "GPUs", "run h", "wait min", "activity", "retries", "outcome"]
    return [
        figure(
            charts.boxes(
                dict(sorted(by_team.items())),
                title="Engine activity of pods by team",
                y_label="activity (0-1)",
            )
        ),
        figure(
            charts.histogram(
                waits, title="Queue wait inside the window (created to running)", x_label="minutes", bins=12
            )
        ),
        table(
            heads,
            [_pod_row(w) for w in rows[:200]],
        ),
    ]


def _platform(result: AccountResult) -> list[Html]:
    pools = views.platform(result)
    keys = [
        "pool",
        "accelerator",
        "spot",
        "nodes_seen",
        "nodes_at_end",
        "provisioned_gpu_hours",
        "gpu_hourly",
    ]
    keys += ["xid_gpus", "max_temp_c", "max_fb_used_mib", "energy_kwh"]
    heads = ["pool", "accelerator", "spot", "nodes seen", "nodes at end", "GPU-h"]
    heads += [
        f"price/GPU-h ({result.currency})",
        "GPUs with XID",
        "max temp °C",
        "max FB used MiB",
        "energy kWh",
    ]
    parts = [
        figure(
            charts.bars(
                [p["pool"] for p in pools],
                [p["provisioned_gpu_hours"] for p in pools],
                title="Provisioned GPU-hours by pool",
                y_label="GPU-hours",
            )
        ),
        table(heads, [[("yes" if p[k] else "no") if k == "spot" else p[k] for k in keys] for p in pools]),
    ]
    queues = views.kueue(result)
    if queues:
        parts.append(
            table(
                [
                    "cluster queue",
                    "pending at end",
                    "admitted at end",
                    "admissions",
                    "mean admission wait (s)",
                    "usage at end",
                ],
                [_queue_row(q) for q in queues],
            )
        )
    return parts


def build_page(result: AccountResult) -> Page:
    """The report page for one account result."""
    page = Page(
        f"GPU account: {result.cluster}",
        subtitle=f"{iso(result.start)} to {iso(result.end)}, step {result.step:g}s, "
        f"activity from {result.activity_source or 'no DCGM series'}",
        footer="gpuplane account. GPU-hours count physical GPUs: a MIG instance is its compute "
        "slices over the GPU's, a time-sliced replica 1/replicas. Unmeasured time had no DCGM activity metric.",
    )
    page.section("Summary", *_summary(result))
    page.section("Financial", *_financial(result))
    page.section("Workload", *_workload(result))
    page.section("Platform", *_platform(result))
    return page
