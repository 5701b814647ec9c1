"""The shared cost model: components add up, prices split per GPU, monthly charges prorate."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuplane.costs import (
    HOURS_PER_MONTH,
    CostBreakdown,
    GpuHours,
    Overheads,
    PoolPrice,
    gpu_hour_price,
    price_gpu_hours,
    prorate_monthly,
    sum_breakdowns,
)

hours = st.floats(min_value=0, max_value=1e6, allow_nan=False)


@given(hours, hours, hours, hours, hours, st.floats(min_value=0, max_value=100, allow_nan=False))
def test_priced_gpu_hours_add_up_to_provisioned_cost(
    useful: float, idle: float, failed: float, lost: float, unalloc: float, price: float
) -> None:
    h = GpuHours(useful=useful, idle=idle, failed=failed, evicted_lost=lost, unallocated=unalloc)
    cost = price_gpu_hours(h, price)
    assert math.isclose(cost.gpu, h.provisioned * price, rel_tol=1e-9, abs_tol=1e-6)
    assert math.isclose(h.allocated + h.unallocated, h.provisioned, rel_tol=1e-12, abs_tol=1e-9)


def test_total_includes_overheads_and_per_unit_divides_it() -> None:
    cost = CostBreakdown(useful=60, idle=20, failed=10, network=4, storage=3, support=2, operations=1)
    assert cost.total == 100
    assert cost.per_accepted_unit(4) == 25
    assert cost.per_accepted_unit(0) is None


def test_gpu_hour_price_splits_the_node_over_its_gpus() -> None:
    assert gpu_hour_price(98.32, 8) == pytest.approx(12.29)
    with pytest.raises(ValueError):
        gpu_hour_price(1.0, 0)


def test_pool_price_uses_spot_only_for_spot_pools() -> None:
    spot = PoolPrice("a", on_demand_hourly=3.67, spot_hourly=1.10, spot=True, gpus_per_node=1)
    regular = PoolPrice("b", on_demand_hourly=40.0, spot_hourly=10.0, spot=False, gpus_per_node=8)
    assert spot.gpu_hourly == 1.10
    assert regular.gpu_hourly == 5.0


def test_monthly_charges_prorate_by_hours_of_a_730_hour_month() -> None:
    assert prorate_monthly(7300, 168) == pytest.approx(1680)
    assert prorate_monthly(5000, HOURS_PER_MONTH) == pytest.approx(5000)
    with pytest.raises(ValueError):
        prorate_monthly(1, -1)


def test_overheads_for_a_week() -> None:
    over = Overheads(
        support_monthly=2000, operations_monthly=5000, storage_per_gib_month=0.10, network_per_gib=0.02
    )
    week = over.for_window(168, storage_gib=1000, network_gib=500)
    assert week.support == pytest.approx(2000 * 168 / 730)
    assert week.operations == pytest.approx(5000 * 168 / 730)
    assert week.storage == pytest.approx(100 * 168 / 730)
    assert week.network == pytest.approx(10)
    assert week.gpu == 0


def test_breakdowns_add_and_refuse_mixed_currencies() -> None:
    a = CostBreakdown(useful=1, idle=2)
    b = CostBreakdown(failed=3, support=4)
    total = sum_breakdowns([a, b])
    assert (total.useful, total.idle, total.failed, total.support) == (1, 2, 3, 4)
    assert a.scaled(2).idle == 4
    with pytest.raises(ValueError):
        _ = a + CostBreakdown(currency="EUR")


def test_as_dict_lists_components_gpu_and_total() -> None:
    d = CostBreakdown(useful=1, network=2).as_dict()
    assert d["gpu"] == 1 and d["total"] == 3 and d["currency"] == "USD"


def test_pool_price_from_an_example_spec_prices_spot_pools_at_spot(repo_dir: Path) -> None:
    from gpuplane.costs import pool_price
    from gpuplane.spec import load_spec

    spec = load_spec(repo_dir / "examples" / "aks-platform.yaml")
    pools = {p.name: p for p in spec.node_pools}
    spot = pool_price(spec, pools["a100-spot"])
    on_demand = pool_price(spec, pools["a100-mig"])
    assert spot.spot and not on_demand.spot
    assert spot.gpu_hourly == spot.spot_hourly / spot.gpus_per_node
    assert on_demand.gpu_hourly == on_demand.on_demand_hourly / on_demand.gpus_per_node
    assert 0 < spot.gpu_hourly < on_demand.gpu_hourly


def test_overheads_from_spec_read_the_costs_section(repo_dir: Path) -> None:
    from gpuplane.spec import load_spec

    over = Overheads.from_spec(load_spec(repo_dir / "examples" / "aks-platform.yaml"))
    assert (over.support_monthly, over.operations_monthly, over.currency) == (1500, 4000, "USD")
