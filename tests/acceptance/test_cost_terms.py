"""acceptance prices its window with the same declared terms as simulate and account (issue 21)."""

from __future__ import annotations

import json

import pytest

from gpuplane.acceptance.costing import cluster_cost, price_info
from gpuplane.spec import parse_spec
from tests.account.test_every_cost_term import HAND, SPEC


def test_acceptance_prices_every_declared_term() -> None:
    spec, _ = parse_spec(SPEC, "s.yaml", priced=True)
    prices = json.loads(json.dumps(price_info(spec, spec.node_pools[0], 8)))  # as suite.json keeps it
    # 16 allocated GPU-hours at 8.00 / 8 GPUs, activity 0.5, over a 10-hour window, 1 accepted unit.
    cost = cluster_cost(prices, 16.0, 0.0, 0.5, 10.0, accepted_units=1.0).breakdown
    assert cost.gpu == pytest.approx(16.0)
    for term, value in HAND.items():
        assert cost.term(term) == (None if value is None else pytest.approx(value)), term
    assert round(cost.total, 2) == 45.60  # 16.00 + 2.00 + 6.60 + 1.00 + 10.00 + 10.00
