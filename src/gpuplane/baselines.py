"""Baselines: what the same accepted work would cost without the cluster.

- **rental**: every run on its own on-demand VM(s) of the catalog for its run time, no queue
  (`rental_baseline`);
- **model API**: a price per accepted unit per workload class, given by the user (`api_baseline`).

Both are pure functions over `RunRequest`s. A request is one run: pods x whole GPUs for some
seconds on some accelerators, and the accepted units it earns. Build them from trace records
(`requests_for_workloads`), from what the twin ran (`requests_for_runs`: each workload with the
accelerator it ran on), or directly for one run (`RunRequest.single`: N pods x G GPUs for a
window, as `acceptance` prices its window)::

    market = market_for(spec)                          # catalog VMs of the spec's provider/region
    rental = rental_baseline(requests, market)         # RentalBaseline: cost, per_accepted_unit
    api = api_baseline(requests, ApiPrices.parse(["inference=0.02"]))

The rules (one VM per pod, whole GPUs, billing minimums, boot time) are assumptions kept as data
with sources in `baselines.yaml`; costs use `gpuplane.costs.CostBreakdown` (accepted runs as
`useful`, runs that earn nothing as `failed`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from gpuplane.catalog import load_catalog
from gpuplane.catalog.models import Accelerator
from gpuplane.costs import CostBreakdown, pool_price
from gpuplane.errors import UsageError
from gpuplane.spec import PlatformSpec
from gpuplane.traces import WORKLOAD_CLASSES, PodSet, Workload

__all__ = [
    "ApiBaseline",
    "ApiPrices",
    "BillingRule",
    "RentalBaseline",
    "RentalMarket",
    "RentedRun",
    "RunRequest",
    "VmOffer",
    "api_baseline",
    "assumptions",
    "billing_rule",
    "market_for",
    "rent",
    "rental_baseline",
    "requests_for_runs",
    "requests_for_workloads",
    "whole_gpus",
]


@lru_cache(maxsize=1)
def _facts() -> dict[str, Any]:
    text = resources.files("gpuplane").joinpath("baselines.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def assumptions() -> dict[str, str]:
    """The rental baseline's rules as stated in the data file (name -> one-line text)."""
    rental = _facts()["rental"]
    return {k: " ".join(str(v).split()) for k, v in rental.items() if isinstance(v, str)}


@dataclass(frozen=True)
class BillingRule:
    """How a provider bills an on-demand VM: per `increment_s`, at least `minimum_s`."""

    provider: str
    minimum_s: float
    increment_s: float
    source: str

    def billed_seconds(self, seconds: float) -> float:
        """Seconds on the bill for a VM held `seconds` (0 when it was never started)."""
        if seconds <= 0:
            return 0.0
        step = self.increment_s if self.increment_s > 0 else 1.0
        return max(self.minimum_s, math.ceil(seconds / step - 1e-9) * step)


def billing_rule(provider: str) -> BillingRule:
    """The billing rule of `provider` (aks, gke, eks, generic) from the data file."""
    rules = _facts()["billing"]
    entry = rules.get(provider, rules["generic"])
    return BillingRule(
        provider, float(entry["minimum_s"]), float(entry["increment_s"]), " ".join(entry["source"].split())
    )


@dataclass(frozen=True)
class VmOffer:
    """A VM size one can rent on demand, at one hourly price."""

    vm: str
    accelerator: str
    gpus: int
    hourly: float
    source: str

    @property
    def gpu_hourly(self) -> float:
        """The hourly price of one of its GPUs."""
        return self.hourly / self.gpus


@dataclass(frozen=True)
class RentalMarket:
    """The VMs a rental baseline may rent (one provider and region), the billing rule, boot time."""

    provider: str
    region: str
    offers: tuple[VmOffer, ...]
    billing: BillingRule
    boot_s: float
    currency: str = "USD"

    def cheapest(self, accelerators: tuple[str, ...], gpus: int) -> VmOffer | None:
        """The cheapest offer of those accelerators (any GPU when empty) with >= `gpus` GPUs."""
        fits = [o for o in self._of(accelerators) if o.gpus >= gpus]
        return min(fits, key=lambda o: (o.hourly, o.vm), default=None)

    def cheapest_per_gpu(self, accelerators: tuple[str, ...]) -> VmOffer | None:
        """The offer of those accelerators with the lowest price per GPU."""
        return min(self._of(accelerators), key=lambda o: (o.gpu_hourly, o.vm), default=None)

    def _of(self, accelerators: tuple[str, ...]) -> list[VmOffer]:
        return [o for o in self.offers if not accelerators or o.accelerator in accelerators]


def market_for(spec: PlatformSpec, *, boot_s: float | None = None) -> RentalMarket:
    """On-demand offers in the spec's provider and region: every priced catalog VM with GPUs, and
    the spec's own GPU pools' VM sizes (or, without one, their nodes) at their spec price
    (`costs.pools` overrides win)."""
    provider, region = spec.cluster.provider, spec.cluster.region
    offers: dict[str, VmOffer] = {}
    for pool in spec.node_pools:
        price = pool_price(spec, pool)
        if pool.accelerator and pool.gpus and price.known and price.on_demand_hourly > 0:
            # A pool without a VM size (a generic cluster) rents its own kind of node at the spec price.
            name = pool.vm_size or f"{pool.name} node"
            offers[name.lower()] = VmOffer(
                name, pool.accelerator, pool.gpus, price.on_demand_hourly, price.source
            )
    for sku in load_catalog().vm_skus(provider):
        catalog_price = load_catalog().price(provider, sku.name, region)
        if sku.gpus > 0 and catalog_price is not None and sku.name.lower() not in offers:
            source = f"catalog: {catalog_price.source} ({catalog_price.date})"
            offers[sku.name.lower()] = VmOffer(
                sku.name, sku.accelerator, sku.gpus, catalog_price.on_demand_hourly, source
            )
    boot = float(_facts()["rental"]["boot_s"]["value"]) if boot_s is None else boot_s
    ordered = tuple(sorted(offers.values(), key=lambda o: o.vm))
    return RentalMarket(provider, region, ordered, billing_rule(provider), boot, spec.costs.currency)


@dataclass(frozen=True)
class RunRequest:
    """One run to buy: `pods` as (count, whole GPUs per pod), held for `seconds`, on one of
    `accelerators` (empty: any GPU). `units` is what it earns (0 for a failed run)."""

    pods: tuple[tuple[int, int], ...]
    seconds: float
    accelerators: tuple[str, ...] = ()
    klass: str = "training"
    units: float = 1.0
    label: str = ""

    @classmethod
    def single(
        cls,
        pods: int,
        gpus_per_pod: int,
        seconds: float,
        accelerator: str | None = None,
        *,
        klass: str = "training",
        units: float = 1.0,
        label: str = "",
    ) -> RunRequest:
        """One run of `pods` pods with `gpus_per_pod` GPUs each for `seconds` (e.g. a window)."""
        return cls(
            ((pods, gpus_per_pod),), seconds, (accelerator,) if accelerator else (), klass, units, label
        )

    @property
    def accepted(self) -> bool:
        """Whether the run earns accepted units."""
        return self.units > 0


def whole_gpus(pod_set: PodSet, accelerators: tuple[str, ...] = ()) -> int:
    """Whole GPUs a rented VM needs for one pod of `pod_set`: fractions round up to one GPU, MIG
    devices to the GPUs their compute slices fill (on the first accelerator that has the profile)."""
    per_pod = pod_set.gpus_per_pod
    if per_pod <= 0:
        return 0
    if pod_set.mig_profile is None:
        return max(1, math.ceil(per_pod - 1e-9))
    for acc in _accelerators_for_profile(pod_set.mig_profile, accelerators):
        profile = acc.mig_profile(pod_set.mig_profile)
        if profile is not None and acc.compute_slices:
            return max(1, math.ceil(per_pod * profile.compute_slices / acc.compute_slices - 1e-9))
    return max(1, math.ceil(per_pod - 1e-9))


def _accelerators_for_profile(profile: str, allowed: tuple[str, ...]) -> list[Accelerator]:
    catalog = load_catalog()
    return [
        acc
        for acc in catalog.accelerators()
        if acc.mig_profile(profile) is not None and (not allowed or acc.name in allowed)
    ]


def _allowed(w: Workload, ran_on: str | None) -> tuple[str, ...]:
    catalog = load_catalog()
    if ran_on:
        return (ran_on,)
    if w.allowed_gpu_models:
        found = (catalog.accelerator(m) for m in w.allowed_gpu_models)
        return tuple(dict.fromkeys(a.name for a in found if a is not None))
    if w.mig_profiles:
        return tuple(a.name for a in _accelerators_for_profile(w.mig_profiles[0], ()))
    return ()


def requests_for_runs(
    runs: Iterable[tuple[Workload, str | None]], unit_weight: Mapping[str, float] | None = None
) -> list[RunRequest]:
    """Requests for workloads that ran, each with the accelerator it ran on (None: from the
    workload's GPU-model constraint or MIG profile, else any GPU). A run is held for its full-speed
    run time up to where the trace ends it; only completed runs earn `unit_weight[class]` (1)."""
    weights = dict(unit_weight or {})
    out = []
    for w, ran_on in runs:
        accelerators = _allowed(w, ran_on)
        pods = tuple((ps.count, whole_gpus(ps, accelerators)) for ps in w.pod_sets)
        units = weights.get(w.klass, 1.0) if w.final_status == "completed" else 0.0
        out.append(RunRequest(pods, w.stop_after, accelerators, w.klass, units, w.id))
    return out


def requests_for_workloads(
    workloads: Iterable[Workload], unit_weight: Mapping[str, float] | None = None
) -> list[RunRequest]:
    """Requests for trace records as they are (no cluster run behind them)."""
    return requests_for_runs(((w, None) for w in workloads), unit_weight)


@dataclass(frozen=True)
class RentedRun:
    """How one request was rented: (offer, VMs) per pod set, the seconds billed and the cost."""

    request: RunRequest
    vms: tuple[tuple[VmOffer, int], ...]
    billed_seconds: float
    cost: float
    priced: bool
    scaled: bool = False


def rent(request: RunRequest, market: RentalMarket) -> RentedRun:
    """Rent one run: per pod the cheapest VM with enough GPUs (or per GPU when none fits)."""
    billed = market.billing.billed_seconds(request.seconds + market.boot_s) if request.seconds > 0 else 0.0
    vms: list[tuple[VmOffer, int]] = []
    hourly, priced, scaled = 0.0, True, False
    for count, gpus in request.pods:
        if gpus <= 0:
            continue
        offer = market.cheapest(request.accelerators, gpus)
        if offer is not None:
            vms.append((offer, count))
            hourly += count * offer.hourly
            continue
        smaller = market.cheapest_per_gpu(request.accelerators)
        if smaller is None:
            priced = False
            continue
        vms.append((smaller, count * math.ceil(gpus / smaller.gpus)))
        hourly += count * gpus * smaller.gpu_hourly
        scaled = True
    return RentedRun(request, tuple(vms), billed, hourly * billed / 3600.0, priced, scaled)


@dataclass(frozen=True)
class RentalBaseline:
    """The rental baseline of a set of runs."""

    cost: CostBreakdown
    accepted_units: float
    runs: int
    unpriced_runs: int
    scaled_runs: int
    vm_hours: float
    by_vm: tuple[tuple[str, float], ...]
    billing: BillingRule
    boot_s: float

    @property
    def per_accepted_unit(self) -> float | None:
        """Rental cost per accepted unit (None when nothing was accepted or a run had no price)."""
        if self.unpriced_runs:
            return None
        return self.cost.per_accepted_unit(self.accepted_units)


def rental_baseline(requests: Iterable[RunRequest], market: RentalMarket) -> RentalBaseline:
    """Rent every request on its own VMs; accepted runs cost `useful`, the others `failed`."""
    useful = failed = vm_hours = units = 0.0
    runs = unpriced = scaled = 0
    by_vm: dict[str, float] = {}
    for request in requests:
        rented = rent(request, market)
        runs += 1
        unpriced += not rented.priced
        scaled += rented.scaled
        units += request.units if request.accepted else 0.0
        if request.accepted:
            useful += rented.cost
        else:
            failed += rented.cost
        total_hourly = sum(o.hourly * n for o, n in rented.vms) or 1.0
        for offer, n in rented.vms:
            vm_hours += n * rented.billed_seconds / 3600.0
            by_vm[offer.vm] = by_vm.get(offer.vm, 0.0) + rented.cost * offer.hourly * n / total_hourly
    return RentalBaseline(
        cost=CostBreakdown(useful=useful, failed=failed, currency=market.currency),
        accepted_units=units,
        runs=runs,
        unpriced_runs=unpriced,
        scaled_runs=scaled,
        vm_hours=vm_hours,
        by_vm=tuple(sorted(by_vm.items())),
        billing=market.billing,
        boot_s=market.boot_s,
    )


@dataclass(frozen=True)
class ApiPrices:
    """What a model API charges per accepted unit, per workload class (the user's figures)."""

    per_unit: tuple[tuple[str, float], ...]
    currency: str = "USD"

    @classmethod
    def parse(cls, items: Iterable[str], currency: str = "USD", option: str = "--api-price") -> ApiPrices:
        """`["inference=0.02", "batch=0.5"]` -> prices; a bad item is a UsageError for `option`."""
        prices: dict[str, float] = {}
        for item in items:
            klass, sep, text = item.partition("=")
            try:
                value = float(text)
            except ValueError:
                value = -1.0
            if not sep or klass not in WORKLOAD_CLASSES or not value >= 0 or not math.isfinite(value):
                raise UsageError(
                    f"{item!r}: expected CLASS=PRICE with CLASS one of {', '.join(WORKLOAD_CLASSES)} "
                    "and PRICE >= 0 per accepted unit",
                    option=option,
                )
            prices[klass] = value
        return cls(tuple(sorted(prices.items())), currency)

    def price(self, klass: str) -> float | None:
        """The price per accepted unit of `klass`, or None when none was given."""
        return dict(self.per_unit).get(klass)


@dataclass(frozen=True)
class ApiBaseline:
    """The model-API baseline: accepted units of priced classes bought from an API."""

    cost: float
    units_priced: float
    units_unpriced: float
    by_class: tuple[tuple[str, float], ...]
    currency: str = "USD"

    @property
    def per_accepted_unit(self) -> float | None:
        """API cost per accepted unit of the priced classes (None when none was priced)."""
        return self.cost / self.units_priced if self.units_priced > 0 else None


def api_baseline(requests: Iterable[RunRequest], prices: ApiPrices) -> ApiBaseline:
    """Buy every accepted unit of a priced class from the API; count the units left unpriced."""
    units: dict[str, float] = {}
    for request in requests:
        if request.accepted:
            units[request.klass] = units.get(request.klass, 0.0) + request.units
    priced = {k: u for k, u in units.items() if prices.price(k) is not None}
    cost = {k: u * (prices.price(k) or 0.0) for k, u in priced.items()}
    return ApiBaseline(
        cost=sum(cost.values()),
        units_priced=sum(priced.values()),
        units_unpriced=sum(u for k, u in units.items() if k not in priced),
        by_class=tuple(sorted(cost.items())),
        currency=prices.currency,
    )
