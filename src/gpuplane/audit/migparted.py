"""mig-parted configs as the audit reads them: the bare file and the ConfigMap holding it.

Format (NVIDIA/mig-parted api/spec/v1/spec.go @bd7160f, v0.12-v0.15 releases; examples/config.yaml;
shared reference nvidia.md section 2.1): `version: v1` and `mig-configs: name -> [entry]`, each entry
`device-filter` (optional: a PCI device id string or a list of them, `0x20B010DE`), `devices`
(required: `all` or a list of GPU indexes), `mig-enabled` (required bool) and `mig-devices`
(profile -> count; required when MIG is on, may be `{}`; must be empty when it is off). The GPU
Operator's MIG manager reads the same text from the `config.yaml` key of a ConfigMap
(gpu-operator assets/state-mig-manager/0400_configmap.yaml `default-mig-parted-config`; custom
ConfigMaps "must contain a key named config.yaml").

An entry with a device filter applies to the GPUs with those PCI ids; for one GPU a filter match
beats an unfiltered entry (mig-parted's selection, as `gpuplane.sharing.operator_configs` models it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from gpuplane.audit.objects import K8sObject, Path, as_dict, as_list, as_str, position
from gpuplane.errors import InputError
from gpuplane.yamlio import load_one

MIG_PARTED_CONFIG = "MigPartedConfig"  # the pseudo-kind of a bare mig-parted file
CONFIG_KEY = "config.yaml"


@dataclass
class MigEntry:
    """One entry of a named config, with where it was written."""

    config: str
    index: int
    device_filter: list[str]
    enabled: bool | None
    devices: dict[str, int]
    obj: K8sObject
    path: Path
    root: Any = None  # the parsed ConfigMap value the path is in (None: the object itself)
    line_offset: int = 0  # lines before that value's text in the file
    problems: list[str] = field(default_factory=list)

    def layout(self) -> list[str]:
        """The per-GPU profile list: each profile repeated by its count."""
        return [name for name, count in self.devices.items() for _ in range(max(count, 0))]

    def pos(self) -> tuple[int | None, int | None]:
        """Line and column of the entry in the file (inside a ConfigMap's value: shifted by its line)."""
        if self.root is None:
            return self.obj.pos(self.path)
        line, column = position(self.root, self.path)
        if line is None or self.obj.live:
            return self.obj.pos(("data", CONFIG_KEY))
        return line + self.line_offset, column


def _entries(
    config: str, items: Any, obj: K8sObject, base: Path, root: Any, offset: int
) -> Iterator[MigEntry]:
    for i, item in enumerate(as_list(items)):
        path: Path = (*base, config, i)
        if not isinstance(item, dict):
            yield MigEntry(config, i, [], None, {}, obj, path, root, offset, ["an entry is a mapping"])
            continue
        raw_filter = item.get("device-filter")
        filters = (
            [as_str(raw_filter)] if isinstance(raw_filter, str) else [as_str(f) for f in as_list(raw_filter)]
        )
        enabled = item.get("mig-enabled")
        devices: dict[str, int] = {}
        problems: list[str] = []
        for name, count in as_dict(item.get("mig-devices")).items():
            if isinstance(count, int) and not isinstance(count, bool):
                devices[str(name)] = count
            else:
                problems.append(f"mig-devices {name}: the count {as_str(count)!r} is not an integer")
        if not isinstance(enabled, bool):
            problems.append("mig-enabled is required (true or false)")
        elif not enabled and devices:
            problems.append("mig-devices must be empty when mig-enabled is false")
        if "devices" not in item:
            problems.append("devices is required (`all` or a list of GPU indexes)")
        yield MigEntry(
            config,
            i,
            filters,
            enabled if isinstance(enabled, bool) else None,
            devices,
            obj,
            path,
            root,
            offset,
            problems,
        )


def is_mig_parted(data: Any) -> bool:
    """A mapping without `kind` holding `mig-configs` (a mig-parted config file)."""
    return (
        isinstance(data, dict) and not as_str(data.get("kind")) and isinstance(data.get("mig-configs"), dict)
    )


def mig_entries(obj: K8sObject) -> Iterator[MigEntry]:
    """Every entry of a bare mig-parted file or of the `config.yaml` of a ConfigMap that holds one."""
    if obj.kind == MIG_PARTED_CONFIG:
        for name, items in as_dict(obj.data.get("mig-configs")).items():
            yield from _entries(str(name), items, obj, ("mig-configs",), None, 0)
        return
    if obj.kind != "ConfigMap":
        return
    text = as_dict(obj.data.get("data")).get(CONFIG_KEY)
    if not isinstance(text, str) or "mig-configs" not in text:
        return
    try:
        root = load_one(text, obj.file)
    except InputError:
        return
    if not is_mig_parted(root):
        return
    key_line = obj.pos(("data", CONFIG_KEY))[0] or 0  # a block scalar starts on the line after its key
    for name, items in as_dict(as_dict(root).get("mig-configs")).items():
        yield from _entries(str(name), items, obj, ("mig-configs",), root, key_line)


def config_names(objects: list[K8sObject]) -> dict[str, list[MigEntry]]:
    """Config name -> entries, over every mig-parted config of the input."""
    out: dict[str, list[MigEntry]] = {}
    for obj in objects:
        for e in mig_entries(obj):
            out.setdefault(e.config, []).append(e)
    return out
