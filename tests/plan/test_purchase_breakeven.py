"""The reserved-count break-even, from theory.

Busy nodes B = 4 (steady) + X, X ~ Binomial(4, 1/2) (bursts): P(X = j) = C(4, j) / 16, so
P(B >= k) = 1 for k <= 4, 15/16 for 5, 11/16 for 6, 5/16 for 7, 1/16 for 8. With reserved price r
and on-demand price p per node-hour the cost-optimal count is the largest k with P(B >= k) >= r/p.
"""

from __future__ import annotations

from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuplane.plan.purchase import TermOffer, choose_reserved
from gpuplane.purchase.breakeven import expected_hourly_cost, optimal_reserved, survival

PMF = {4 + j: comb(4, j) / 16 for j in range(5)}
P = 10.0
# (r, expected k): r/p = 0.95 -> 4 (P(B>=5) = 0.9375 < 0.95); 0.9 -> 5; 0.6 -> 6; 0.3 -> 7;
# 0.05 -> 8; r >= p -> only k with P = 1 ... up to 4 when r/p <= 1.
THEORY = [(9.5, 4), (9.0, 5), (6.0, 6), (3.0, 7), (0.5, 8), (10.0, 4)]


@pytest.mark.parametrize(("r", "k"), THEORY)
def test_optimal_reserved_matches_theory(r: float, k: int) -> None:
    assert optimal_reserved(r, P, PMF) == k


def test_survival_is_the_binomial_tail() -> None:
    assert [survival(PMF, k) for k in range(4, 9)] == [1.0, 15 / 16, 11 / 16, 5 / 16, 1 / 16]


@given(r=st.floats(min_value=0.01, max_value=9.99))
@settings(max_examples=200)
def test_the_rule_is_the_argmin_of_expected_cost(r: float) -> None:
    k = optimal_reserved(r, P, PMF)
    costs = {j: expected_hourly_cost(j, r, P, PMF) for j in range(0, 10)}
    assert costs[k] <= min(costs.values()) + 1e-9


def _history() -> tuple[list[float], list[int], float]:
    """A step series that spends exactly P(B = n) of 16 h at each n (1 h at 4, 4 h at 5, ...),
    in a steady-plus-bursts order."""
    t, nodes, now = [], [], 0.0
    for n in (4, 5, 6, 7, 8, 7, 6, 5, 6, 5, 6, 5, 6, 7, 7, 6):
        t.append(now)
        nodes.append(n)
        now += 3600.0
    return t, nodes, now


def test_history_has_the_binomial_distribution() -> None:
    _, nodes, _ = _history()
    assert {n: nodes.count(n) / 16 for n in set(nodes)} == PMF


@pytest.mark.parametrize(("r", "k"), THEORY[:5])
def test_plan_prices_every_reserved_count_and_finds_k(r: float, k: int) -> None:
    t, nodes, end = _history()
    [choice] = choose_reserved("h100", t, nodes, end, P, [TermOffer("1y", r)], range(0, 11))
    assert abs(choice.count - k) <= 1
    assert choice.theory_count == k
    assert choice.break_even == pytest.approx(r / P)
    # Cost of k reserved over 16 h by hand: 16 k r + p * (node-hours above k).
    above = sum(max(n - choice.count, 0) for n in nodes)
    assert choice.cost == pytest.approx(16 * choice.count * r + P * above)
    assert choice.cost <= choice.cost_without


def test_two_terms_give_two_break_evens() -> None:
    t, nodes, end = _history()
    one, three = choose_reserved(
        "h100", t, nodes, end, P, [TermOffer("1y", 6.0), TermOffer("3y", 3.0)], range(9)
    )
    assert (one.term, one.break_even, one.count) == ("1y", 0.6, 6)
    assert (three.term, three.break_even, three.count) == ("3y", 0.3, 7)
