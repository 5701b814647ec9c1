"""Figures of a run: waits per team, GPU-hours and costs per pool and team, cost per accepted unit.

One plain, JSON-ready dict (`summarize`) feeds the terminal summary, `--json`, the HTML report
and the what-if comparison, so they can never disagree. Costs use the shared model in
`gpuplane.costs`: GPU time split into useful / idle / failed / evicted-and-lost / unallocated,
plus the spec's support, operations, storage and network overheads prorated over the window.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from gpuplane.costs import GPU_TIME_KINDS, CostBreakdown, GpuHours, Overheads, price_gpu_hours, sum_breakdowns
from gpuplane.sim.config import SimConfig
from gpuplane.sim.engine import Outcome
from gpuplane.sim.state import DONE, FAILED, IDLE, LEDGER_KINDS, LOST, USEFUL

DIGITS = 6


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of already sorted values (0 for none)."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(q / 100.0 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def _r(value: float) -> float:
    return round(value, DIGITS) + 0.0


def wait_stats(waits: list[float]) -> dict[str, float]:
    """Count, mean and percentiles of waits in seconds."""
    ordered = sorted(waits)
    mean = sum(ordered) / len(ordered) if ordered else 0.0
    return {
        "n": len(ordered),
        "mean_s": _r(mean),
        "p50_s": _r(percentile(ordered, 50)),
        "p90_s": _r(percentile(ordered, 90)),
        "p99_s": _r(percentile(ordered, 99)),
        "max_s": _r(ordered[-1] if ordered else 0.0),
    }


def _gpu_hours(outcome: Outcome) -> list[dict[str, float]]:
    rows = []
    for pool in outcome.pools:
        kinds = outcome.ledger.by_pool(pool.index)
        provisioned = outcome.billing.node_seconds[pool.index] * pool.gpus_per_node / 3600.0
        allocated = sum(kinds) / 3600.0
        rows.append(
            {
                "provisioned": provisioned,
                "allocated": allocated,
                "useful": kinds[USEFUL] / 3600.0,
                "idle": kinds[IDLE] / 3600.0,
                "failed": kinds[FAILED] / 3600.0,
                "evicted_lost": kinds[LOST] / 3600.0,
                "unallocated": max(0.0, provisioned - allocated),
            }
        )
    return rows


def _pool_costs(outcome: Outcome, hours: list[dict[str, float]], currency: str) -> list[CostBreakdown]:
    out = []
    for pool, h in zip(outcome.pools, hours, strict=True):
        gpu_hours = GpuHours(**{k.value: h[k.value] for k in GPU_TIME_KINDS if k.value in h})
        out.append(price_gpu_hours(gpu_hours, pool.price.gpu_hourly, currency))
    return out


def _team_costs(outcome: Outcome, currency: str) -> list[CostBreakdown]:
    out = []
    for t in range(len(outcome.teams)):
        costs = [
            price_gpu_hours(
                GpuHours(
                    **{
                        kind.value: outcome.ledger.gs[t][pool.index][k] / 3600.0
                        for k, kind in enumerate(LEDGER_KINDS)
                    }
                ),
                pool.price.gpu_hourly,
                currency,
            )
            for pool in outcome.pools
        ]
        out.append(sum_breakdowns(costs, currency))
    return out


def _costs_dict(c: CostBreakdown) -> dict[str, float]:
    return {k: _r(v) for k, v in c.as_dict().items() if k != "currency"}


def _outcomes(outcome: Outcome) -> dict[str, int]:
    counts = Counter(r.outcome for r in outcome.runs)
    return {
        name: counts.get(name, 0)
        for name in ("completed", "failed", "killed", "running", "admitted", "pending", "rejected")
    }


def _waits(outcome: Outcome) -> dict[str, Any]:
    per_team: dict[str, dict[str, list[float]]] = {
        t: {"total": [], "quota": [], "capacity": []} for t in outcome.teams
    }
    for r in outcome.runs:
        if r.first_start is None or r.outcome == "rejected":
            continue
        team = per_team[outcome.teams[r.team]]
        team["total"].append(r.quota_wait + r.capacity_wait)
        team["quota"].append(r.quota_wait)
        team["capacity"].append(r.capacity_wait)
    return {
        name: {
            "queue_wait": wait_stats(w["total"]),
            "quota_wait": wait_stats(w["quota"]),
            "capacity_wait": wait_stats(w["capacity"]),
        }
        for name, w in per_team.items()
    }


def _accepted(outcome: Outcome, config: SimConfig) -> float:
    return sum(
        config.unit_weight(r.w.klass) for r in outcome.runs if r.state == DONE and r.outcome == "completed"
    )


def _availability(outcome: Outcome) -> dict[str, float]:
    services = [r for r in outcome.runs if r.w.klass == "inference" and r.first_start is not None]
    up = sum(
        max(0.0, (r.end if r.end is not None else outcome.end) - r.first_start)
        for r in services
        if r.first_start is not None
    )
    down = sum(r.downtime for r in services)
    return {
        "services": len(services),
        "downtime_s": _r(down),
        "availability": _r(1.0 - down / up if up > 0 else 1.0),
    }


def summarize(
    outcome: Outcome, config: SimConfig, overheads: Overheads | None = None, name: str = ""
) -> dict[str, Any]:
    """Every figure of a run as a plain dict (stable keys, rounded floats)."""
    overheads = overheads or Overheads()
    currency = overheads.currency
    window_h = outcome.end / 3600.0
    hours = _gpu_hours(outcome)
    pool_costs = _pool_costs(outcome, hours, currency)
    extra = overheads.for_window(window_h)
    total = sum_breakdowns(pool_costs, currency) + extra
    units = _accepted(outcome, config)
    per_unit = total.per_accepted_unit(units)
    reasons = Counter(outcome.pending_reasons.values())
    waits = _waits(outcome)
    return {
        "platform": name,
        "seed": config.seed,
        "window_hours": _r(window_h),
        "currency": currency,
        "workloads": {"total": len(outcome.runs), **_outcomes(outcome)},
        "accepted_units": _r(units),
        "cost_per_accepted_unit": None if per_unit is None else _r(per_unit),
        "cost": _costs_dict(total),
        "overheads": _costs_dict(extra),
        "pools": {
            pool.name: {
                "gpu_hours": {k: _r(v) for k, v in h.items()},
                "cost": _costs_dict(c),
                "gpu_hour_price": _r(pool.gpu_second_price * 3600.0),
                "nodes_created": outcome.billing.nodes_created[pool.index],
                "nodes_removed": outcome.billing.nodes_removed[pool.index],
                "spot_evictions": outcome.billing.spot_evictions[pool.index],
                "node_failures": outcome.billing.node_failures[pool.index],
                "peak_nodes": max(outcome.series[pool.index].nodes, default=0),
            }
            for pool, h, c in zip(outcome.pools, hours, pool_costs, strict=True)
        },
        "teams": {
            name: {"cost": _costs_dict(c), **waits[name]}
            for name, c in zip(outcome.teams, _team_costs(outcome, currency), strict=True)
        },
        "interruptions": {
            "evictions": sum(r.evictions for r in outcome.runs),
            "preemptions": sum(r.preemptions for r in outcome.runs),
        },
        "inference": _availability(outcome),
        "pending_reasons": dict(sorted(reasons.most_common(10))),
        "engine": {"events": outcome.events, "cycles": outcome.cycles},
        "warnings": list(outcome.warnings),
    }
