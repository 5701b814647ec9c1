"""Step 7: what the accepted work of the window cost on the cluster, against renting and an API.

The cluster side is priced with the one cost model (`gpuplane.costs`: `pool_price`,
`price_gpu_hours`, `Overheads`) exactly as `simulate` prices a window. The baselines are the
shared ones (`gpuplane.baselines`, as simulate and plan use them): the same pods rented as
on-demand VMs of the provider and region with its billing rule and boot time, and the model API
at the user's price per unit. The rental offer is chosen at render time and kept in suite.json,
so scoring needs no spec.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from gpuplane.baselines import (
    ApiPrices,
    BillingRule,
    RentalMarket,
    RunRequest,
    VmOffer,
    api_baseline,
    market_for,
    rental_baseline,
)
from gpuplane.costs import CostBreakdown, GpuHours, Overheads, pool_price, price_gpu_hours
from gpuplane.spec.models import NodePool, PlatformSpec

__all__ = ["ClusterCost", "api_per_unit", "cluster_cost", "price_info", "rental_per_unit"]

KLASS = "training"


def _rental(spec: PlatformSpec, pool: NodePool, gpus_per_pod: int) -> dict[str, Any] | None:
    """The on-demand VM a rental would use for one suite pod, with the billing rule and boot time."""
    market = market_for(spec)
    offer = market.cheapest((pool.accelerator,) if pool.accelerator else (), gpus_per_pod)
    if offer is None:
        return None
    bill = market.billing
    return {
        "provider": market.provider,
        "region": market.region,
        "offer": {
            "vm": offer.vm,
            "accelerator": offer.accelerator,
            "gpus": offer.gpus,
            "hourly": offer.hourly,
            "source": offer.source,
        },
        "billing": {
            "provider": bill.provider,
            "minimum_s": bill.minimum_s,
            "increment_s": bill.increment_s,
            "source": bill.source,
        },
        "boot_s": market.boot_s,
    }


def price_info(spec: PlatformSpec, pool: NodePool, gpus_per_pod: int) -> dict[str, Any]:
    """The prices step 7 needs, recorded in suite.json so that `score` works offline."""
    price = pool_price(spec, pool)
    overheads = Overheads.from_spec(spec)
    return {
        "currency": spec.costs.currency,
        "gpu_hourly": price.gpu_hourly,
        "spot": price.spot,
        "known": price.known,
        "source": price.source,
        "rental": _rental(spec, pool, gpus_per_pod),
        "support_monthly": overheads.support_monthly,
        "operations_monthly": overheads.operations_monthly,
        "overheads": overheads.to_dict(),
    }


def _request(
    pods: int, gpus_per_pod: int, seconds: float, accelerator: str | None, units: float
) -> RunRequest:
    return RunRequest.single(pods, gpus_per_pod, seconds, accelerator, klass=KLASS, units=units)


def rental_per_unit(
    prices: dict[str, Any], pods: int, gpus_per_pod: int, seconds: float, units: float
) -> float | None:
    """Renting `pods` pods for `seconds` each (gpuplane.baselines rules), per accepted unit."""
    rental = prices.get("rental")
    if not rental:
        return None
    offer = VmOffer(**rental["offer"])
    market = RentalMarket(
        rental["provider"],
        rental["region"],
        (offer,),
        BillingRule(**rental["billing"]),
        float(rental["boot_s"]),
        str(prices["currency"]),
    )
    return rental_baseline(
        [_request(pods, gpus_per_pod, seconds, offer.accelerator, units)], market
    ).per_accepted_unit


def api_per_unit(price: float, units: float, currency: str) -> float | None:
    """The model API's cost per accepted unit at the user's price (gpuplane.baselines)."""
    request = _request(1, 1, 0.0, None, units)
    return api_baseline([request], ApiPrices(((KLASS, price),), currency)).per_accepted_unit


@dataclass(frozen=True)
class ClusterCost:
    """The window's GPU-hours by kind and what they cost."""

    hours: GpuHours
    breakdown: CostBreakdown


def cluster_cost(
    prices: dict[str, Any],
    allocated_h: float,
    lost_h: float,
    activity: float | None,
    window_h: float,
    *,
    accepted_units: float | None = None,
) -> ClusterCost:
    """Price `allocated_h` GPU-hours (of which `lost_h` were lost to the deletion) over a window.

    With a measured engine activity the rest splits into useful and idle; without one it is
    unmeasured (costs.GpuTime), never assumed useful. The overheads are the spec's declared terms
    (recorded in suite.json by `price_info`), prorated over the window like `simulate`'s.
    """
    kept = max(allocated_h - lost_h, 0.0)
    if activity is None:
        hours = GpuHours(unmeasured=kept, evicted_lost=lost_h)
    else:
        share = min(max(activity, 0.0), 1.0)
        hours = GpuHours(useful=kept * share, idle=kept * (1 - share), evicted_lost=lost_h)
    currency = str(prices["currency"])
    gpu = price_gpu_hours(hours, float(prices["gpu_hourly"]), currency)
    support, operations = prices.get("support_monthly"), prices.get("operations_monthly")
    declared = (
        Overheads.from_dict(prices["overheads"])
        if isinstance(prices.get("overheads"), dict)
        else Overheads(currency=currency)
    )
    # support/operations as recorded (a suite may have been edited to price them differently).
    overheads = replace(
        declared,
        support_monthly=None if support is None else float(support),
        operations_monthly=None if operations is None else float(operations),
        currency=currency,
    ).for_window(window_h, accepted_units=accepted_units, gpu_hours=allocated_h)
    return ClusterCost(hours, gpu + overheads)
