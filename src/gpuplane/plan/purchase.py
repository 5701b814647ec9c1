"""The purchase-mix dimension of the design space: how many of a pool's nodes to reserve, per
term, under the on-demand (or spot) burst.

The reserved count does not change what the twin schedules (a reserved node is a node like any
other; the reservation changes what is paid), so one twin run of a design gives the node-count
history, and every candidate count is priced on it through the one cost path
(`gpuplane.purchase.amortise.paid_nodes`: covered + burst + unused reservation). The cheapest
candidate is the choice; the report states the break-even utilisation r/p per term
(`gpuplane.purchase.breakeven`) and the risks of the options (spot evictions, block end).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpuplane.purchase.amortise import paid_nodes
from gpuplane.purchase.breakeven import break_even_utilisation, busy_distribution, optimal_reserved
from gpuplane.purchase.mix import Commitment, PurchaseMix
from gpuplane.sim.engine import Outcome
from gpuplane.spec import PlatformSpec

__all__ = ["ReservedChoice", "TermOffer", "choose_reserved", "purchase_choices", "risks"]


@dataclass(frozen=True)
class TermOffer:
    """A reservation term on offer: its name (1y, 3y) and price per node-hour."""

    term: str
    hourly: float


@dataclass(frozen=True)
class ReservedChoice:
    """The cheapest reserved count for one term, and why."""

    pool: str
    term: str
    reserved_hourly: float
    burst_hourly: float
    break_even: float  # r / p
    count: int  # cheapest candidate, priced on the twin's history
    theory_count: int  # largest k with P(busy >= k) >= r/p on the same history
    cost: float  # total paid over the window with `count` reserved
    cost_without: float  # all burst (0 reserved)
    costs: tuple[tuple[int, float], ...]  # (candidate count, total paid)

    def as_dict(self) -> dict[str, Any]:
        """Plain data for plan.json."""
        return {
            "pool": self.pool,
            "term": self.term,
            "reserved_hourly": self.reserved_hourly,
            "burst_hourly": self.burst_hourly,
            "break_even_utilisation": round(self.break_even, 6),
            "reserved_count": self.count,
            "theory_count": self.theory_count,
            "cost": round(self.cost, 2),
            "cost_all_burst": round(self.cost_without, 2),
            "costs": [[k, round(c, 2)] for k, c in self.costs],
        }


def choose_reserved(
    pool: str,
    t: Sequence[float],
    nodes: Sequence[int],
    end: float,
    burst_hourly: float,
    offers: Sequence[TermOffer],
    candidates: Sequence[int],
) -> list[ReservedChoice]:
    """Per term, price each candidate reserved count on the node history and keep the cheapest
    (ties: the smaller count, the smaller commitment)."""
    pmf = busy_distribution(t, nodes, end)
    out = []
    for offer in offers:
        costs = []
        for k in sorted(set(candidates)):
            mix = PurchaseMix(pool, (Commitment("reserved", k, offer.hourly, offer.term),) if k else ())
            costs.append((k, paid_nodes(mix, t, nodes, t[0] if t else 0.0, end, burst_hourly).total))
        best = min(costs, key=lambda kc: (round(kc[1], 9), kc[0]))
        zero = paid_nodes(PurchaseMix(pool), t, nodes, t[0] if t else 0.0, end, burst_hourly).total
        out.append(
            ReservedChoice(
                pool=pool,
                term=offer.term,
                reserved_hourly=offer.hourly,
                burst_hourly=burst_hourly,
                break_even=break_even_utilisation(offer.hourly, burst_hourly),
                count=best[0],
                theory_count=optimal_reserved(offer.hourly, burst_hourly, pmf),
                cost=best[1],
                cost_without=zero,
                costs=tuple(costs),
            )
        )
    return out


def risks(mix: PurchaseMix | None, spot: bool) -> list[str]:
    """What can take a pool's nodes away, in words for the plan report."""
    out = []
    if spot:
        out.append("spot burst: nodes can be evicted at any time; work since the last checkpoint is lost")
    for c in mix.commitments if mix else ():
        if c.terminates:
            out.append(
                f"capacity block of {c.count} nodes ends at t={c.end:g}s: its pods are evicted at the block end"
            )
    if mix and mix.flex is not None:
        out.append(
            f"flex-start: nodes arrive after {mix.flex.delay_s:g}s and run at most {mix.flex.max_run_s:g}s"
        )
    return out


def purchase_choices(spec: PlatformSpec, outcome: Outcome) -> tuple[dict[str, Any], ...]:
    """For every twin pool whose spec declares reserved segments: per term, the cheapest reserved
    count (0..maxNodes) priced on this run's node history, the break-even r/p and the risks."""
    out: list[dict[str, Any]] = []
    for model in outcome.pools:
        pool = spec.pool(model.name)
        if pool is None:
            continue
        offers = [
            TermOffer(s.term or s.option, s.hourly)
            for s in pool.purchase
            if s.option == "reserved" and s.hourly is not None
        ]
        if not offers:
            continue
        series = outcome.series[model.index]
        burst = model.price.spot_hourly if model.spot else model.price.on_demand_hourly
        t, nodes = list(series.t), list(series.nodes)
        for choice in choose_reserved(
            model.name, t, nodes, outcome.end, burst, offers, range(pool.max_nodes + 1)
        ):
            row = choice.as_dict()
            row["risks"] = risks(model.price.mix, model.spot)
            out.append(row)
    return tuple(out)
