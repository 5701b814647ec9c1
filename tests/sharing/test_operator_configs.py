"""GPU Operator default MIG configs: the packaged copy matches NVIDIA's ConfigMap, and every
config checks as valid for each GPU it applies to (tested against the shared reference file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuplane.catalog import Accelerator, load_catalog
from gpuplane.sharing import mig


def _acc(name: str) -> Accelerator:
    acc = load_catalog().accelerator(name)
    assert acc is not None
    return acc


@pytest.fixture(scope="module")
def upstream(shared_dir: Path) -> dict[str, list[dict[str, Any]]]:
    path = shared_dir / "reference/nvidia-data/gpu-operator-default-mig-parted-config.yaml"
    configmap = yaml.safe_load(path.read_text(encoding="utf-8"))
    parsed = yaml.safe_load(configmap["data"]["config.yaml"])
    assert parsed["version"] == "v1"
    configs: dict[str, list[dict[str, Any]]] = parsed["mig-configs"]
    return configs


def _filters(entry: dict[str, Any]) -> list[str]:
    raw = entry.get("device-filter")
    return [] if raw is None else [raw] if isinstance(raw, str) else list(raw)


def test_packaged_configs_equal_the_operator_configmap(upstream: dict[str, list[dict[str, Any]]]) -> None:
    packaged = mig.operator_default_configs()
    assert list(packaged) == list(upstream)
    for name, entries in upstream.items():
        mine = packaged[name]
        assert len(mine) == len(entries), name
        for ours, theirs in zip(mine, entries, strict=True):
            assert list(ours.device_filter) == _filters(theirs)
            assert ours.mig_enabled == theirs["mig-enabled"]
            assert dict(ours.devices) == (theirs.get("mig-devices") or {})


def test_every_default_config_fits_every_catalog_gpu_it_applies_to(
    upstream: dict[str, list[dict[str, Any]]],
) -> None:
    cat = load_catalog()
    checked = 0
    for name, entries in upstream.items():
        for entry in entries:
            if not entry["mig-enabled"]:
                continue
            layout = [p for p, n in (entry.get("mig-devices") or {}).items() for _ in range(n)]
            filters = _filters(entry)
            if filters:
                targets = {a.name: a for f in filters if (a := cat.accelerator_for_pci_id(f)) is not None}
            else:  # unfiltered: every MIG GPU that has all the profiles
                targets = {
                    a.name: a
                    for a in cat.accelerators()
                    if a.mig_capable and all(a.mig_profile(p) for p in layout)
                }
            for acc in targets.values():
                fit = mig.check_layout(acc, layout)
                assert fit.fits, (name, acc.name, fit.reason)
                profiles = [acc.mig_profile(p) for p in layout]
                assert None not in profiles, (name, acc.name)
                assert mig.layout_for_config(name, acc) == [p.name for p in profiles if p is not None]
                checked += 1
    assert checked >= 60


def test_every_catalog_mig_gpu_gets_all_balanced(upstream: dict[str, list[dict[str, Any]]]) -> None:
    for acc in load_catalog().accelerators():
        if acc.mig_capable:
            layout = mig.layout_for_config("all-balanced", acc)
            assert layout, acc.name
            assert mig.check_layout(acc, layout).fits


def test_all_balanced_on_h100_is_two_1g_one_2g_one_3g() -> None:
    layout = mig.layout_for_config("all-balanced", _acc("H100-80GB"))
    assert sorted(layout or []) == ["1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb"]


def test_all_1g_10gb_depends_on_the_gpu_model() -> None:
    assert mig.layout_for_config("all-1g.10gb", _acc("H100-80GB")) == ["1g.10gb"] * 7
    assert mig.layout_for_config("all-1g.10gb", _acc("A100-40GB")) == ["1g.10gb"] * 4


def test_configs_for_other_gpus_do_not_apply() -> None:
    assert mig.layout_for_config("all-1g.5gb", _acc("H100-80GB")) is None
    assert mig.layout_for_config("all-balanced", _acc("T4")) is None
    assert mig.layout_for_config("no-such-config", _acc("H100-80GB")) is None


def test_all_disabled_applies_everywhere_and_all_enabled_only_to_mig_gpus() -> None:
    assert mig.layout_for_config("all-disabled", _acc("T4")) == []
    assert mig.layout_for_config("all-disabled", _acc("A30")) == []
    assert mig.layout_for_config("all-enabled", _acc("A30")) == []
    assert mig.layout_for_config("all-enabled", _acc("L4")) is None


def test_config_names_spell_media_profiles_with_a_dot() -> None:
    assert mig.layout_for_config("all-1g.10gb.me", _acc("H100-80GB")) == ["1g.10gb+me"]


def test_every_pci_id_of_a_mig_gpu_is_in_an_operator_all_balanced_filter(
    upstream: dict[str, list[dict[str, Any]]],
) -> None:
    for acc in load_catalog().accelerators():
        if not acc.mig_capable:
            continue
        for pci in acc.pci_device_ids:
            entries = [e for e in upstream["all-balanced"] if pci in _filters(e)]
            assert len(entries) == 1, (acc.name, pci)
            assert all(acc.mig_profile(p) for p in entries[0]["mig-devices"]), (acc.name, pci)
