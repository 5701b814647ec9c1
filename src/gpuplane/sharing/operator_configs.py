"""The GPU Operator's default MIG configurations (`all-balanced`, `all-1g.10gb`, ...) as data.

A config is a list of mig-parted entries; an entry with a device filter applies only to GPUs with
one of those PCI device ids, an entry without one to every GPU. A config "applies" to an
accelerator when an entry selects it and every profile of that entry exists on the accelerator
(`all-1g.5gb` has no filter, but only the A100-40GB has a 1g.5gb profile).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from gpuplane.catalog.loader import read_yaml
from gpuplane.catalog.models import Accelerator, normalize_profile_name

OPERATOR_CONFIGS_FILE = "gpu_operator_mig_configs.yaml"


@dataclass(frozen=True)
class OperatorConfigEntry:
    """One mig-parted entry: which GPUs (PCI ids; empty = all), MIG on or off, instances per GPU."""

    device_filter: tuple[str, ...]
    mig_enabled: bool
    devices: tuple[tuple[str, int], ...]

    def selects(self, accelerator: Accelerator) -> bool:
        """True when the entry's device filter matches this accelerator (or there is no filter)."""
        if not self.device_filter:
            return True
        ids = {p.lower() for p in accelerator.pci_device_ids}
        return any(f.lower() in ids for f in self.device_filter)

    def layout(self) -> list[str]:
        """The per-GPU profile list: each profile repeated by its count, in file order."""
        return [name for name, count in self.devices for _ in range(count)]


@functools.cache
def operator_default_configs() -> dict[str, tuple[OperatorConfigEntry, ...]]:
    """Config name -> entries, from the packaged copy of the operator's default ConfigMap."""
    data = read_yaml(OPERATOR_CONFIGS_FILE)
    configs: dict[str, tuple[OperatorConfigEntry, ...]] = {}
    for name, entries in data["configs"].items():
        configs[str(name)] = tuple(
            OperatorConfigEntry(
                device_filter=tuple(str(f) for f in (e["filter"] or [])),
                mig_enabled=bool(e["enabled"]),
                devices=tuple((str(k), int(v)) for k, v in (e["devices"] or {}).items()),
            )
            for e in entries
        )
    return configs


def _entry_for(
    config: tuple[OperatorConfigEntry, ...], accelerator: Accelerator
) -> OperatorConfigEntry | None:
    """The entry mig-parted would apply to this GPU: a filter match beats an unfiltered entry."""
    filtered = [e for e in config if e.device_filter and e.selects(accelerator)]
    if filtered:
        return filtered[0]
    return next((e for e in config if not e.device_filter), None)


def layout_for_config(config_name: str, accelerator: Accelerator) -> list[str] | None:
    """Per-GPU MIG profiles a default config gives this accelerator; None if it does not apply.

    `all-disabled` gives [] to every GPU (MIG off). `all-enabled` gives [] to MIG GPUs (MIG on,
    no instances yet) and None to the others, like any config that enables MIG.
    """
    config = operator_default_configs().get(config_name)
    if config is None:
        return None
    entry = _entry_for(config, accelerator)
    if entry is None:
        return None
    if not entry.mig_enabled:
        return []
    if not accelerator.mig_capable:
        return None
    layout = entry.layout()
    if any(normalize_profile_name(p) not in accelerator.mig_profiles for p in layout):
        return None
    return [normalize_profile_name(p) for p in layout]


def configs_for(accelerator: Accelerator) -> dict[str, list[str]]:
    """Every default config that applies to this accelerator, with the layout it gives."""
    result: dict[str, list[str]] = {}
    for name in operator_default_configs():
        layout = layout_for_config(name, accelerator)
        if layout is not None:
            result[name] = layout
    return result
