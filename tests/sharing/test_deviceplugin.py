"""Device-plugin sharing config files: same shape as the GPU Operator docs' examples, plugin
defaults written explicitly, and the plugin's own rejections reproduced."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuplane.sharing.deviceplugin import sharing_config


def _docs_config(shared_dir: Path, file: str, key: str) -> dict[str, Any]:
    cm = yaml.safe_load((shared_dir / "reference/nvidia-data" / file).read_text(encoding="utf-8"))
    data: dict[str, Any] = yaml.safe_load(cm["data"][key])
    return data


def test_time_slicing_matches_the_operator_docs_example(shared_dir: Path) -> None:
    docs = _docs_config(shared_dir, "gpu-operator-docs-time-slicing-config-all.yaml", "any")
    ours = sharing_config("time-slicing", 4, mig_strategy="none")
    assert ours["version"] == docs["version"]
    assert ours["flags"] == docs["flags"]
    assert ours["sharing"]["timeSlicing"]["resources"] == docs["sharing"]["timeSlicing"]["resources"]


def test_time_slicing_mig_resources_like_the_fine_grained_docs_example(shared_dir: Path) -> None:
    docs = _docs_config(shared_dir, "gpu-operator-docs-time-slicing-config-fine.yaml", "a100-40gb")
    names = [r["name"] for r in docs["sharing"]["timeSlicing"]["resources"]]
    ours = sharing_config("time-slicing", 2, resources=names, mig_strategy="mixed")
    assert [r["name"] for r in ours["sharing"]["timeSlicing"]["resources"]] == names
    assert ours["flags"] == docs["flags"]


def test_plugin_defaults_are_written_out_per_mode() -> None:
    assert sharing_config("time-slicing", 2)["sharing"]["timeSlicing"]["failRequestsGreaterThanOne"] is False
    assert sharing_config("mps", 2)["sharing"]["mps"]["failRequestsGreaterThanOne"] is True
    assert sharing_config("mps", 2, False, False)["sharing"]["mps"]["failRequestsGreaterThanOne"] is False


def test_rename_sets_rename_by_default() -> None:
    config = sharing_config("time-slicing", 3, rename_shared=True)
    assert config["sharing"]["timeSlicing"]["renameByDefault"] is True
    assert "flags" not in config


@pytest.mark.parametrize("replicas", [0, 1])
def test_fewer_than_two_replicas_is_rejected(replicas: int) -> None:
    with pytest.raises(ValueError, match=">= 2"):
        sharing_config("mps", replicas)


def test_mps_cannot_share_mig_devices_and_unknown_modes_fail() -> None:
    with pytest.raises(ValueError, match="full GPUs"):
        sharing_config("mps", 2, resources=["nvidia.com/mig-1g.5gb"])
    with pytest.raises(ValueError, match="unknown sharing mode"):
        sharing_config("exclusive", 2)
