"""The HTML report of a plan: the Pareto front (cost per accepted unit vs worst p90 queue wait), the
best designs, why the winner won (binding constraint, what the next cheaper design violates) and
the baselines. Self-contained (gpuplane.report: inline SVG, no script)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from gpuplane.plan.output import ranked, summary_lines
from gpuplane.plan.quotas import summary as quota_summary
from gpuplane.plan.search import Scored, SearchResult, next_cheaper, pareto_front
from gpuplane.report import Html, Page, cards, figure, note, svg, table
from gpuplane.report.svg import Frame, colour, esc, num


def pareto_chart(
    scored: Sequence[Scored], front: Sequence[Scored], winner: str | None, currency: str
) -> Html:
    """Scatter of every design run on the whole trace; the front joined by a line, the winner ringed."""
    frame = Frame(width=720, height=340)
    points = [
        (s.result.rank_cost, s.result.worst_p90 / 3600.0, s)
        for s in scored
        if math.isfinite(s.result.rank_cost)
    ]
    title = "Cost per accepted unit vs p90 wait"
    if not points:
        return Html(svg.document(frame, title, [svg.empty_note(frame)]))
    x_ticks = svg.nice_ticks(min(p[0] for p in points), max(p[0] for p in points))
    y_ticks = svg.nice_ticks(0.0, max(max(p[1] for p in points), 0.1))
    body = svg.y_axis(frame, y_ticks, svg.short_number, "worst p90 wait (h)")
    body += svg.x_axis_numeric(frame, x_ticks, svg.short_number, f"cost per accepted unit ({currency})")
    sx, sy = frame.sx(x_ticks[0], x_ticks[-1]), frame.sy(y_ticks[0], y_ticks[-1])
    front_ids = {s.design.id for s in front}
    line = " ".join(f"{num(sx(s.result.rank_cost))},{num(sy(s.result.worst_p90 / 3600.0))}" for s in front)
    if len(front) > 1:
        body.append(f'<polyline points="{line}" fill="none" stroke="{colour(1)}" stroke-width="1.5"/>')
    for x, y, s in points:
        fill = colour(1) if s.design.id in front_ids else colour(0)
        fill = colour(2) if not s.verdict.feasible else fill
        tip = f"{s.design.id}: {x:.3f} {currency}/unit, p90 {y:.2f} h{'' if s.verdict.feasible else ' (misses the goal)'}"
        body.append(
            f'<circle cx="{num(sx(x))}" cy="{num(sy(y))}" r="4" fill="{fill}" fill-opacity="0.8"><title>{esc(tip)}</title></circle>'
        )
        if s.design.id == winner:
            body.append(
                f'<circle cx="{num(sx(x))}" cy="{num(sy(y))}" r="8" fill="none" stroke="#222" stroke-width="1.5"/>'
            )
    body += svg.legend(frame, ["meets the goal", "Pareto front", "misses the goal"])
    return Html(svg.document(frame, title, body))


def _unit_cost(value: float | None, currency: str) -> str:
    return "no accepted unit" if value is None else f"{value:,.3f} {currency}/unit"


def _row(rank: int, s: Scored, pools: Sequence[str]) -> list[str | int | float | None]:
    spread = [r.cost_per_unit for r in s.runs if r.cost_per_unit is not None]
    choices = dict(s.design.choices)
    return [
        rank,
        s.design.id,
        "yes" if s.verdict.feasible else "no",
        s.result.cost_per_unit,
        f"{min(spread):.3f}–{max(spread):.3f}" if len(spread) > 1 else "",
        s.result.worst_p90 / 3600.0,
        s.result.availability * 100,
        s.result.completed_share * 100,
        "; ".join(s.verdict.violated),
        *(choices[p].short() if p in choices else "" for p in pools),
    ]


def build_report(result: SearchResult, title: str, currency: str) -> Page:
    """The whole page."""
    page = Page(
        f"gpuplane plan: {title}", subtitle=f"{result.mode}, {result.space_size:,} designs in the space"
    )
    winner = result.winner
    w = winner.result if winner else None
    page.section(
        "Verdict",
        cards(
            [
                ("spec as given", _unit_cost(result.reference.result.cost_per_unit, currency)),
                ("winner", _unit_cost(w.cost_per_unit, currency) if w else "none meets the goal"),
                (
                    "rented VMs",
                    f"{w.rental_per_unit:,.3f} {currency}/unit" if w and w.rental_per_unit else "–",
                ),
                ("model API", f"{w.api_per_unit:,.3f} {currency}/unit" if w and w.api_per_unit else "–"),
            ]
        ),
        *(Html(f"<p>{esc(line)}</p>") for line in summary_lines(result, currency)),
        note("Goal: minimise cost per accepted unit subject to " + "; ".join(c.text for c in result.goal)),
    )
    front = pareto_front(result.evaluated)
    page.section(
        "Pareto front",
        figure(
            pareto_chart(result.evaluated, front, winner.design.id if winner else None, currency),
            "Each point is a design run on the whole trace with the first seed; the line joins the designs no other beats on both axes.",
        ),
    )
    pools = [name for name, _ in result.reference.design.choices]
    headers = [
        "#",
        "design",
        "meets goal",
        f"{currency}/unit",
        "spread (seeds)",
        "worst p90 wait h",
        "availability %",
        "completed %",
        "violates",
        *pools,
    ]
    rows = [_row(i, s, pools) for i, s in enumerate(ranked(result)[:20], start=1)]
    page.section("Best designs", figure(table(headers, rows, float_format=",.3f")))
    cheaper = next_cheaper(result)
    if winner is not None:
        why = [f"Binding constraint of the winner: {winner.verdict.binding}."]
        if cheaper is not None:
            why.append(
                f"The next cheaper design {cheaper.design.id} ({cheaper.design.label()}) violates: {'; '.join(cheaper.verdict.violated) or 'nothing on the first seed (a finalist seed missed)'}."
            )
        page.section("Why this design", *why)
        changes = result.quota_changes
        page.section(
            "Quota changes",
            Html(f"<p>{esc(quota_summary(result.quota_mode, changes)[0])}</p>"),
            *(
                [
                    table(
                        ["team", "pool", "resource", "field", "spec as given", "winner", "guarantee removed"],
                        [
                            [
                                c.team,
                                c.pool,
                                c.resource,
                                c.field,
                                "none" if c.before is None else c.before,
                                "none" if c.after is None else c.after,
                                "yes" if c.guarantee_removed else "",
                            ]
                            for c in changes
                        ],
                    )
                ]
                if changes
                else []
            ),
        )
        page.section(
            "Baselines",
            table(
                ["way to buy the same accepted work", f"{currency} per accepted unit"],
                [
                    ["this cluster (the winner)", w.cost_per_unit if w else None],
                    ["rented on-demand VMs, one per pod, no queue", w.rental_per_unit if w else None],
                    ["model API at the given prices", w.api_per_unit if w else None],
                ],
                float_format=",.4f",
            ),
        )
    rungs: list[list[str | int | float | None]] = [[f"{r.fraction:.3f}", len(r.scored)] for r in result.rungs]
    page.section(
        "Search",
        table(["trace fraction", "designs"], rungs),
        f"{len(result.invalid)} combinations were not valid specs and were skipped.",
    )
    return page
