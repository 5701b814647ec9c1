"""The `Catalog`: look up accelerators (by name or alias), VM SKUs and prices.

Lookups are case-insensitive and never raise for unknown names: they return None so callers
can turn a miss into a located error of their own.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from gpuplane.catalog.loader import CatalogDataError, load_accelerators, load_vm_skus
from gpuplane.catalog.models import Accelerator, Price, VmSku

_MIG_SUFFIX = re.compile(r"-MIG-(?:[0-9a-z.+-]+|INVALID)$", re.IGNORECASE)


def _key(name: str) -> str:
    return name.strip().lower()


class Catalog:
    """Accelerator, VM SKU and price facts with case-insensitive lookups."""

    def __init__(self, accelerators: list[Accelerator], vm_skus: list[VmSku]) -> None:
        self._accelerators = list(accelerators)
        self._by_name: dict[str, Accelerator] = {}
        for acc in self._accelerators:
            extra = [acc.gke_accelerator_type] if acc.gke_accelerator_type else []
            for alias in dict.fromkeys([acc.name, *acc.aliases, *acc.gfd_products, *extra]):
                other = self._by_name.setdefault(_key(alias), acc)
                if other is not acc:
                    raise CatalogDataError(f"alias {alias!r} names both {other.name} and {acc.name}")
        self._by_pci: dict[str, Accelerator] = {}
        for acc in self._accelerators:
            for pci in acc.pci_device_ids:
                self._by_pci.setdefault(pci.lower(), acc)
        self._skus = list(vm_skus)
        self._sku_index: dict[tuple[str, str], VmSku] = {}
        for sku in self._skus:
            if sku.accelerator not in {a.name for a in self._accelerators}:
                raise CatalogDataError(f"VM {sku.name}: unknown accelerator {sku.accelerator!r}")
            self._sku_index[(sku.provider, _key(sku.name))] = sku

    def accelerator(self, name_or_alias: str) -> Accelerator | None:
        """The accelerator with this canonical name, alias or GFD product name, or None."""
        return self._by_name.get(_key(name_or_alias))

    def accelerator_for_product(self, product: str) -> Accelerator | None:
        """The accelerator behind a GFD product label value (`vocab.GFD_GPU_PRODUCT`), ignoring the `-SHARED`
        and `-MIG-<profile>` suffixes GFD adds (`NVIDIA-H100-80GB-HBM3-MIG-1g.10gb-SHARED`)."""
        text = product.strip()
        text = text.removesuffix("-SHARED")
        text = _MIG_SUFFIX.sub("", text)
        return self.accelerator(text)

    def accelerators(self) -> list[Accelerator]:
        """Every accelerator, in catalog order."""
        return list(self._accelerators)

    def accelerator_names(self) -> list[str]:
        """Canonical names, in catalog order (for error messages and help)."""
        return [a.name for a in self._accelerators]

    def accelerator_for_pci_id(self, pci_id: str) -> Accelerator | None:
        """The accelerator with this PCI device id (`0x233010DE`), or None."""
        return self._by_pci.get(pci_id.strip().lower())

    def vm_sku(self, provider: str, name: str) -> VmSku | None:
        """A VM size of one provider (`aks`, `gke`, `eks`), case-insensitive, or None."""
        return self._sku_index.get((_key(provider), _key(name)))

    def vm_skus(self, provider: str | None = None) -> list[VmSku]:
        """VM sizes of one provider, or of all providers, in catalog order."""
        if provider is None:
            return list(self._skus)
        wanted = _key(provider)
        return [s for s in self._skus if s.provider == wanted]

    def price(self, provider: str, vm: str, region: str) -> Price | None:
        """The price of a VM size in exactly this region, or None when we have none."""
        sku = self.vm_sku(provider, vm)
        if sku is None:
            return None
        wanted = _key(region)
        return next((p for p in sku.prices if p.region.lower() == wanted), None)

    def gke_accelerator_type(self, accelerator: str, machine_type: str | None = None) -> str | None:
        """GKE's accelerator type name (`nvidia-tesla-a100`) for a catalog name or alias.

        With a GKE machine type, that machine's own type wins (a3-megagpu-8g attaches
        `nvidia-h100-mega-80gb`).
        """
        if machine_type is not None:
            sku = self.vm_sku("gke", machine_type)
            if sku is not None and sku.gke_accelerator_type:
                return sku.gke_accelerator_type
        acc = self.accelerator(accelerator)
        return acc.gke_accelerator_type if acc else None


@functools.cache
def _default_catalog() -> Catalog:
    return Catalog(load_accelerators(), load_vm_skus())


def load_catalog(folder: Path | None = None) -> Catalog:
    """The packaged catalog (loaded once and cached), or one read from another data folder."""
    if folder is None:
        return _default_catalog()
    return Catalog(load_accelerators(folder), load_vm_skus(folder))
