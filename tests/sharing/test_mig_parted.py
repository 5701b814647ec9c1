"""mig-parted config files built from layouts: same shape as the GPU Operator docs' custom config,
and the docs' own custom layouts fit the GPU they were written for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuplane.catalog import load_catalog
from gpuplane.sharing import mig
from gpuplane.sharing.mig_parted import mig_devices, mig_parted_config, valid_config_name


def _docs(shared_dir: Path, name: str) -> dict[str, Any]:
    text = (shared_dir / "reference/nvidia-data" / name).read_text(encoding="utf-8")
    docs: dict[str, Any] = yaml.safe_load(text)
    return docs


def test_custom_config_matches_the_operator_docs_example(shared_dir: Path) -> None:
    docs = yaml.safe_load(
        _docs(shared_dir, "gpu-operator-docs-custom-mig-config.yaml")["data"]["config.yaml"]
    )
    ours = mig_parted_config({"five-1g-one-2g": ["1g.10gb"] * 5 + ["2g.20gb"]})
    assert ours == docs


def test_docs_custom_layouts_fit_an_h100(shared_dir: Path) -> None:
    values = _docs(shared_dir, "gpu-operator-docs-mig-cm-values.yaml")
    config = yaml.safe_load(values["migManager"]["config"]["data"]["config.yaml"])
    h100 = load_catalog().accelerator("H100-80GB")
    assert h100 is not None
    checked = 0
    for entries in config["mig-configs"].values():
        for entry in entries:
            if entry["mig-enabled"]:
                layout = [p for p, n in entry["mig-devices"].items() for _ in range(n)]
                assert mig.check_layout(h100, layout).fits, layout
                checked += 1
    assert checked == 3


def test_device_filter_and_media_spelling() -> None:
    config = mig_parted_config(
        {"inference": ["3g.40gb", "1g.10gb.me"]}, device_filter=["0x233010DE"], include_all_disabled=False
    )
    assert list(config["mig-configs"]) == ["inference"]
    entry = config["mig-configs"]["inference"][0]
    assert entry["device-filter"] == ["0x233010DE"]
    assert entry["mig-devices"] == {"3g.40gb": 1, "1g.10gb+me": 1}


def test_mig_devices_counts_in_first_seen_order() -> None:
    assert list(mig_devices(["2g.20gb", "1g.10gb", "2g.20gb"]).items()) == [("2g.20gb", 2), ("1g.10gb", 1)]


@pytest.mark.parametrize("name", ["", "has space", "-leading", "x" * 64, "a/b"])
def test_config_names_must_be_label_values(name: str) -> None:
    assert not valid_config_name(name)
    with pytest.raises(ValueError, match="label value"):
        mig_parted_config({name: ["1g.10gb"]})
