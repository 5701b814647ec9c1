"""The purchase-options catalog: every entry has source and date, unpublished figures stay None,
and the block durations follow the providers' published rules."""

from __future__ import annotations

import pytest

from gpuplane.catalog import PROVIDERS
from gpuplane.catalog.purchase import OPTION_KINDS, purchase_option, purchase_options


def test_every_entry_has_source_date_and_a_known_kind() -> None:
    options = purchase_options()
    assert {p for p, _ in options} == set(PROVIDERS)
    for (provider, kind), option in options.items():
        assert option.kind == kind and kind in OPTION_KINDS
        assert option.source.strip() and option.date[:4].isdigit(), (provider, kind)
        # A price or discount that is absent must say why.
        if option.price is None or option.discount is None:
            assert option.note, (provider, kind)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_provider_sells_a_reservation_with_1y_and_3y_terms(provider: str) -> None:
    option = purchase_option(provider, "reserved")
    assert option is not None and option.terms == ("1y", "3y")
    assert option.paid_whether_used
    # No researched source publishes a per-family discount: none is invented.
    assert option.discount is None and option.price is None


# AWS: "1-day increments up to 14 days, then 7-day increments up to 182 days".
AWS_ALLOWED = [*range(1, 15), 21, 28, 35, 182]
AWS_REFUSED = [0, 15, 16, 20, 22, 181, 183, 189, 1.5]


@pytest.mark.parametrize("days", AWS_ALLOWED)
def test_aws_capacity_block_durations_allowed(days: int) -> None:
    block = purchase_option("eks", "capacity-block")
    assert block is not None and block.durations is not None
    assert block.durations.allows(days)


@pytest.mark.parametrize("days", AWS_REFUSED)
def test_aws_capacity_block_durations_refused(days: float) -> None:
    block = purchase_option("eks", "capacity-block")
    assert block is not None and block.durations is not None
    assert not block.durations.allows(days)


def test_aws_capacity_block_end_rules() -> None:
    block = purchase_option("eks", "capacity-block")
    assert block is not None
    assert block.end_time_utc == "11:30" and block.at_end == "terminate"
    assert block.payments == ("all-upfront",) and block.price is None
    assert (block.max_instances_per_block, block.max_instances_total) == (64, 256)


def test_gcp_flex_start_discount_is_a_ceiling_not_a_rate() -> None:
    flex = purchase_option("gke", "flex-start")
    assert flex is not None
    assert flex.max_run_hours == 7 * 24
    assert flex.discount is None and flex.discount_ceiling == 0.53
    assert flex.provisioning_delay_hours is None and "provisioning" in flex.note
    assert not flex.paid_whether_used


def test_gcp_calendar_reservation_up_to_90_days_paid_whether_used() -> None:
    cal = purchase_option("gke", "calendar-reservation")
    assert cal is not None and cal.durations is not None
    assert cal.durations.allows(90) and cal.durations.allows(1) and not cal.durations.allows(91)
    assert cal.paid_whether_used


def test_options_a_provider_does_not_sell_are_absent() -> None:
    assert purchase_option("aks", "flex-start") is None
    assert purchase_option("gke", "capacity-block") is None
