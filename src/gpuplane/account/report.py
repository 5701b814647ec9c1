"""The HTML account report: the three views with inline SVG charts (`--report account.html`)."""

from __future__ import annotations

from collections import defaultdict

from gpuplane.account import views
from gpuplane.account.compute import AccountResult, Resolver
from gpuplane.account.output import iso
from gpuplane.report import Html, Page, cards, charts, figure, note, table
from gpuplane.spec import PlatformSpec

Curve = dict[float, float]


def _curves(result: AccountResult, spec: PlatformSpec) -> tuple[dict[str, Curve], Curve, Curve]:
    """Allocated GPUs per team, useful GPUs and provisioned GPUs at each chart step."""
    res = Resolver(spec)
    raw = result.raw
    team_of = {(p.namespace, p.pod): p.team for p in result.pods}
    pool_of_pod = {(p.namespace, p.pod): p.pool for p in result.pods}
    resource_of = {(p.namespace, p.pod): p.resource for p in result.pods}
    allocated: dict[str, Curve] = defaultdict(lambda: defaultdict(float))
    for (ns, pod, node, resource), points in raw.alloc_series.items():
        pool = result.node_pool.get(node, "unknown")
        fraction = res.resource_fraction(pool, resource)
        team = team_of.get((ns, pod), "unassigned")
        for t, v in points:
            allocated[team][t] += v * fraction
    useful: Curve = defaultdict(float)
    for (ns, pod, profile), points in raw.activity_series.items():
        pool = pool_of_pod.get((ns, pod), "unknown")
        resource = resource_of.get((ns, pod), "nvidia_com_gpu")
        fraction = res.profile_fraction(pool, profile) if profile else res.resource_fraction(pool, resource)
        for t, v in points:
            useful[t] += v * fraction
    provisioned: Curve = defaultdict(float)
    gpus = {p.pool: p.gpus_per_node for p in result.pools}
    for node, points in raw.node_series.items():
        for t, v in points:
            provisioned[t] += v * gpus.get(result.node_pool.get(node, "unknown"), 0)
    return allocated, useful, provisioned


def _state_chart(allocated: dict[str, Curve], useful: Curve, provisioned: Curve) -> Html:
    times = sorted(set(provisioned) | set(useful) | {t for c in allocated.values() for t in c})
    total_alloc = {t: sum(c.get(t, 0.0) for c in allocated.values()) for t in times}
    used = [min(useful.get(t, 0.0), total_alloc[t]) for t in times]
    idle = [max(total_alloc[t] - u, 0.0) for t, u in zip(times, used, strict=True)]
    free = [max(provisioned.get(t, 0.0) - total_alloc[t], 0.0) for t in times]
    return charts.stacked_area(
        times,
        {"useful": used, "idle allocated": idle, "unallocated": free},
        title="GPUs by state",
        y_label="GPUs",
        time_axis=True,
    )


def build_page(result: AccountResult, spec: PlatformSpec) -> Page:
    """The report page for one account result."""
    s = views.summary(result)
    cur = result.currency
    allocated, useful, provisioned = _curves(result, spec)
    teams = [r for r in views.financial(result, "team") if r.name != views.UNALLOCATED_ROW]
    effective = views.team_effective(result)
    page = Page(
        f"GPU account: {result.cluster}",
        subtitle=f"{iso(result.start)} to {iso(result.end)}, step {result.step:g}s, "
        f"activity from {result.activity_source or 'no DCGM series'}",
        footer="gpuplane account. GPU-hours count physical GPUs: a MIG instance is its compute "
        "slices over the GPU's, a time-sliced replica 1/replicas.",
    )
    page.section(
        "Summary",
        cards(
            [
                ("Provisioned GPU-h", f"{s.provisioned_h:,.1f}"),
                ("Allocated GPU-h", f"{s.hours.allocated:,.1f}"),
                ("Useful GPU-h", f"{s.hours.useful:,.1f}"),
                ("Idle allocated GPU-h", f"{s.hours.idle:,.1f}"),
                ("Failed-run GPU-h", f"{s.hours.failed:,.1f}"),
                ("Unallocated GPU-h", f"{s.hours.unallocated:,.1f}"),
                ("Total cost", f"{s.cost.total:,.2f} {cur}"),
                ("Accepted units", str(s.accepted)),
                (
                    "Cost per accepted unit",
                    "–" if s.per_accepted_unit is None else f"{s.per_accepted_unit:,.2f} {cur}",
                ),
            ]
        ),
        *[note(n, warn=True) for n in result.notes],
    )
    page.section(
        "Financial",
        figure(_state_chart(allocated, useful, provisioned)),
        figure(
            charts.line(
                {
                    team: [(t, c.get(t, 0.0)) for t in sorted(provisioned)]
                    for team, c in sorted(allocated.items())
                },
                title="Allocated GPUs by team",
                y_label="GPUs",
                time_axis=True,
            )
        ),
        figure(
            charts.stacked_bars(
                [r.name for r in teams],
                {
                    "useful": [r.hours.useful for r in teams],
                    "idle": [r.hours.idle for r in teams],
                    "failed": [r.hours.failed for r in teams],
                },
                title="GPU-hours by team",
                y_label="GPU-hours",
            )
        ),
        table(
            [
                "team",
                "allocated GPU-h",
                "useful GPU-h",
                "idle GPU-h",
                "failed GPU-h",
                f"own cost ({cur})",
                f"effective cost ({cur})",
                "accepted",
                f"per accepted unit ({cur})",
            ],
            [
                [
                    r.name,
                    r.hours.allocated,
                    r.hours.useful,
                    r.hours.idle,
                    r.hours.failed,
                    r.cost.gpu,
                    effective[r.name].total,
                    r.accepted,
                    effective[r.name].per_accepted_unit(r.accepted),
                ]
                for r in teams
            ],
        ),
    )
    _workload_section(page, result)
    _platform_section(page, result)
    return page


def _workload_section(page: Page, result: AccountResult) -> None:
    by_team: dict[str, list[float]] = defaultdict(list)
    for pod in result.pods:
        if pod.outcome != "Failed":
            by_team[pod.team].append(pod.activity)
    waits = [p.queue_wait_s / 60 for p in result.pods if p.queue_wait_s is not None]
    rows = sorted(views.workload(result), key=lambda w: (w["namespace"], w["pod"]))
    page.section(
        "Workload",
        figure(
            charts.boxes(
                dict(sorted(by_team.items())),
                title="Engine activity of pods by team",
                y_label="activity (0-1)",
            )
        ),
        figure(
            charts.histogram(waits, title="Queue wait (pod created to running)", x_label="minutes", bins=12)
        ),
        table(
            ["pod", "team", "queue", "image", "GPUs", "run h", "wait min", "activity", "retries", "outcome"],
            [
                [
                    f"{w['namespace']}/{w['pod']}",
                    w["team"],
                    w["queue"],
                    w["image"],
                    w["gpus"],
                    w["run_hours"],
                    None if w["queue_wait_s"] is None else w["queue_wait_s"] / 60,
                    w["activity"],
                    w["retries"],
                    w["outcome"],
                ]
                for w in rows[:200]
            ],
        ),
    )


def _platform_section(page: Page, result: AccountResult) -> None:
    pools = views.platform(result)
    page.section(
        "Platform",
        figure(
            charts.bars(
                [p["pool"] for p in pools],
                [p["provisioned_gpu_hours"] for p in pools],
                title="Provisioned GPU-hours by pool",
                y_label="GPU-hours",
            )
        ),
        table(
            [
                "pool",
                "accelerator",
                "spot",
                "nodes seen",
                "nodes at end",
                "GPU-h",
                f"price/GPU-h ({result.currency})",
                "GPUs with XID",
                "max temp °C",
                "max FB used MiB",
                "energy kWh",
            ],
            [
                [
                    p["pool"],
                    p["accelerator"],
                    "yes" if p["spot"] else "no",
                    p["nodes_seen"],
                    p["nodes_at_end"],
                    p["provisioned_gpu_hours"],
                    p["gpu_hourly"],
                    p["xid_gpus"],
                    p["max_temp_c"],
                    p["max_fb_used_mib"],
                    p["energy_kwh"],
                ]
                for p in pools
            ],
        ),
        *(
            [
                table(
                    ["cluster queue", "pending workloads at end", "mean admission wait (s)", "usage at end"],
                    [
                        [q, result.kueue_pending.get(q), result.kueue_wait_s.get(q), _usage(result, q)]
                        for q in sorted(set(result.kueue_pending) | set(result.kueue_wait_s))
                    ],
                )
            ]
            if result.kueue_pending or result.kueue_wait_s
            else []
        ),
    )


def _usage(result: AccountResult, queue: str) -> str:
    """Kueue resource usage of a ClusterQueue at the end, e.g. `nvidia.com/gpu=2`."""
    return ", ".join(f"{r}={v:g}" for (q, r), v in sorted(result.raw.kueue_usage.items()) if q == queue)
