"""What the window's GPU nodes actually cost when a pool declares a purchase mix (`purchase:` in
the spec): every GPU-hour of the pool at the amortised node-hour price paid (reservation rates for
the nodes the commitments covered, the burst price for the rest), and the committed node-hours no
node ran on as the `unused_reservation` term (`gpuplane.purchase.amortise`, through
`gpuplane.costs.purchase_pool_cost`).

The node count of a pool over time comes from the chart series (`raw.node_series`, one point per
chart step), so the split is exact to the chart step; without chart series (``charts=False``) a
pool with a purchase mix is priced at its burst price and a note says so.
"""

from __future__ import annotations

import datetime
from collections import defaultdict

from gpuplane.account.pools import NodeInfo
from gpuplane.account.raw import RawData
from gpuplane.account.usage import PodUsage, PoolUsage
from gpuplane.costs import CostBreakdown, GpuHours, gpu_hour_price, purchase_pool_cost
from gpuplane.purchase.mix import purchase_mix
from gpuplane.spec import PlatformSpec

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def pool_node_counts(raw: RawData, info: NodeInfo, pool: str) -> tuple[list[float], list[int]]:
    """The pool's ready-node count at each chart time (a step series)."""
    counts: dict[float, int] = defaultdict(int)
    times: set[float] = set()
    for node, points in raw.node_series.items():
        for t, v in points:
            times.add(t)
            if info.pool_of.get(node) == pool and v > 0:
                counts[t] += 1
    ordered = sorted(times)
    return ordered, [counts.get(t, 0) for t in ordered]


def apply_purchase(
    raw: RawData, spec: PlatformSpec, info: NodeInfo, pools: list[PoolUsage], pods: list[PodUsage]
) -> tuple[CostBreakdown | None, list[str]]:
    """Reprice the pools that declare a purchase mix (and their pods) at the amortised price;
    returns the unused-reservation term (None when no pool declares commitments) and notes."""
    w = raw.window
    currency = spec.costs.currency
    total: CostBreakdown | None = None
    notes: list[str] = []
    for usage in pools:
        spec_pool = spec.pool(usage.pool)
        if spec_pool is None or not spec_pool.purchase or usage.gpus_per_node <= 0:
            continue
        mix = purchase_mix(spec_pool, EPOCH)
        if mix is None or any(
            s.hourly is None for s in spec_pool.purchase if s.option not in ("on-demand", "spot")
        ):
            continue
        t, nodes = pool_node_counts(raw, info, usage.pool)
        if not t:
            notes.append(
                f"pool {usage.pool}: no node series (charts off), so its purchase mix is not applied"
            )
            continue
        from gpuplane.costs import pool_price

        price = pool_price(spec, spec_pool)
        cost, paid = purchase_pool_cost(price, GpuHours(), t, nodes, w.start, w.end, currency)
        assert paid is not None
        usage.gpu_hourly = gpu_hour_price(paid.amortised_node_hourly, usage.gpus_per_node)
        for pod in pods:
            if pod.pool == usage.pool:
                pod.gpu_hourly = usage.gpu_hourly
        total = cost if total is None else total + cost
    return total, notes
