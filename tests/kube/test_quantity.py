"""Kubernetes quantities are exact integers in milli-units."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuplane.kube.quantity import QuantityError, format_quantity, parse_quantity


@pytest.mark.parametrize(
    ("text", "milli"),
    [
        ("500m", 500),
        ("2", 2000),
        (2, 2000),
        ("1.5", 1500),
        (1.5, 1500),
        ("2k", 2_000_000),
        ("16Gi", 16 * 2**30 * 1000),
        ("1Mi", 2**20 * 1000),
        ("100M", 10**8 * 1000),
        ("1e3", 10**6),
        ("0.1m", 1),
        ("0", 0),
    ],
)
def test_parses_kubernetes_quantities(text: object, milli: int) -> None:
    assert parse_quantity(text) == milli


@pytest.mark.parametrize("bad", ["", "abc", "1.2.3", "5 Gi", "-1", None, True, "1Zi"])
def test_rejects_invalid_quantities(bad: object) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(bad)


@given(st.integers(min_value=0, max_value=10**15))
def test_format_then_parse_round_trips(milli: int) -> None:
    assert parse_quantity(format_quantity(milli)) == milli
