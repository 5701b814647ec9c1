"""The provider facts as a matrix (`gpuplane providers`) and as what one spec uses of them
(`gpuplane providers --spec S`). Pure data out; the CLI formats it."""

from __future__ import annotations

from typing import Any

from gpuplane import providers
from gpuplane.catalog import load_catalog
from gpuplane.catalog.providers import Fact, ProviderFacts, all_facts, sources
from gpuplane.spec import derived
from gpuplane.spec.models import NodePool, PlatformSpec

COLUMNS = ("driver", "device_plugin", "mig", "time_slicing", "mps", "spot", "scale_to_zero", "fabric", "dra")


def _fact_json(fact: Fact) -> dict[str, Any]:
    out: dict[str, Any] = {"value": fact.value}
    out.update({k: v for k, v in sorted(fact.extra.items())})
    out.update({"note": fact.note, "source": fact.source, "date": fact.date})
    return out


def families(name: str) -> list[str]:
    """GPU VM families the catalog lists for a provider, as `family (accelerator)`."""
    seen: dict[str, None] = {}
    for sku in load_catalog().vm_skus(name):
        seen.setdefault(f"{sku.family} ({sku.accelerator})", None)
    return list(seen)


def provider_json(facts: ProviderFacts) -> dict[str, Any]:
    """One provider's row: every fact with its source and date, and its catalog VM families."""
    return {
        "name": facts.name,
        "title": facts.title,
        "renders": facts.renders,
        "facts": {key: _fact_json(fact) for key, fact in facts.facts.items()},
        "vm_families": families(facts.name),
    }


def matrix() -> dict[str, Any]:
    """Every provider the data lists, and the full text of the short source names."""
    return {"providers": [provider_json(f) for f in all_facts().values()], "sources": sources()}


def cell(fact: Fact) -> str:
    """A fact as a short table cell (`—` when the sources say nothing)."""
    value = fact.value
    if fact.key == "spot" and value:
        notice = fact.get("eviction_notice_s")
        return ("tainted" if fact.get("taint") else "no taint") + (f", {notice} s" if notice else "")
    if fact.key == "dra" and value:
        return f"from {value}"
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _pool_json(spec: PlatformSpec, pool: NodePool) -> dict[str, Any]:
    provider = providers.get(spec.cluster.provider)
    out: dict[str, Any] = {"pool": pool.name, "accelerator": pool.accelerator, "deviceApi": pool.device_api}
    out["sharing"] = pool.sharing.mode
    if pool.sharing.mode == "mig":
        out["mig"] = {"by": provider.mig_method(spec), "fact": _fact_json(provider.facts["mig"])}
    elif pool.sharing.mode in ("time-slicing", "mps"):
        key = "time_slicing" if pool.sharing.mode == "time-slicing" else "mps"
        out[key] = {"by": provider.sharing_method(spec), "fact": _fact_json(provider.facts[key])}
    if pool.spot.enabled:
        out["spot"] = _fact_json(provider.facts["spot"])
    if derived.is_dra(pool):
        out["dra"] = _fact_json(provider.facts["dra"])
    out["offers"] = derived.resources_per_node(pool)
    return out


def spec_usage(spec: PlatformSpec) -> dict[str, Any]:
    """What the spec relies on: its provider's GPU stack and, per GPU pool, the facts it uses."""
    provider = providers.get(spec.cluster.provider)
    stack = provider.stack(spec)
    return {
        "provider": provider.name,
        "title": provider.facts.title,
        "gpuStack": spec.cluster.gpu_stack,
        "stack": _fact_json(stack),
        "driver": _fact_json(provider.facts["driver"]),
        "device_plugin": _fact_json(provider.facts["device_plugin"]),
        "pools": [_pool_json(spec, p) for p in spec.node_pools if p.is_gpu],
        "sources": sources(),
    }
