"""Step 7: what the accepted work of the window cost on the cluster, against renting and an API.

The cluster side is priced with the one cost model (`gpuplane.costs`: `pool_price`,
`price_gpu_hours`, `Overheads`) exactly as `simulate` prices a window. The rental baseline is the
same GPU time bought as on-demand VMs of the pool's size with no platform overheads and nothing
lost to the pod deletion; it sits behind `rental_gpu_hourly`, the one place to swap for a shared
baseline module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuplane.costs import CostBreakdown, GpuHours, Overheads, gpu_hour_price, pool_price, price_gpu_hours
from gpuplane.spec.models import NodePool, PlatformSpec

__all__ = ["ClusterCost", "cluster_cost", "price_info", "rental_gpu_hourly"]


def rental_gpu_hourly(spec: PlatformSpec, pool: NodePool) -> tuple[float, str]:
    """One GPU-hour rented as an on-demand VM of the pool's size (and where the price is from)."""
    price = pool_price(spec, pool)
    return gpu_hour_price(price.on_demand_hourly, price.gpus_per_node), price.source


def price_info(spec: PlatformSpec, pool: NodePool) -> dict[str, Any]:
    """The prices step 7 needs, recorded in suite.json so that `score` works offline."""
    price = pool_price(spec, pool)
    rental, rental_source = rental_gpu_hourly(spec, pool)
    overheads = Overheads.from_spec(spec)
    return {
        "currency": spec.costs.currency,
        "gpu_hourly": price.gpu_hourly,
        "spot": price.spot,
        "known": price.known,
        "source": price.source,
        "rental_gpu_hourly": rental,
        "rental_source": rental_source,
        "support_monthly": overheads.support_monthly,
        "operations_monthly": overheads.operations_monthly,
    }


@dataclass(frozen=True)
class ClusterCost:
    """The window's GPU-hours by kind and what they cost."""

    hours: GpuHours
    breakdown: CostBreakdown


def cluster_cost(
    prices: dict[str, Any], allocated_h: float, lost_h: float, activity: float | None, window_h: float
) -> ClusterCost:
    """Price `allocated_h` GPU-hours (of which `lost_h` were lost to the deletion) over a window.

    With a measured engine activity the rest splits into useful and idle; without one it is
    unmeasured (costs.GpuTime), never assumed useful.
    """
    kept = max(allocated_h - lost_h, 0.0)
    if activity is None:
        hours = GpuHours(unmeasured=kept, evicted_lost=lost_h)
    else:
        share = min(max(activity, 0.0), 1.0)
        hours = GpuHours(useful=kept * share, idle=kept * (1 - share), evicted_lost=lost_h)
    currency = str(prices["currency"])
    gpu = price_gpu_hours(hours, float(prices["gpu_hourly"]), currency)
    overheads = Overheads(
        support_monthly=float(prices["support_monthly"]),
        operations_monthly=float(prices["operations_monthly"]),
        currency=currency,
    ).for_window(window_h)
    return ClusterCost(hours, gpu + overheads)
