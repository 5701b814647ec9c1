"""The one GPU cost model, shared by `simulate` and `account`.

    effective cost per accepted unit =
        (compute + network + storage + support + idle + failed runs + operations) / accepted units

GPU time is split into kinds that never overlap (`GpuTime`, defined once here and used by sim,
account, the reports and the exporter), so their costs add up to what the provisioned GPUs cost
over the window:

- ``useful``: allocated GPU-hours weighted by measured engine activity (the work the GPU did);
- ``idle``: allocated GPU-hours measured as doing nothing (allocated x (1 - activity));
- ``unmeasured``: allocated GPU-hours with no activity metric at all (e.g. a MIG instance
  without profiling metrics): neither useful nor idle, because nobody measured it;
- ``failed``: all GPU-hours of runs that ended in failure (their work is not accepted);
- ``evicted_lost``: GPU-hours of work lost to eviction/preemption since the last checkpoint;
- ``unallocated``: provisioned GPU-hours that no workload requested (OpenCost's ``__idle__``).

Overheads come on top: ``network`` (per GiB moved), ``storage`` (per GiB-month, prorated),
``support`` and ``operations`` (monthly, prorated over the window).

Unlike OpenCost, which prices requested GPU-hours only (see the reference notes,
audit_and_cost.md part 2.1/2.3), this model also says how much of the allocation was idle and
how much was burned by failed or evicted runs. Prices are per node-hour in the platform spec;
a GPU-hour costs the node-hour price divided by the GPUs of the node.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from gpuplane.catalog import load_catalog
from gpuplane.spec import NodePool, PlatformSpec
from gpuplane.spec.derived import HOURS_PER_MONTH  # 730 = 8760 h / 12, the providers' billing convention

__all__ = [
    "ALLOCATED_KINDS",
    "COMPONENTS",
    "GPU_TIME_KINDS",
    "HOURS_PER_MONTH",
    "OVERHEAD_COMPONENTS",
    "CostBreakdown",
    "GpuHours",
    "GpuTime",
    "Overheads",
    "PoolPrice",
    "gpu_hour_price",
    "pool_price",
    "price_gpu_hours",
    "prorate_monthly",
    "sum_breakdowns",
]


class GpuTime(StrEnum):
    """The kinds of GPU time, in the order every report shows them. The one definition."""

    USEFUL = "useful"
    IDLE = "idle"
    UNMEASURED = "unmeasured"
    FAILED = "failed"
    EVICTED_LOST = "evicted_lost"
    UNALLOCATED = "unallocated"

    @property
    def label(self) -> str:
        """Human label for tables and charts."""
        return {"evicted_lost": "evicted & lost"}.get(self.value, self.value)


#: Every kind of GPU time, in report order.
GPU_TIME_KINDS: tuple[GpuTime, ...] = tuple(GpuTime)
#: The kinds some workload held (all but unallocated).
ALLOCATED_KINDS: tuple[GpuTime, ...] = tuple(k for k in GpuTime if k is not GpuTime.UNALLOCATED)
#: Charges that are not GPU time.
OVERHEAD_COMPONENTS: tuple[str, ...] = ("network", "storage", "support", "operations")
#: The components of a breakdown, in the order reports show them.
COMPONENTS: tuple[str, ...] = (*(k.value for k in GPU_TIME_KINDS), *OVERHEAD_COMPONENTS)


@dataclass(frozen=True)
class CostBreakdown:
    """Cost of a window split into the model's components (all in one currency)."""

    useful: float = 0.0
    idle: float = 0.0
    unmeasured: float = 0.0
    failed: float = 0.0
    evicted_lost: float = 0.0
    unallocated: float = 0.0
    network: float = 0.0
    storage: float = 0.0
    support: float = 0.0
    operations: float = 0.0
    currency: str = "USD"

    @property
    def gpu(self) -> float:
        """Cost of all GPU time (every `GpuTime` kind)."""
        return float(sum(getattr(self, k.value) for k in GPU_TIME_KINDS))

    @property
    def total(self) -> float:
        """Everything: GPU time plus network, storage, support and operations."""
        return self.gpu + float(sum(getattr(self, name) for name in OVERHEAD_COMPONENTS))

    def per_accepted_unit(self, units: float) -> float | None:
        """Effective cost per accepted unit of work; None when no unit was accepted."""
        if units <= 0:
            return None
        return self.total / units

    def __add__(self, other: CostBreakdown) -> CostBreakdown:
        if other.currency != self.currency:
            raise ValueError(f"cannot add costs in {self.currency} and {other.currency}")
        values = {name: getattr(self, name) + getattr(other, name) for name in COMPONENTS}
        return CostBreakdown(currency=self.currency, **values)

    def scaled(self, factor: float) -> CostBreakdown:
        """Every component multiplied by `factor` (e.g. a team's share of a shared overhead)."""
        values = {name: getattr(self, name) * factor for name in COMPONENTS}
        return CostBreakdown(currency=self.currency, **values)

    def as_dict(self) -> dict[str, Any]:
        """Plain dict with every component, `gpu` and `total`, for JSON output."""
        out: dict[str, Any] = asdict(self)
        out["gpu"] = self.gpu
        out["total"] = self.total
        return out


def sum_breakdowns(items: Iterable[CostBreakdown], currency: str = "USD") -> CostBreakdown:
    """Sum of breakdowns; an empty iterable gives a zero breakdown in `currency`."""
    total = CostBreakdown(currency=currency)
    for item in items:
        total = total + item
    return total


@dataclass(frozen=True)
class PoolPrice:
    """What one node of a pool costs per hour, where that came from, and so one GPU-hour's price.

    The one price record: the twin, account, plan and the reports all price GPU time with it.
    """

    pool: str
    on_demand_hourly: float
    spot_hourly: float
    spot: bool
    gpus_per_node: int
    source: str = ""
    known: bool = True

    @property
    def node_hourly(self) -> float:
        """The price that applies to this pool's nodes (spot when the pool runs on spot)."""
        return self.spot_hourly if self.spot else self.on_demand_hourly

    @property
    def gpu_hourly(self) -> float:
        """Price of one GPU-hour: the node-hour price split evenly over the node's GPUs."""
        return gpu_hour_price(self.node_hourly, self.gpus_per_node)


def gpu_hour_price(node_hourly: float, gpus_per_node: int) -> float:
    """Price of one GPU-hour on a node that costs `node_hourly` and carries `gpus_per_node` GPUs.

    The whole node price goes to its GPUs: a GPU node exists for its GPUs, so its CPU and
    memory are part of what a GPU-hour costs.
    """
    if gpus_per_node <= 0:
        raise ValueError("gpus_per_node must be positive")
    if node_hourly < 0:
        raise ValueError("node_hourly must not be negative")
    return node_hourly / gpus_per_node


def prorate_monthly(monthly: float, window_hours: float) -> float:
    """The part of a monthly charge that falls into a window of `window_hours`."""
    if window_hours < 0:
        raise ValueError("window_hours must not be negative")
    return monthly * window_hours / HOURS_PER_MONTH


@dataclass(frozen=True)
class Overheads:
    """Non-GPU charges of the platform, as written in the spec's `costs` section."""

    support_monthly: float = 0.0
    operations_monthly: float = 0.0
    storage_per_gib_month: float = 0.0
    network_per_gib: float = 0.0
    currency: str = "USD"

    @classmethod
    def from_spec(cls, spec: PlatformSpec) -> Overheads:
        """The overheads written in the spec's `costs` section."""
        costs = spec.costs
        return cls(
            support_monthly=costs.support_monthly,
            operations_monthly=costs.operations_monthly,
            storage_per_gib_month=costs.storage_per_gib_month,
            network_per_gib=costs.network_per_gib,
            currency=costs.currency,
        )

    def for_window(
        self, window_hours: float, *, storage_gib: float = 0.0, network_gib: float = 0.0
    ) -> CostBreakdown:
        """The overhead part of a breakdown for a window, storing `storage_gib` and moving `network_gib`."""
        return CostBreakdown(
            network=network_gib * self.network_per_gib,
            storage=prorate_monthly(storage_gib * self.storage_per_gib_month, window_hours),
            support=prorate_monthly(self.support_monthly, window_hours),
            operations=prorate_monthly(self.operations_monthly, window_hours),
            currency=self.currency,
        )


@dataclass(frozen=True)
class GpuHours:
    """GPU-hours of one window split by `GpuTime` kind (the fields are the kinds, in order)."""

    useful: float = 0.0
    idle: float = 0.0
    unmeasured: float = 0.0
    failed: float = 0.0
    evicted_lost: float = 0.0
    unallocated: float = 0.0

    def __add__(self, other: GpuHours) -> GpuHours:
        return GpuHours(**{k.value: self[k] + other[k] for k in GPU_TIME_KINDS})

    def __getitem__(self, kind: GpuTime) -> float:
        value: float = getattr(self, kind.value)
        return value

    @property
    def allocated(self) -> float:
        """GPU-hours some workload held (every kind but unallocated)."""
        return sum(self[k] for k in ALLOCATED_KINDS)

    @property
    def provisioned(self) -> float:
        """GPU-hours that existed (allocated + unallocated)."""
        return self.allocated + self.unallocated


def price_gpu_hours(hours: GpuHours, gpu_hourly: float, currency: str = "USD") -> CostBreakdown:
    """The GPU part of a breakdown: each kind of GPU-hour at one GPU-hour price."""
    return CostBreakdown(currency=currency, **{k.value: hours[k] * gpu_hourly for k in GPU_TIME_KINDS})


def pool_price(spec: PlatformSpec, pool: NodePool) -> PoolPrice:
    """A pool's node-hour prices: the spec's `costs.pools` override, else the catalog price for the
    cluster's provider and region. `known` says whether the price that applies (spot for a spot
    pool) was found; the commands that cost refuse a spec where it was not
    (`gpuplane.spec.pricing`), so an unknown price never becomes a silent 0 there."""
    override = spec.costs.pools.get(pool.name)
    catalog_price = None
    if pool.vm_size:
        catalog_price = load_catalog().price(spec.cluster.provider, pool.vm_size, spec.cluster.region)
    on_demand = override.on_demand_hourly if override and override.on_demand_hourly is not None else None
    spot = override.spot_hourly if override and override.spot_hourly is not None else None
    source = "spec costs.pools" if override else ""
    if catalog_price is not None:
        if on_demand is None:
            on_demand = catalog_price.on_demand_hourly
        if spot is None:
            spot = catalog_price.spot_hourly
        source = source or f"catalog: {catalog_price.source} ({catalog_price.date})"
    applies = spot if pool.spot.enabled else on_demand
    return PoolPrice(
        pool=pool.name,
        on_demand_hourly=on_demand or 0.0,
        spot_hourly=spot if spot is not None else 0.0,
        spot=pool.spot.enabled,
        gpus_per_node=max(pool.gpus, 1),
        source=source or "unknown",
        known=applies is not None,
    )
