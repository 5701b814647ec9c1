"""The provider facts: every fact carries a source and a date, every short source name is spelled
out, every provider that renders has its module, and the packaged facts agree with the researched
summary in ../shared/reference/providers.md and dra.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuplane import providers
from gpuplane.catalog.loader import CatalogDataError
from gpuplane.catalog.providers import FACT_KEYS, _provider, all_facts, chart_facts, renderable_names, sources
from gpuplane.spec import PlatformSpec


def test_every_fact_has_a_value_a_source_and_a_date() -> None:
    assert set(all_facts()) >= {"aks", "gke", "eks", "generic"}
    for facts in all_facts().values():
        assert set(facts.facts) == set(FACT_KEYS), facts.name
        for fact in facts.facts.values():
            assert fact.source.strip() and re.fullmatch(r"\d{4}-\d{2}-\d{2}", fact.date), (
                facts.name,
                fact.key,
            )


def test_a_fact_without_a_date_is_a_packaging_error() -> None:
    raw = {key: {"value": None, "source": "s", "date": "2026-12-01"} for key in FACT_KEYS}
    raw["mig"] = {"value": "x", "source": "s"}
    with pytest.raises(CatalogDataError, match=r"providers.yaml p.mig: missing date"):
        _provider("p", raw)


def test_every_short_source_name_is_spelled_out() -> None:
    known = sources()
    for facts in all_facts().values():
        for fact in facts.facts.values():
            for short in re.findall(r"\b[A-Z]{2,}(?:-[A-Z]+)+\b", fact.source):
                assert short in known, f"{facts.name}.{fact.key} cites {short}, not in sources"


def test_every_rendering_provider_has_a_module_and_the_spec_accepts_exactly_those() -> None:
    assert tuple(providers.registered()) == renderable_names() == ("aks", "gke", "eks", "generic")
    for name in renderable_names():
        assert providers.get(name).name == name
    schema = PlatformSpec.model_json_schema(by_alias=True)
    assert schema["$defs"]["Cluster"]["properties"]["provider"]["enum"] == list(renderable_names())
    assert "coreweave" in all_facts() and "coreweave" not in renderable_names()


def test_chart_facts_name_the_releases_render_targets() -> None:
    charts = chart_facts()
    assert charts["gpu_operator"]["version"] == "v26.7.0"
    assert charts["gpu_operator"]["default_driver_version"] == "595.91.07"
    assert charts["dra_driver"]["version"] == "0.4.1"
    assert charts["dra_driver"]["feature_gates"] == {
        "time-slicing": "TimeSlicingSettings",
        "mps": "MPSSupport",
    }


def test_facts_agree_with_the_researched_provider_matrix(shared_dir: Path) -> None:
    ref = (shared_dir / "reference" / "providers.md").read_text(encoding="utf-8")
    facts = all_facts()
    aks_taint = facts["aks"]["spot"].get("taint")
    short_key = aks_taint["key"].split("/")[-1]  # the summary writes `scalesetpriority=spot:NoSchedule`
    assert f"{short_key}={aks_taint['value']}:{aks_taint['effect']}" in ref
    assert facts["gke"]["mps"].get("min_version") in ref
    assert "MIG1g…MIG7g" in ref and facts["aks"]["mig"].get("profiles")[0] == "MIG1g"
    assert "A100, H100, H200, B200" in ref
    assert {"A100-80GB", "H100-80GB", "H200-141GB", "B200"} <= set(facts["gke"]["mig"].get("accelerators"))
    assert "**EFA only: no InfiniBand or RoCE**" in ref and facts["eks"]["fabric"].value == "EFA"
    assert "Enabled on 1.33–1.35" in ref and facts["coreweave"]["dra"].value == "1.33"
    assert "**CoreWeave manages the GPU Operator (do not install your own)**" in ref
    assert "Yes: 1.34+" in ref and facts["eks"]["dra"].value == "1.34"


def test_dra_facts_agree_with_the_dra_reference(shared_dir: Path) -> None:
    ref = (shared_dir / "reference" / "dra.md").read_text(encoding="utf-8")
    assert "**Kubernetes 1.34**: `resource.k8s.io/v1`" in ref
    assert all(facts["dra"].value in (None, "1.33", "1.34") for facts in all_facts().values())
    assert "needs K8s ≥ 1.34" in ref  # Kueue's DRA paths (spec validate warns below it)
