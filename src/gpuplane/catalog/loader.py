"""Read the catalog data files (YAML and CSV shipped in `gpuplane/catalog/data/`) into records.

The files are package data, not user input: a malformed file is a packaging bug, reported as a
`CatalogDataError` that names the file and the entry.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from gpuplane.catalog.models import Accelerator, MigProfile, Price, VmSku

try:
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on the PyYAML build
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

PROVIDERS = ("aks", "gke", "eks")
_PROFILE_GB = re.compile(r"^(?:\d+c\.)?\d+g\.(\d+)gb")


class CatalogDataError(ValueError):
    """A catalog data file does not have the expected shape."""


def data_dir() -> Path:
    """Folder of the packaged data files."""
    return Path(str(resources.files("gpuplane.catalog") / "data"))


def read_yaml(name: str, folder: Path | None = None) -> Any:
    """Parse one YAML data file."""
    path = (folder or data_dir()) / name
    with path.open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_Loader)


def _require(entry: dict[str, Any], key: str, where: str) -> Any:
    if key not in entry:
        raise CatalogDataError(f"{where}: missing field {key!r}")
    return entry[key]


def _profile(name: str, row: list[Any], where: str) -> MigProfile:
    """A MIG profile from its compact row `[compute, memory, max, placements, source, min_driver?]`."""
    if not isinstance(row, list) or len(row) not in (5, 6):
        raise CatalogDataError(
            f"{where}: profile {name!r} must be [compute, memory, max, placements, source]"
        )
    match = _PROFILE_GB.match(name)
    if match is None:
        raise CatalogDataError(f"{where}: cannot read the memory size from profile name {name!r}")
    compute, memory, max_count, placements, placement_source = row[:5]
    return MigProfile(
        name=name,
        compute_slices=int(compute),
        memory_slices=int(memory),
        max_count=int(max_count),
        placements=[int(p) for p in placements],
        memory_gb=int(match.group(1)),
        placement_source=str(placement_source),
        min_driver=str(row[5]) if len(row) == 6 else None,
    )


def _accelerator(entry: dict[str, Any], index: int) -> Accelerator:
    where = f"accelerators.yaml accelerators[{index}]"
    name = str(_require(entry, "name", where))
    where = f"accelerators.yaml {name}"
    profiles = {
        pname: _profile(pname, row, where) for pname, row in (entry.get("mig_profiles") or {}).items()
    }
    return Accelerator(
        name=name,
        memory_gb=float(_require(entry, "memory_gb", where)),
        architecture=str(_require(entry, "architecture", where)),
        aliases=[str(a) for a in entry.get("aliases", [])],
        visualization_only=bool(entry.get("visualization_only", False)),
        memory_slices=int(entry.get("memory_slices", 0)),
        compute_slices=int(entry.get("compute_slices", 0)),
        mig_profiles=profiles,
        pci_device_ids=[str(p).upper().replace("0X", "0x") for p in entry.get("pci_device_ids", [])],
        gfd_products=[str(p) for p in entry.get("gfd_products", [])],
        gke_accelerator_type=entry.get("gke_accelerator_type"),
        source=str(_require(entry, "source", where)),
        date=str(_require(entry, "date", where)),
    )


def load_accelerators(folder: Path | None = None) -> list[Accelerator]:
    """All accelerators in file order."""
    data = read_yaml("accelerators.yaml", folder)
    return [_accelerator(entry, i) for i, entry in enumerate(data["accelerators"])]


def _price_rows(folder: Path | None) -> Iterator[dict[str, str]]:
    text = ((folder or data_dir()) / "prices.csv").read_text(encoding="utf-8")
    body = "".join(line for line in io.StringIO(text) if not line.startswith("#"))
    yield from csv.DictReader(io.StringIO(body))


def load_prices(folder: Path | None = None) -> dict[tuple[str, str], list[Price]]:
    """Prices keyed by (provider, lower-case VM name), each list in file order."""
    prices: dict[tuple[str, str], list[Price]] = {}
    for line, row in enumerate(_price_rows(folder), start=2):
        try:
            price = Price(
                region=row["region"],
                on_demand_hourly=float(row["on_demand_hourly"]),
                spot_hourly=float(row["spot_hourly"]) if row["spot_hourly"] else None,
                currency=row["currency"],
                date=row["date"],
                source=row["source"],
                note=row.get("note", ""),
            )
        except (KeyError, ValueError) as exc:
            raise CatalogDataError(f"prices.csv row {line}: {exc}") from exc
        prices.setdefault((row["provider"], row["vm"].lower()), []).append(price)
    return prices


def load_vm_skus(folder: Path | None = None) -> list[VmSku]:
    """All VM SKUs of all providers, with their prices attached."""
    data = read_yaml("vm_skus.yaml", folder)
    prices = load_prices(folder)
    skus: list[VmSku] = []
    for provider in PROVIDERS:
        for family in data.get(provider, []):
            where = f"vm_skus.yaml {provider} family {family.get('family')!r}"
            for row in _require(family, "skus", where):
                name, gpus, vcpus, memory = row
                skus.append(
                    VmSku(
                        provider=provider,
                        name=str(name),
                        family=str(_require(family, "family", where)),
                        accelerator=str(_require(family, "accelerator", where)),
                        gpus=int(gpus),
                        vcpus=None if vcpus is None else int(vcpus),
                        memory_gb=None if memory is None else float(memory),
                        prices=prices.get((provider, str(name).lower()), []),
                        source=str(_require(family, "source", where)),
                        gke_accelerator_type=family.get("gke_accelerator_type"),
                    )
                )
    return skus
