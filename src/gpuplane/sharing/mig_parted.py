"""mig-parted config files (the `config.yaml` the GPU Operator's MIG manager reads) from layouts.

Format: NVIDIA/mig-parted `api/spec/v1/spec.go` @bd7160f (nvidia.md section 2.1): `version: v1`
and `mig-configs: name -> [ {device-filter?, devices, mig-enabled, mig-devices} ]`. The config
name becomes the value of the MIG manager's node label (`vocab.MIG_CONFIG_LABEL`), so it must be a
valid label value.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from gpuplane.catalog.models import normalize_profile_name

_LABEL_VALUE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
ALL_DISABLED = "all-disabled"


def valid_config_name(name: str) -> bool:
    """True when `name` can be the value of the MIG config node label (`vocab.MIG_CONFIG_LABEL`)."""
    return bool(_LABEL_VALUE.match(name))


def mig_devices(layout: Sequence[str]) -> dict[str, int]:
    """Profile -> count for one GPU, in order of first appearance (`+me` kept as `+me`)."""
    return dict(Counter(normalize_profile_name(p) for p in layout))


def mig_parted_config(
    configs: Mapping[str, Sequence[str]],
    *,
    device_filter: Sequence[str] | None = None,
    include_all_disabled: bool = True,
) -> dict[str, Any]:
    """A mig-parted config with one entry per named per-GPU layout (applied to all GPUs).

    `device_filter` limits every entry to GPUs with those PCI ids (`0x233010DE`).
    `all-disabled` is added unless given or `include_all_disabled` is False, so nodes can always
    be switched back. Raises ValueError for a name that is not a valid label value.
    """
    result: dict[str, list[dict[str, Any]]] = {}
    if include_all_disabled and ALL_DISABLED not in configs:
        result[ALL_DISABLED] = [{"devices": "all", "mig-enabled": False}]
    for name, layout in configs.items():
        if not valid_config_name(name):
            raise ValueError(f"MIG config name {name!r} is not a valid Kubernetes label value")
        entry: dict[str, Any] = {}
        if device_filter:
            entry["device-filter"] = list(device_filter)
        entry["devices"] = "all"
        if name == ALL_DISABLED:
            entry["mig-enabled"] = False
        else:
            entry["mig-enabled"] = True
            entry["mig-devices"] = mig_devices(layout)
        result[name] = [entry]
    return {"version": "v1", "mig-configs": result}
