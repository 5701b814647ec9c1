"""What `gpuplane plan` writes into DIR and prints: the winning spec, plan.json, designs.csv, the
terminal table. Pure functions from the search result to text; writing is in `command`."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from rich.table import Table

from gpuplane.plan.goal import NO_WORK, Constraint, judge
from gpuplane.plan.quotas import summary as quota_summary
from gpuplane.plan.quotas import teams_of
from gpuplane.plan.search import Scored, SearchResult, next_cheaper, pareto_front

CSV_COLUMNS = (
    "rank",
    "design",
    "feasible",
    "cost_per_unit",
    "cost_spread",
    "worst_p90_wait_h",
    "availability",
    "completed_share",
    "total_cost",
    "gpu_hours",
    "rental_per_unit",
    "api_per_unit",
    "violated",
    "design_label",
)


def _spread(s: Scored) -> tuple[float, float] | None:
    costs = [r.cost_per_unit for r in s.runs if r.cost_per_unit is not None]
    return (min(costs), max(costs)) if len(costs) > 1 else None


def scored_dict(s: Scored, goal: Sequence[Constraint] = ()) -> dict[str, Any]:
    """One design as plain data (`seeds_meeting_goal`: of its runs, how many meet `goal` alone)."""
    spread = _spread(s)
    waits = [r.worst_p90 for r in s.runs]
    return {
        "id": s.design.id,
        "label": s.design.label(),
        "choices": {name: asdict(choice) for name, choice in s.design.choices},
        "feasible": s.verdict.feasible,
        "violated": list(s.verdict.violated),
        "binding": s.verdict.binding,
        "result": s.result.as_dict(),
        "seeds": [r.seed for r in s.runs],
        "seeds_meeting_goal": sum(judge(r, goal).feasible for r in s.runs),
        "spread": None
        if spread is None
        else {"cost_per_unit": list(spread), "worst_p90_s": [min(waits), max(waits)]},
    }


def plan_dict(result: SearchResult, context: dict[str, Any]) -> dict[str, Any]:
    """Everything the plan found, for plan.json (stable keys, sorted output)."""
    cheaper = next_cheaper(result)
    winner = result.winner
    return {
        **context,
        "mode": result.mode,
        "space_size": result.space_size,
        "invalid_designs": [
            {"label": "; ".join(f"{n}: {c.label()}" for n, c in i.choices), "reason": i.reason}
            for i in result.invalid
        ],
        "goal": [c.text for c in result.goal],
        "rungs": [{"fraction": r.fraction, "designs": len(r.scored)} for r in result.rungs],
        "reference": scored_dict(result.reference, result.goal),
        "winner": None if winner is None else scored_dict(winner, result.goal),
        "binding_constraint": None if winner is None else winner.verdict.binding,
        "next_cheaper": None
        if cheaper is None
        else {
            "id": cheaper.design.id,
            "label": cheaper.design.label(),
            "cost_per_unit": cheaper.result.cost_per_unit,
            "violated": list(cheaper.verdict.violated),
        },
        "finalists": [scored_dict(s, result.goal) for s in result.finalists],
        "evaluated": [scored_dict(s, result.goal) for s in result.evaluated],
        "pareto": [s.design.id for s in pareto_front(result.evaluated)],
        "quotas": {
            "mode": result.quota_mode,
            "changes": [c.as_dict() for c in result.quota_changes],
            "teams_affected": teams_of(result.quota_changes),
        },
    }


def _num(value: float | None, digits: int = 4) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _per_unit(value: float | None, currency: str) -> str:
    return (
        "no accepted unit (no workload completed)"
        if value is None
        else f"{value:.3f} {currency} per accepted unit"
    )


def ranked(result: SearchResult) -> list[Scored]:
    """Finalists first (best first), then the other designs run on the whole trace."""
    ids = {s.design.id for s in result.finalists}
    return [*result.finalists, *(s for s in result.evaluated if s.design.id not in ids)]


def designs_csv(result: SearchResult) -> str:
    """One row per design run on the whole trace, finalists first."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for rank, s in enumerate(ranked(result), start=1):
        r = s.result
        spread = _spread(s)
        writer.writerow(
            [
                rank,
                s.design.id,
                str(s.verdict.feasible).lower(),
                _num(r.cost_per_unit),
                "" if spread is None else f"{spread[0]:.4f}-{spread[1]:.4f}",
                _num(r.worst_p90 / 3600.0, 3),
                _num(r.availability, 6),
                _num(r.completed_share, 6),
                _num(r.total_cost, 2),
                _num(r.gpu_hours, 1),
                _num(r.rental_per_unit),
                _num(r.api_per_unit),
                "; ".join(s.verdict.violated),
                s.design.label(),
            ]
        )
    return out.getvalue()


def dumps(data: Any) -> str:
    """Stable JSON text."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def table(result: SearchResult, currency: str, rows: int = 5) -> Table:
    """The best designs as a terminal table: one column per searched pool."""
    t = Table(
        title=f"gpuplane plan: best designs ({result.mode}, {result.space_size:,} in the space)",
        title_justify="left",
    )
    pools = [name for name, _ in result.reference.design.choices]
    for name in ("#", "design", "ok", f"{currency}/unit", "p90 wait h", *pools):
        t.add_column(
            name,
            justify="right" if name in ("#", f"{currency}/unit", "p90 wait h") else "left",
            overflow="fold",
        )
    for rank, s in enumerate(ranked(result)[:rows], start=1):
        choices = dict(s.design.choices)
        t.add_row(
            str(rank),
            s.design.id,
            "yes" if s.verdict.feasible else "no",
            _num(s.result.cost_per_unit, 3),
            f"{s.result.worst_p90 / 3600.0:.2f}",
            *(choices[p].short() if p in choices else "" for p in pools),
        )
    return t


def purchase_lines(choices: Sequence[dict[str, Any]], currency: str) -> list[str]:
    """Per pool and reservation term: the reserved count chosen, its break-even, the saving, the risks."""
    lines = []
    for c in choices:
        lines.append(
            f"pool {c['pool']}: reserve {c['reserved_count']} nodes on {c['term']} (break-even utilisation "
            f"r/p = {c['reserved_hourly']:g}/{c['burst_hourly']:g} = {c['break_even_utilisation']:.2f}; "
            f"{c['cost']:,.2f} {currency} vs {c['cost_all_burst']:,.2f} all burst)"
        )
        lines += [f"  risk: {r}" for r in c.get("risks", ())]
    return lines


def summary_lines(result: SearchResult, currency: str) -> list[str]:
    """The verdict in a few lines: the winner, its binding constraint, the next cheaper design, the baselines."""
    ref = result.reference.result
    lines = [f"spec as given: {_per_unit(ref.cost_per_unit, currency)}"]
    winner = result.winner
    if winner is None:
        lines.append("no design meets the goal: " + "; ".join(c.text for c in result.goal))
        if all(s.result.cost_per_unit is None for s in (result.reference, *result.evaluated)):
            lines.append(f"no design can run the workload: every design {NO_WORK}")
        return lines
    w = winner.result
    lines.append(
        f"winner {winner.design.id}: {_per_unit(w.cost_per_unit, currency)} ({winner.design.label()})"
    )
    met = sum(judge(r, result.goal).feasible for r in winner.runs)
    lines.append(
        f"binding constraint: {winner.verdict.binding} (the goal is met by {met} of {len(winner.runs)} seeds alone)"
    )
    cheaper = next_cheaper(result)
    if cheaper is not None:
        lines.append(
            f"next cheaper design {cheaper.design.id} ({_num(cheaper.result.cost_per_unit, 3)}) violates: "
            + ("; ".join(cheaper.verdict.violated) or "nothing on the first seed, but a finalist seed")
        )
    else:
        lines.append("no design run on the whole trace is cheaper")
    lines += quota_summary(result.quota_mode, result.quota_changes)
    lines += purchase_lines(w.purchase, currency)
    lines.append(
        f"baselines per accepted unit: cluster {_num(w.cost_per_unit, 3)}, rented VMs {_num(w.rental_per_unit, 3)}, "
        f"model API {_num(w.api_per_unit, 3) or 'no --api-price'}"
    )
    return lines
