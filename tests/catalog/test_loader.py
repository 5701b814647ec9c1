"""The loader: cached default catalog, other data folders, and clear errors for bad data."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpuplane.catalog import CatalogDataError, load_catalog
from gpuplane.catalog.loader import data_dir


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(data_dir(), target)
    return target


def test_default_catalog_is_loaded_once() -> None:
    assert load_catalog() is load_catalog()


def test_catalog_from_another_folder_sees_its_changes(data_copy: Path) -> None:
    path = data_copy / "prices.csv"
    path.write_text(path.read_text(encoding="utf-8").replace("55.04,", "50.5,", 1), encoding="utf-8")
    price = load_catalog(data_copy).price("eks", "p5.48xlarge", "us-east-1")
    assert price is not None and price.on_demand_hourly == 50.5


def test_missing_field_names_the_file_and_accelerator(data_copy: Path) -> None:
    path = data_copy / "accelerators.yaml"
    text = path.read_text(encoding="utf-8").replace("    architecture: turing\n", "", 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogDataError, match=r"accelerators.yaml T4: missing field 'architecture'"):
        load_catalog(data_copy)


def test_bad_price_row_names_the_line(data_copy: Path) -> None:
    path = data_copy / "prices.csv"
    path.write_text(path.read_text(encoding="utf-8").replace("55.04,", "lots,", 1), encoding="utf-8")
    with pytest.raises(CatalogDataError, match=r"prices.csv row \d+"):
        load_catalog(data_copy)


def test_duplicate_alias_is_rejected(data_copy: Path) -> None:
    path = data_copy / "accelerators.yaml"
    text = path.read_text(encoding="utf-8").replace("aliases: [L4-24GB,", "aliases: [T4, L4-24GB,", 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogDataError, match="alias 'T4'"):
        load_catalog(data_copy)


def test_sku_with_unknown_accelerator_is_rejected(data_copy: Path) -> None:
    path = data_copy / "vm_skus.yaml"
    text = path.read_text(encoding="utf-8").replace("accelerator: L4\n", "accelerator: L5\n", 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogDataError, match="unknown accelerator 'L5'"):
        load_catalog(data_copy)


def test_gfd_product_with_mig_and_shared_suffixes_maps_to_the_gpu() -> None:
    cat = load_catalog()
    for label, name in [
        ("NVIDIA-H100-80GB-HBM3-MIG-1g.10gb-SHARED", "H100-80GB"),
        ("A100-SXM4-40GB-SHARED", "A100-40GB"),
        ("NVIDIA-H100-80GB-HBM3-MIG-INVALID", "H100-80GB"),
    ]:
        acc = cat.accelerator_for_product(label)
        assert acc is not None and acc.name == name
    assert cat.accelerator_for_product("NVIDIA-RTX-9999") is None
