"""VM SKU and price facts: the families the issue asks for exist, lookups are case-insensitive,
and every packaged price agrees with the researched price table in ../shared/reference/prices/."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from gpuplane.catalog import PROVIDERS, load_catalog

REQUIRED_FAMILIES = {
    "aks": ["NC A100 v4", "ND H100 v5", "NC T4 v3", "NV v3"],
    "gke": ["a2", "a3", "g2"],
    "eks": ["p4d", "p5", "g5", "g6"],
}
SUMMARY_PROVIDER = {"aws": "eks", "azure": "aks", "gcp": "gke"}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_required_family_is_present(provider: str) -> None:
    families = {s.family for s in load_catalog().vm_skus(provider)}
    assert [f for f in REQUIRED_FAMILIES[provider] if f not in families] == []


def test_vm_lookup_is_case_insensitive_and_per_provider() -> None:
    cat = load_catalog()
    sku = cat.vm_sku("AKS", "standard_nc24ads_a100_v4")
    assert sku is not None and sku.name == "Standard_NC24ads_A100_v4"
    assert (sku.accelerator, sku.gpus, sku.vcpus, sku.memory_gb) == ("A100-80GB", 1, 24, 220.0)
    assert cat.vm_sku("eks", "Standard_NC24ads_A100_v4") is None
    assert cat.vm_sku("gke", "no-such-machine") is None


def test_vm_skus_filter_by_provider() -> None:
    cat = load_catalog()
    assert {s.provider for s in cat.vm_skus("gke")} == {"gke"}
    assert len(cat.vm_skus()) == sum(len(cat.vm_skus(p)) for p in PROVIDERS)


def test_every_sku_names_a_catalog_accelerator_and_a_source() -> None:
    cat = load_catalog()
    for sku in cat.vm_skus():
        assert cat.accelerator(sku.accelerator) is not None, sku.name
        assert sku.gpus >= 1 and sku.source, sku.name


def test_nd_h100_v5_has_eight_gpus_not_the_catalog_twelve() -> None:
    sku = load_catalog().vm_sku("aks", "Standard_ND96isr_H100_v5")
    assert sku is not None and sku.gpus == 8


def test_price_needs_the_exact_region() -> None:
    cat = load_catalog()
    price = cat.price("eks", "p5.48xlarge", "us-east-1")
    assert price is not None and price.currency == "USD" and price.date and price.source
    assert cat.price("eks", "p5.48xlarge", "us-east") is None
    assert cat.price("eks", "no-such-vm", "us-east-1") is None


def test_spot_is_cheaper_than_on_demand_or_unknown() -> None:
    for sku in load_catalog().vm_skus():
        for price in sku.prices:
            assert price.on_demand_hourly > 0
            assert price.spot_hourly is None or 0 < price.spot_hourly < price.on_demand_hourly


def test_azure_nd_h100_has_no_spot_price_because_the_source_has_none() -> None:
    price = load_catalog().price("aks", "Standard_ND96isr_H100_v5", "eastus")
    assert price is not None and price.spot_hourly is None


def _summary(shared_dir: Path) -> list[dict[str, str]]:
    path = shared_dir / "reference/prices/gpu_instance_price_summary.csv"
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_prices_agree_with_the_reference_summary(shared_dir: Path) -> None:
    cat = load_catalog()
    rows = _summary(shared_dir)
    assert rows
    for row in rows:
        provider = SUMMARY_PROVIDER[row["provider"]]
        price = cat.price(provider, row["instance_type"], row["region"])
        assert price is not None, row
        assert price.on_demand_hourly == pytest.approx(float(row["ondemand_usd_hr"]), rel=1e-6)
        if price.spot_hourly is not None:
            low, high = float(row["spot_usd_hr_min"]), float(row["spot_usd_hr_max"])
            assert low - 1e-6 <= price.spot_hourly <= high + 1e-6, row


def test_reference_gpu_counts_match_except_the_known_azure_error(shared_dir: Path) -> None:
    cat = load_catalog()
    for row in _summary(shared_dir):
        sku = cat.vm_sku(SUMMARY_PROVIDER[row["provider"]], row["instance_type"])
        assert sku is not None
        if sku.name != "Standard_ND96isr_H100_v5":
            assert sku.gpus == int(row["gpu_count"]), sku.name


@pytest.mark.parametrize(
    ("accelerator", "gke_type"),
    [
        ("A100", "nvidia-tesla-a100"),
        ("A100-80GB", "nvidia-a100-80gb"),
        ("H100", "nvidia-h100-80gb"),
        ("L4", "nvidia-l4"),
        ("T4", "nvidia-tesla-t4"),
        ("A30", None),
        ("nope", None),
    ],
)
def test_gke_accelerator_type_names(accelerator: str, gke_type: str | None) -> None:
    assert load_catalog().gke_accelerator_type(accelerator) == gke_type


def test_gke_accelerator_type_names_resolve_back() -> None:
    cat = load_catalog()
    for acc in cat.accelerators():
        if acc.gke_accelerator_type:
            assert cat.accelerator(acc.gke_accelerator_type) is acc


def test_gke_machine_type_can_name_its_own_accelerator_type() -> None:
    cat = load_catalog()
    assert cat.gke_accelerator_type("H100", "a3-megagpu-8g") == "nvidia-h100-mega-80gb"
    assert cat.gke_accelerator_type("H100", "a3-highgpu-8g") == "nvidia-h100-80gb"
    assert cat.gke_accelerator_type("H100", "not-a-machine") == "nvidia-h100-80gb"
    sku = cat.vm_sku("gke", "a3-megagpu-8g")
    assert sku is not None and cat.accelerator(sku.gke_accelerator_type or "") is cat.accelerator("H100")
