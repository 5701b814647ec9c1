"""docs/acceptance.md keeps up with the thresholds data and the CLI."""

from __future__ import annotations

from importlib import resources

import yaml

from gpuplane.acceptance.results import STEP_NAMES
from tests.acceptance.helpers import REPO

DOC = (REPO / "docs" / "acceptance.md").read_text()


def test_every_nccl_threshold_is_documented_with_its_metric_and_source() -> None:
    data = yaml.safe_load(resources.files("gpuplane.acceptance").joinpath("data/thresholds.yaml").read_text())
    for entry in data["nccl"]:
        row = f"| {entry['accelerator']} | {entry['fabric']}"
        line = next((ln for ln in DOC.splitlines() if ln.startswith(row)), None)
        assert line is not None, row
        assert f"`{entry['metric']}`" in line and f">= {entry['min_gbps']:g} GB/s" in line
        assert entry["source"].split()[0] in line  # the repository the number comes from


def test_every_default_threshold_and_step_is_documented() -> None:
    data = yaml.safe_load(resources.files("gpuplane.acceptance").joinpath("data/thresholds.yaml").read_text())
    defaults = data["defaults"]
    assert f"`admission_wait_s <= {defaults['max_admission_wait_s']:g} s`" in DOC
    assert f"`copy_mb_per_s >= {defaults['min_copy_mb_per_s']:g} MB/s`" in DOC
    assert f"`resume_s <= {defaults['max_resume_s']:g} s`" in DOC
    for number in STEP_NAMES:
        assert f"| {number} " in DOC
