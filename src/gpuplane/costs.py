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
``support`` and ``operations`` (monthly, prorated over the window), and ``unused_reservation``:
committed capacity (reservations, capacity blocks) paid with no node running on it, declared only
when a pool has `purchase:` commitments (`gpuplane.purchase.amortise`). A pool with a purchase mix
prices its GPU-hours at the amortised node-hour price actually paid (`purchase_pool_cost`).

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
from gpuplane.purchase.amortise import PaidNodes, paid_nodes
from gpuplane.purchase.mix import PurchaseMix, first_start, purchase_mix
from gpuplane.spec import NodePool, PlatformSpec
from gpuplane.spec.derived import HOURS_PER_MONTH  # 730 = 8760 h / 12, the providers' billing convention

__all__ = [
    "ALLOCATED_KINDS",
    "COMPONENTS",
    "GPU_TIME_KINDS",
    "HOURS_PER_MONTH",
    "NOT_DECLARED",
    "OVERHEAD_COMPONENTS",
    "OVERHEAD_LABELS",
    "CostBreakdown",
    "GpuHours",
    "GpuTime",
    "Overheads",
    "PoolPrice",
    "gpu_hour_price",
    "overhead_rows",
    "pool_price",
    "price_gpu_hours",
    "prorate_monthly",
    "purchase_pool_cost",
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
#: Charges that are not GPU time. Each is computed only from what the spec declares; a term with
#: no input is "not declared" (None in JSON, "not declared" in tables), never a silent 0.
OVERHEAD_COMPONENTS: tuple[str, ...] = (
    "network",
    "storage",
    "control_plane",
    "cpu_nodes",
    "support",
    "operations",
    "unused_reservation",
)
#: How reports name the overhead terms.
OVERHEAD_LABELS: dict[str, str] = {
    "network": "network",
    "storage": "storage",
    "control_plane": "control plane",
    "cpu_nodes": "CPU pool nodes",
    "support": "support",
    "operations": "operations",
    "unused_reservation": "unused reservation (idle)",
}
NOT_DECLARED = "not declared"
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
    control_plane: float = 0.0
    cpu_nodes: float = 0.0
    #: Reserved / committed node-hours paid with no node running on them (`gpuplane.purchase`).
    unused_reservation: float = 0.0
    #: The overhead terms the spec gave an input for (the others are "not declared").
    declared: frozenset[str] = frozenset()

    def term(self, name: str) -> float | None:
        """An overhead term's value, or None when it was not declared (GPU kinds: always a value)."""
        if name in OVERHEAD_COMPONENTS and name not in self.declared:
            return None
        value: float = getattr(self, name)
        return value

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
        return CostBreakdown(currency=self.currency, declared=self.declared | other.declared, **values)

    def scaled(self, factor: float) -> CostBreakdown:
        """Every component multiplied by `factor` (e.g. a team's share of a shared overhead)."""
        values = {name: getattr(self, name) * factor for name in COMPONENTS}
        return CostBreakdown(currency=self.currency, declared=self.declared, **values)

    def as_dict(self) -> dict[str, Any]:
        """Plain dict with every component (an overhead term not declared is None), `gpu`, `total`
        (of what was declared) and `declared` (the overhead terms that were), for JSON output."""
        out: dict[str, Any] = asdict(self)
        for name in OVERHEAD_COMPONENTS:
            out[name] = self.term(name)
        out["declared"] = [name for name in OVERHEAD_COMPONENTS if name in self.declared]
        out["gpu"] = self.gpu
        out["total"] = self.total
        return out


def overhead_rows(cost: CostBreakdown, money: str = "{:,.2f}") -> list[tuple[str, str]]:
    """(label, value) of every overhead term for tables: the amount, or "not declared"."""
    rows = []
    for name in OVERHEAD_COMPONENTS:
        value = cost.term(name)
        rows.append((OVERHEAD_LABELS[name], NOT_DECLARED if value is None else money.format(value)))
    return rows


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
    #: How the pool's nodes are bought when the spec declares `purchase:` (None: all burst).
    mix: PurchaseMix | None = None

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
    """Non-GPU charges of the platform, from what the spec's `costs` section (and its CPU pools)
    declare. A charge with no input is None here and "not declared" in every output.

    - support, operations: monthly, prorated over the window;
    - storage: the declared volumes (`costs.storage`) at `storagePerGiBMonth`, prorated;
    - network: declared traffic (`costs.network`: GiB per accepted unit and/or per allocated
      GPU-hour) at `networkPerGiB`;
    - control plane: the catalog's fee of `costs.controlPlaneTier` on the cluster's provider;
    - CPU pools' nodes: each CPU pool's node-hours at its price (`pool_price`: `costs.pools`, else
      the catalog); the twin bills the CPU nodes it ran (sim/cpu_nodes.py), `account` counts the
      nodes Prometheus saw, a window with no count takes `minNodes`.
    """

    support_monthly: float | None = None
    operations_monthly: float | None = None
    storage_per_gib_month: float | None = None
    network_per_gib: float | None = None
    currency: str = "USD"
    storage_gib: float = 0.0
    network_gib_per_unit: float | None = None
    network_gib_per_gpu_hour: float | None = None
    control_plane_hourly: float | None = None
    control_plane_source: str = ""
    #: (pool, node-hour price, minNodes) of every CPU pool; None when a CPU pool has no price.
    cpu_pools: tuple[tuple[str, float, int], ...] | None = None
    #: GiB of the declared volumes that belong to one team, by team (part of `storage_gib`).
    team_storage_gib: tuple[tuple[str, float], ...] = ()

    def team_storage(self, window_hours: float) -> dict[str, float]:
        """The storage cost of each team's own volumes over the window (0 when storage is not
        declared); the rest of the storage term is shared."""
        if self.storage_per_gib_month is None:
            return {}
        out: dict[str, float] = {}
        for team, gib in self.team_storage_gib:
            out[team] = out.get(team, 0.0) + prorate_monthly(gib * self.storage_per_gib_month, window_hours)
        return out

    @classmethod
    def from_spec(cls, spec: PlatformSpec) -> Overheads:
        """The overheads the spec declares."""
        from gpuplane.catalog.control_plane import control_plane_fee

        costs = spec.costs
        given = costs.model_fields_set
        fee = (
            control_plane_fee(spec.cluster.provider, costs.control_plane_tier)
            if costs.control_plane_tier
            else None
        )
        cpu: list[tuple[str, float, int]] = []
        priced = True
        for pool in spec.node_pools:
            if pool.is_gpu:
                continue
            # the one price rule of every pool (`pool_price`: costs.pools, else the catalog row of
            # its VM size; a spot CPU pool at its spot price)
            price = pool_price(spec, pool)
            if not price.known:
                priced = False
                continue
            cpu.append((pool.name, price.node_hourly, pool.min_nodes))
        traffic = costs.network
        return cls(
            support_monthly=costs.support_monthly if "support_monthly" in given else None,
            operations_monthly=costs.operations_monthly if "operations_monthly" in given else None,
            storage_per_gib_month=costs.storage_per_gib_month if "storage_per_gib_month" in given else None,
            network_per_gib=costs.network_per_gib if "network_per_gib" in given else None,
            currency=costs.currency,
            storage_gib=sum(v.gib for v in costs.storage),
            network_gib_per_unit=traffic.per_accepted_unit_gib if traffic else None,
            network_gib_per_gpu_hour=traffic.per_gpu_hour_gib if traffic else None,
            control_plane_hourly=fee.hourly if fee else None,
            control_plane_source=f"{fee.source} ({fee.date})" if fee else "",
            cpu_pools=tuple(cpu) if priced and cpu else None,
            team_storage_gib=tuple((v.team, v.gib) for v in costs.storage if v.team is not None),
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for a file another command prices from later, e.g. acceptance's suite.json)."""
        out: dict[str, Any] = asdict(self)
        out["cpu_pools"] = None if self.cpu_pools is None else [list(p) for p in self.cpu_pools]
        out["team_storage_gib"] = [list(t) for t in self.team_storage_gib]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Overheads:
        """The inverse of `to_dict`."""
        fields = dict(data)
        pools = fields.get("cpu_pools")
        fields["cpu_pools"] = (
            None if pools is None else tuple((str(n), float(p), int(k)) for n, p, k in pools)
        )
        return cls(**fields)

    def for_window(
        self,
        window_hours: float,
        *,
        storage_gib: float = 0.0,
        network_gib: float = 0.0,
        accepted_units: float | None = None,
        gpu_hours: float | None = None,
        cpu_node_hours: dict[str, float] | None = None,
    ) -> CostBreakdown:
        """The overhead part of a breakdown for a window of `window_hours`.

        `accepted_units` and `gpu_hours` (allocated) scale the declared traffic; `cpu_node_hours`
        are the CPU pools' node-hours seen (default: `minNodes` for the whole window).
        `storage_gib` and `network_gib` add explicit volumes and traffic on top of the spec's.
        """
        declared: set[str] = set()
        values: dict[str, float] = {}
        if self.support_monthly is not None:
            declared.add("support")
            values["support"] = prorate_monthly(self.support_monthly, window_hours)
        if self.operations_monthly is not None:
            declared.add("operations")
            values["operations"] = prorate_monthly(self.operations_monthly, window_hours)
        gib = self.storage_gib + storage_gib
        if gib > 0 and self.storage_per_gib_month is not None:
            declared.add("storage")
            values["storage"] = prorate_monthly(gib * self.storage_per_gib_month, window_hours)
        moved, known = network_gib, network_gib > 0
        if self.network_gib_per_unit is not None and accepted_units is not None:
            moved, known = moved + self.network_gib_per_unit * accepted_units, True
        if self.network_gib_per_gpu_hour is not None and gpu_hours is not None:
            moved, known = moved + self.network_gib_per_gpu_hour * gpu_hours, True
        if known and self.network_per_gib is not None:
            declared.add("network")
            values["network"] = moved * self.network_per_gib
        if self.control_plane_hourly is not None:
            declared.add("control_plane")
            values["control_plane"] = self.control_plane_hourly * window_hours
        if self.cpu_pools is not None:
            declared.add("cpu_nodes")
            seen = cpu_node_hours or {}
            values["cpu_nodes"] = sum(
                price * (seen[name] if name in seen else nodes * window_hours)
                for name, price, nodes in self.cpu_pools
            )
        return CostBreakdown(
            network=values.get("network", 0.0),
            storage=values.get("storage", 0.0),
            support=values.get("support", 0.0),
            operations=values.get("operations", 0.0),
            currency=self.currency,
            control_plane=values.get("control_plane", 0.0),
            cpu_nodes=values.get("cpu_nodes", 0.0),
            declared=frozenset(declared),
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
    return CostBreakdown(
        useful=hours.useful * gpu_hourly,
        idle=hours.idle * gpu_hourly,
        unmeasured=hours.unmeasured * gpu_hourly,
        failed=hours.failed * gpu_hourly,
        evicted_lost=hours.evicted_lost * gpu_hourly,
        unallocated=hours.unallocated * gpu_hourly,
        currency=currency,
    )


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
        mix=_mix(spec, pool),
    )


def _mix(spec: PlatformSpec, pool: NodePool) -> PurchaseMix | None:
    """The pool's purchase mix when every committed segment has its price (else None: the priced
    commands refuse such a spec in `gpuplane.spec.purchase`, the others do not cost). Windowed
    purchases are timed from the spec's earliest one (the twin's time 0)."""
    if any(s.hourly is None for s in pool.purchase if s.option not in ("on-demand", "spot")):
        return None
    starts = [t for t in (first_start(p) for p in spec.node_pools) if t is not None]
    return purchase_mix(pool, min(starts) if starts else None)


def purchase_pool_cost(
    price: PoolPrice,
    hours: GpuHours,
    t: list[float] | tuple[float, ...],
    nodes: list[int] | tuple[int, ...],
    t0: float,
    t1: float,
    currency: str = "USD",
) -> tuple[CostBreakdown, PaidNodes | None]:
    """A pool's GPU cost over [t0, t1) from its node-count step series (`t`, `nodes`): without a
    purchase mix, `price_gpu_hours` at the pool's price; with one, every GPU-hour at the amortised
    node-hour price actually paid, plus the unused reservation as its own term."""
    if price.mix is None:
        return price_gpu_hours(hours, price.gpu_hourly, currency), None
    burst = price.node_hourly
    if price.mix.flex is not None and not price.mix.burst:
        burst = price.mix.flex.hourly
    paid = paid_nodes(price.mix, t, nodes, t0, t1, burst)
    gpu = price_gpu_hours(hours, gpu_hour_price(paid.amortised_node_hourly, price.gpus_per_node), currency)
    unused = CostBreakdown(
        unused_reservation=paid.unused_cost, currency=currency, declared=frozenset({"unused_reservation"})
    )
    return gpu + unused, paid
