"""Kubernetes providers: their GPU facts as data and one module per provider.

    provider = get("aks")                    # the AKS module's PROVIDER (a BaseProvider)
    provider.nodepool_file(spec, pools)      # the az aks nodepool add script
    provider.facts["mig"].value              # "instance-profile", with source and date

The registry is the data file: every provider that `catalog/data/providers.yaml` marks
`renders: true` has a module `gpuplane.providers.<name>` defining `PROVIDER`. Adding a provider
touches that module and the data (docs/contributing.md, "Adding a provider"). Modules are imported
on first use, so the spec models can read the provider names without importing the providers.
"""

from __future__ import annotations

import functools
import importlib

from gpuplane.catalog.providers import Fact, ProviderFacts, all_facts, provider_facts
from gpuplane.catalog.providers import renderable_names as _renderable_names
from gpuplane.providers.base import BaseProvider, NodePoolFile, PoolSetup
from gpuplane.registry import Registry as _Registry

__all__ = [
    "BaseProvider",
    "Fact",
    "NodePoolFile",
    "PoolSetup",
    "ProviderFacts",
    "all_facts",
    "get",
    "names",
    "provider_facts",
    "registered",
]


@functools.cache
def _registry() -> _Registry[BaseProvider]:
    """Every provider module, by name, in the data file's order (a name listed twice is refused)."""
    out: _Registry[BaseProvider] = _Registry("provider")
    for name in _renderable_names():
        module = importlib.import_module(f"gpuplane.providers.{name}")
        provider = getattr(module, "PROVIDER", None)
        if not isinstance(provider, BaseProvider) or provider.name != name:
            raise TypeError(f"gpuplane.providers.{name} must define PROVIDER, a BaseProvider named {name!r}")
        out.add(name, provider)
    return out


def registered() -> dict[str, BaseProvider]:
    """Every provider module, by name, in the data file's order."""
    providers = _registry()
    return {name: providers.get(name) for name in providers}


def get(name: str) -> BaseProvider:
    """The provider module for `name` (a UsageError naming the known ones for one the data file
    does not mark renders: true)."""
    return _registry().get(name)


def names() -> tuple[str, ...]:
    """The providers gpuplane renders, in the data file's order."""
    return _renderable_names()
