"""Provider facts as data: `catalog/data/providers.yaml` (each fact with its source and date) and
the NVIDIA chart defaults in `catalog/data/nvidia_charts.yaml`, read once into typed records.

The facts live in the catalog (data and its loader); the provider modules that act on them live in
`gpuplane.providers`. This module imports nothing but the catalog loader, so the spec models can
ask which providers exist without importing the provider modules.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from gpuplane.catalog.loader import CatalogDataError, read_yaml

PROVIDERS_FILE = "providers.yaml"
CHARTS_FILE = "nvidia_charts.yaml"
FACT_KEYS = (
    "driver",
    "device_plugin",
    "mig",
    "time_slicing",
    "mps",
    "spot",
    "scale_to_zero",
    "fabric",
    "dra",
    "operator_stack",
    "provider_stack",
)


@dataclass(frozen=True)
class Fact:
    """One provider fact: its value, the extra fields it carries, where it comes from and when."""

    key: str
    value: Any
    source: str
    date: str
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def get(self, name: str, default: Any = None) -> Any:
        """An extra field of the fact (e.g. `spot.taint`), or `default`."""
        return self.extra.get(name, default)

    def cite(self) -> str:
        """`source, read DATE` for messages (short source names are listed by `sources()`)."""
        return f"{self.source}, read {self.date}"


@dataclass(frozen=True)
class ProviderFacts:
    """Everything the data file says about one provider."""

    name: str
    title: str
    renders: bool
    facts: dict[str, Fact]

    def __getitem__(self, key: str) -> Fact:
        return self.facts[key]


def _fact(provider: str, key: str, raw: Any) -> Fact:
    where = f"{PROVIDERS_FILE} {provider}.{key}"
    if not isinstance(raw, dict) or "value" not in raw:
        raise CatalogDataError(f"{where}: a fact is a mapping with value, source and date")
    for required in ("source", "date"):
        if not raw.get(required):
            raise CatalogDataError(f"{where}: missing {required}")
    extra = {k: v for k, v in raw.items() if k not in ("value", "source", "date", "note")}
    return Fact(key, raw["value"], str(raw["source"]), str(raw["date"]), str(raw.get("note") or ""), extra)


def _provider(name: str, raw: Any) -> ProviderFacts:
    if not isinstance(raw, dict):
        raise CatalogDataError(f"{PROVIDERS_FILE} {name}: expected a mapping")
    missing = [k for k in FACT_KEYS if k not in raw]
    if missing:
        raise CatalogDataError(f"{PROVIDERS_FILE} {name}: missing facts {', '.join(missing)}")
    facts = {key: _fact(name, key, raw[key]) for key in FACT_KEYS}
    return ProviderFacts(name, str(raw.get("title") or name), bool(raw.get("renders")), facts)


@functools.cache
def all_facts() -> dict[str, ProviderFacts]:
    """Every provider in the data file, in file order."""
    data = read_yaml(PROVIDERS_FILE)
    return {str(name): _provider(str(name), raw) for name, raw in (data.get("providers") or {}).items()}


@functools.cache
def sources() -> dict[str, str]:
    """The full citation of every short source name the facts use (`NV-GKE`, `AZ-CLI`, ...)."""
    data = read_yaml(PROVIDERS_FILE)
    return {str(k): " ".join(str(v).split()) for k, v in (data.get("sources") or {}).items()}


def provider_facts(name: str) -> ProviderFacts:
    """The facts of one provider (KeyError for a name the data file does not list)."""
    return all_facts()[name]


@functools.cache
def renderable_names() -> tuple[str, ...]:
    """Providers gpuplane renders node pools for (each has a module in `gpuplane.providers`)."""
    return tuple(name for name, facts in all_facts().items() if facts.renders)


@functools.cache
def chart_facts() -> dict[str, Any]:
    """The NVIDIA Helm chart defaults render relies on (GPU Operator, DRA driver)."""
    data: dict[str, Any] = read_yaml(CHARTS_FILE)
    return data
