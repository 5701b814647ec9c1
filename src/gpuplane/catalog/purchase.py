"""How each provider sells GPU capacity besides on-demand and spot (`data/purchase_options.yaml`):
reservation/commitment terms, capacity-block durations and end-of-block rules, calendar-mode
reservations, flex-start's maximum run time. A figure the sources do not publish is None here
(with the entry's `note` saying so), never a guessed number.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from gpuplane.catalog.loader import PROVIDERS, CatalogDataError, read_yaml

__all__ = [
    "OPTION_KINDS",
    "BlockDurations",
    "PurchaseOption",
    "purchase_option",
    "purchase_options",
]

#: Every kind of purchase option the catalog describes (the spec's `purchase[].option` adds
#: on-demand and spot, which need no catalog entry).
OPTION_KINDS = ("reserved", "capacity-block", "calendar-reservation", "flex-start", "capacity-reservation")


@dataclass(frozen=True)
class BlockDurations:
    """Allowed lengths of a time-window purchase: every whole day up to `daily_days`, then steps of
    `step_days` up to `max_days` (AWS Capacity Blocks: 1-14 days, then 7-day steps to 182)."""

    daily_days: int
    step_days: int
    max_days: int

    def allows(self, days: float) -> bool:
        """Whether a window of `days` (must be whole) is one the provider sells."""
        if days != int(days) or days < 1 or days > self.max_days:
            return False
        whole = int(days)
        return whole <= self.daily_days or (whole - self.daily_days) % self.step_days == 0

    def describe(self) -> str:
        """E.g. '1-14 days, then 7-day steps to 182 days'."""
        if self.daily_days >= self.max_days:
            return f"1-{self.max_days} whole days"
        return f"1-{self.daily_days} days, then {self.step_days}-day steps to {self.max_days} days"


@dataclass(frozen=True)
class PurchaseOption:
    """One provider's purchase option. None means "not published in the sources" (see `note`)."""

    provider: str
    kind: str
    name: str
    source: str
    date: str
    note: str = ""
    terms: tuple[str, ...] = ()
    payments: tuple[str, ...] = ()
    discount: float | None = None
    discount_ceiling: float | None = None
    price: float | None = None
    durations: BlockDurations | None = None
    end_time_utc: str | None = None
    at_end: str | None = None
    paid_whether_used: bool = True
    max_run_hours: float | None = None
    provisioning_delay_hours: float | None = None
    max_instances_per_block: int | None = None
    max_instances_total: int | None = None
    advance_days: int | None = None
    billing_minimum: str | None = None

    @property
    def cite(self) -> str:
        """Source and date, for reports and error messages."""
        return f"{self.source} ({self.date})"


def _optional_float(entry: dict[str, Any], key: str) -> float | None:
    value = entry.get(key)
    return None if value is None else float(value)


def _optional_int(entry: dict[str, Any], key: str) -> int | None:
    value = entry.get(key)
    return None if value is None else int(value)


def _option(provider: str, key: str, entry: dict[str, Any]) -> PurchaseOption:
    where = f"purchase_options.yaml {provider}.{key}"
    for field in ("kind", "name", "source", "date"):
        if field not in entry:
            raise CatalogDataError(f"{where}: missing field {field!r}")
    if entry["kind"] != key or key not in OPTION_KINDS:
        raise CatalogDataError(f"{where}: kind {entry['kind']!r} must equal the key, one of {OPTION_KINDS}")
    durations = entry.get("durations")
    try:
        return PurchaseOption(
            provider=provider,
            kind=key,
            name=str(entry["name"]),
            source=str(entry["source"]),
            date=str(entry["date"]),
            note=str(entry.get("note") or ""),
            terms=tuple(str(t) for t in entry.get("terms") or ()),
            payments=tuple(str(p) for p in entry.get("payments") or ()),
            discount=_optional_float(entry, "discount"),
            discount_ceiling=_optional_float(entry, "discount_ceiling"),
            price=_optional_float(entry, "price"),
            durations=BlockDurations(**{k: int(v) for k, v in durations.items()}) if durations else None,
            end_time_utc=entry.get("end_time_utc"),
            at_end=entry.get("at_end"),
            paid_whether_used=bool(entry.get("paid_whether_used", True)),
            max_run_hours=_optional_float(entry, "max_run_hours"),
            provisioning_delay_hours=_optional_float(entry, "provisioning_delay_hours"),
            max_instances_per_block=_optional_int(entry, "max_instances_per_block"),
            max_instances_total=_optional_int(entry, "max_instances_total"),
            advance_days=_optional_int(entry, "advance_days"),
            billing_minimum=entry.get("billing_minimum"),
        )
    except (TypeError, ValueError) as exc:
        raise CatalogDataError(f"{where}: {exc}") from exc


@functools.cache
def purchase_options() -> dict[tuple[str, str], PurchaseOption]:
    """Every (provider, kind) purchase option in the catalog."""
    out: dict[tuple[str, str], PurchaseOption] = {}
    for provider, entries in (read_yaml("purchase_options.yaml") or {}).items():
        if provider not in PROVIDERS:
            raise CatalogDataError(f"purchase_options.yaml: unknown provider {provider!r}")
        for key, entry in entries.items():
            out[(provider, key)] = _option(provider, key, entry)
    return out


def purchase_option(provider: str, kind: str) -> PurchaseOption | None:
    """The option `kind` on `provider`, or None when the provider does not sell it (per the catalog)."""
    return purchase_options().get((provider.lower(), kind))
