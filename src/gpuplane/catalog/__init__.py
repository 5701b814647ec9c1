"""GPU, MIG profile, VM SKU and price facts, shipped as data files with their sources.

from gpuplane.catalog import load_catalog
cat = load_catalog()
cat.accelerator("h100")            # -> Accelerator(name="H100-80GB", ...)
cat.vm_sku("aks", "Standard_NC24ads_A100_v4").gpus
cat.price("eks", "p5.48xlarge", "us-east-1")
"""

from __future__ import annotations

from gpuplane.catalog.catalog import Catalog, load_catalog
from gpuplane.catalog.loader import PROVIDERS, CatalogDataError
from gpuplane.catalog.models import (
    Accelerator,
    MigProfile,
    Price,
    VmSku,
    normalize_profile_name,
)

__all__ = [
    "PROVIDERS",
    "Accelerator",
    "Catalog",
    "CatalogDataError",
    "MigProfile",
    "Price",
    "VmSku",
    "load_catalog",
    "normalize_profile_name",
]
