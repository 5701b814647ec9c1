"""Figures of a run: waits per team, GPU-hours and costs per pool and team, cost per accepted unit.

`summarize` turns an `Outcome` into one typed `RunSummary` (sim/summary.py) that feeds the
terminal summary, `--json`, the HTML report, the what-if comparison and `gpuplane plan`, so they
can never disagree. Costs use the shared model in `gpuplane.costs`: GPU time split into useful /
idle / failed / evicted-and-lost / unallocated, plus the spec's support, operations, storage and
network overheads prorated over the window.
"""

from __future__ import annotations

import math
from collections import Counter

from gpuplane.costs import (
    CostBreakdown,
    GpuHours,
    Overheads,
    gpu_hour_price,
    price_gpu_hours,
    purchase_pool_cost,
    sum_breakdowns,
)
from gpuplane.sim.config import SimConfig
from gpuplane.sim.engine import Outcome
from gpuplane.sim.state import DONE, LEDGER_KINDS
from gpuplane.sim.summary import (
    Availability,
    Baselines,
    PoolFigures,
    RunSummary,
    TeamFigures,
    WaitStats,
    WorkloadCounts,
)
from gpuplane.traces import WORKLOAD_CLASSES


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of already sorted values (0 for none)."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(q / 100.0 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def wait_stats(waits: list[float]) -> WaitStats:
    """Count, mean and percentiles of waits in seconds."""
    ordered = sorted(waits)
    return WaitStats(
        n=len(ordered),
        mean_s=sum(ordered) / len(ordered) if ordered else 0.0,
        p50_s=percentile(ordered, 50),
        p90_s=percentile(ordered, 90),
        p99_s=percentile(ordered, 99),
        max_s=ordered[-1] if ordered else 0.0,
    )


def _ledger_hours(gs: list[float], provisioned_h: float | None = None) -> GpuHours:
    """Ledger GPU-seconds (one list of the ledger's kinds) as GpuHours; with `provisioned_h`, the
    provisioned GPU time nobody held becomes `unallocated`."""
    held = {kind.value: gs[k] / 3600.0 for k, kind in enumerate(LEDGER_KINDS)}
    if provisioned_h is not None:
        held["unallocated"] = max(0.0, provisioned_h - sum(gs) / 3600.0)
    return GpuHours(**held)


def _pool_hours(outcome: Outcome) -> list[GpuHours]:
    out = []
    for pool in outcome.pools:
        provisioned = outcome.billing.node_seconds[pool.index] * pool.gpus_per_node / 3600.0
        out.append(_ledger_hours(outcome.ledger.by_pool(pool.index), provisioned))
    return out


def _team_costs(
    outcome: Outcome, currency: str, gpu_prices: list[float] | None = None
) -> list[CostBreakdown]:
    return [
        sum_breakdowns(
            (
                price_gpu_hours(
                    _ledger_hours(outcome.ledger.gs[t][pool.index]),
                    pool.price.gpu_hourly if gpu_prices is None else gpu_prices[pool.index],
                    currency,
                )
                for pool in outcome.pools
            ),
            currency,
        )
        for t in range(len(outcome.teams))
    ]


def _counts(outcome: Outcome) -> WorkloadCounts:
    counts = Counter(r.outcome for r in outcome.runs)
    return WorkloadCounts(
        total=len(outcome.runs),
        **{
            name: counts.get(name, 0)
            for name in ("completed", "failed", "killed", "running", "admitted", "pending", "rejected")
        },
    )


def _waits(outcome: Outcome) -> list[tuple[WaitStats, WaitStats, WaitStats]]:
    """(queue, quota, capacity) wait stats per team, over the workloads that started."""
    per_team: list[tuple[list[float], list[float], list[float]]] = [([], [], []) for _ in outcome.teams]
    for r in outcome.runs:
        if r.first_start is None or r.outcome == "rejected":
            continue
        total, quota, capacity = per_team[r.team]
        total.append(r.quota_wait + r.capacity_wait)
        quota.append(r.quota_wait)
        capacity.append(r.capacity_wait)
    return [(wait_stats(a), wait_stats(b), wait_stats(c)) for a, b, c in per_team]


def _waits_so_far(outcome: Outcome) -> tuple[list[WaitStats], tuple[tuple[str, WaitStats], ...]]:
    """Queue waits of every workload not rejected, per team and per class (in `WORKLOAD_CLASSES`
    order): one that never started counts the wait it has at the end of the window."""
    by_team: list[list[float]] = [[] for _ in outcome.teams]
    by_class: dict[str, list[float]] = {}
    for r in outcome.runs:
        if r.outcome == "rejected" or r.team < 0:
            continue
        wait = r.quota_wait + r.capacity_wait if r.first_start is not None else outcome.end - r.submit
        by_team[r.team].append(max(wait, 0.0))
        by_class.setdefault(r.w.klass, []).append(max(wait, 0.0))
    classes = tuple((c, wait_stats(by_class[c])) for c in WORKLOAD_CLASSES if c in by_class)
    return [wait_stats(waits) for waits in by_team], classes


def _accepted(outcome: Outcome, config: SimConfig) -> float:
    return sum(
        config.unit_weight(r.w.klass) for r in outcome.runs if r.state == DONE and r.outcome == "completed"
    )


def _availability(outcome: Outcome) -> Availability:
    services = [r for r in outcome.runs if r.w.klass == "inference" and r.first_start is not None]
    up = sum(
        max(0.0, (r.end if r.end is not None else outcome.end) - r.first_start)
        for r in services
        if r.first_start is not None
    )
    down = sum(r.downtime for r in services)
    return Availability(len(services), down, 1.0 - down / up if up > 0 else 1.0)


def _pools(
    outcome: Outcome, hours: list[GpuHours], costs: list[CostBreakdown], gpu_prices: list[float]
) -> tuple[PoolFigures, ...]:
    billing = outcome.billing
    return tuple(
        PoolFigures(
            name=pool.name,
            gpu_hours=h,
            cost=c,
            gpu_hour_price=price,
            nodes_created=billing.nodes_created[pool.index],
            nodes_removed=billing.nodes_removed[pool.index],
            spot_evictions=billing.spot_evictions[pool.index],
            node_failures=billing.node_failures[pool.index],
            peak_nodes=max(outcome.series[pool.index].nodes, default=0),
        )
        for pool, h, c, price in zip(outcome.pools, hours, costs, gpu_prices, strict=True)
    )


def summarize(
    outcome: Outcome,
    config: SimConfig,
    overheads: Overheads | None = None,
    name: str = "",
    *,
    workload: str = "",
    skipped_rows: int = 0,
    baselines: Baselines | None = None,
) -> RunSummary:
    """Every figure of a run as a typed `RunSummary` (`workload` names the trace in reports)."""
    overheads = overheads or Overheads()
    currency = overheads.currency
    window_h = outcome.end / 3600.0
    hours = _pool_hours(outcome)
    priced = [
        purchase_pool_cost(
            p.price,
            h,
            list(outcome.series[p.index].t),
            list(outcome.series[p.index].nodes),
            0.0,
            outcome.end,
            currency,
        )
        for h, p in zip(hours, outcome.pools, strict=True)
    ]
    pool_costs = [cost for cost, _ in priced]
    # The GPU-hour price each pool's time was charged at (amortised with a purchase mix).
    gpu_prices = [
        p.price.gpu_hourly
        if paid is None
        else gpu_hour_price(paid.amortised_node_hourly, p.price.gpus_per_node)
        for p, (_, paid) in zip(outcome.pools, priced, strict=True)
    ]
    units = _accepted(outcome, config)
    allocated_h = sum(h.allocated for h in hours)
    extra = overheads.for_window(
        window_h,
        accepted_units=units,
        gpu_hours=allocated_h,
        cpu_node_hours=outcome.cpu_node_hours or None,  # the CPU nodes the twin ran (sim/cpu_nodes.py)
    )
    total = sum_breakdowns(pool_costs, currency) + extra
    reasons = Counter(outcome.pending_reasons.values())
    so_far, class_waits = _waits_so_far(outcome)
    teams = tuple(
        TeamFigures(team, cost, *waits, wait_so_far=all_waits)
        for team, cost, waits, all_waits in zip(
            outcome.teams, _team_costs(outcome, currency, gpu_prices), _waits(outcome), so_far, strict=True
        )
    )
    return RunSummary(
        platform=name,
        seed=config.seed,
        window_hours=window_h,
        currency=currency,
        workloads=_counts(outcome),
        accepted_units=units,
        cost_per_accepted_unit=total.per_accepted_unit(units),
        cost=total,
        overheads=extra,
        pools=_pools(outcome, hours, pool_costs, gpu_prices),
        teams=teams,
        evictions=sum(r.evictions for r in outcome.runs),
        preemptions=sum(r.preemptions for r in outcome.runs),
        inference=_availability(outcome),
        pending_reasons=tuple(sorted(reasons.most_common(10))),
        events=outcome.events,
        cycles=outcome.cycles,
        warnings=tuple(outcome.warnings),
        workload=workload,
        skipped_rows=skipped_rows,
        baselines=baselines,
        class_waits=class_waits,
    )
