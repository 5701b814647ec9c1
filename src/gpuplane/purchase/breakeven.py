"""How many nodes to reserve: the newsvendor rule for capacity.

A reserved node costs `r` per hour whether used or not; a node bought on demand costs `p` per hour
only while it runs (r < p). With `B` the number of busy nodes (a random variable over the hours),
reserving one more node, the k-th, saves `p` in every hour where B >= k and costs `r` in every hour,
so it pays off exactly when P(B >= k) * p >= r. Expected cost per hour
``C(k) = k r + p E[max(B - k, 0)]`` is convex in k with ``C(k) - C(k-1) = r - p P(B >= k)``, so the
cost-optimal count is the largest k with ``P(B >= k) >= r / p`` (0 when none). ``r / p`` is the
break-even utilisation: the share of hours a reserved node must be busy to pay off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = [
    "break_even_utilisation",
    "busy_distribution",
    "expected_hourly_cost",
    "optimal_reserved",
    "survival",
]


def break_even_utilisation(reserved_hourly: float, on_demand_hourly: float) -> float:
    """r / p: the share of hours a reserved node must be busy to cost less than on demand."""
    if on_demand_hourly <= 0:
        raise ValueError("on-demand price must be positive")
    if reserved_hourly < 0:
        raise ValueError("reserved price must not be negative")
    return reserved_hourly / on_demand_hourly


def _check(pmf: Mapping[int, float]) -> None:
    if any(k < 0 for k in pmf) or any(v < 0 for v in pmf.values()):
        raise ValueError("a distribution of busy nodes has non-negative counts and probabilities")
    total = sum(pmf.values())
    if abs(total - 1.0) > 1e-9:
        raise ValueError(f"probabilities sum to {total}, not 1")


def survival(pmf: Mapping[int, float], k: int) -> float:
    """P(B >= k)."""
    return float(sum(v for n, v in pmf.items() if n >= k))


def optimal_reserved(reserved_hourly: float, on_demand_hourly: float, pmf: Mapping[int, float]) -> int:
    """The largest k with P(B >= k) >= r / p (0 when even one reserved node does not pay off)."""
    _check(pmf)
    ratio = break_even_utilisation(reserved_hourly, on_demand_hourly)
    best = 0
    for k in range(1, max(pmf, default=0) + 1):
        if survival(pmf, k) >= ratio - 1e-12:
            best = k
    return best


def expected_hourly_cost(
    k: int, reserved_hourly: float, on_demand_hourly: float, pmf: Mapping[int, float]
) -> float:
    """C(k) = k r + p E[max(B - k, 0)]: reserved nodes always paid, the rest on demand while busy."""
    _check(pmf)
    burst = sum(v * max(n - k, 0) for n, v in pmf.items())
    return k * reserved_hourly + on_demand_hourly * burst


def busy_distribution(t: Sequence[float], nodes: Sequence[int], end: float) -> dict[int, float]:
    """The share of [t[0], end) spent at each node count of a step series (a value holds until the
    next sample): the empirical distribution of B."""
    if len(t) != len(nodes):
        raise ValueError("t and nodes differ in length")
    if not t:
        return {0: 1.0}
    span = end - t[0]
    if span <= 0:
        raise ValueError("end must be after the first sample")
    out: dict[int, float] = {}
    for i, n in enumerate(nodes):
        nxt = t[i + 1] if i + 1 < len(t) else end
        out[int(n)] = out.get(int(n), 0.0) + (min(nxt, end) - t[i]) / span
    return out
