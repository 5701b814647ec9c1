"""Extended resources per physical GPU and the share of a GPU one unit is; checked against the
GPU Operator docs' real node labels where they exist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuplane.catalog import Accelerator, load_catalog
from gpuplane.sharing import mig, resources


def _acc(name: str) -> Accelerator:
    acc = load_catalog().accelerator(name)
    assert acc is not None
    return acc


def test_exclusive_gpu_is_one_nvidia_gpu() -> None:
    assert resources.per_gpu(_acc("T4"), "exclusive") == {"nvidia.com/gpu": 1}


@pytest.mark.parametrize("mode", ["time-slicing", "mps"])
def test_shared_gpu_advertises_replicas(mode: str) -> None:
    assert resources.per_gpu(_acc("L4"), mode, replicas=4) == {"nvidia.com/gpu": 4}
    assert resources.per_gpu(_acc("L4"), mode, replicas=4, rename_shared=True) == {"nvidia.com/gpu.shared": 4}


@pytest.mark.parametrize("replicas", [0, 1])
def test_shared_gpu_needs_at_least_two_replicas(replicas: int) -> None:
    with pytest.raises(ValueError, match=">= 2"):
        resources.per_gpu(_acc("L4"), "time-slicing", replicas=replicas)


def test_mixed_strategy_counts_each_profile(shared_dir: Path) -> None:
    labels = json.loads(
        (
            shared_dir
            / "reference/nvidia-data/gpu-operator-docs-node-labels-mig-mixed-all-balanced-h100.json"
        ).read_text(encoding="utf-8")
    )
    acc = _acc(labels["nvidia.com/gpu.product"])
    layout = mig.layout_for_config(labels["nvidia.com/mig.config"], acc)
    got = resources.per_gpu(acc, "mig", mig_layout=layout, mig_strategy="mixed")
    gpus = int(labels["nvidia.com/gpu.count"])
    expected = {
        key.removesuffix(".count"): int(value) // gpus
        for key, value in labels.items()
        if key.startswith("nvidia.com/mig-") and key.endswith(".count")
    }
    assert got == expected


def test_single_strategy_advertises_instances_as_nvidia_gpu() -> None:
    # Operator docs: all-1g.10gb under single on H100 gives nvidia.com/gpu.count "7".
    layout = mig.layout_for_config("all-1g.10gb", _acc("H100-80GB"))
    assert resources.per_gpu(_acc("H100-80GB"), "mig", mig_layout=layout) == {"nvidia.com/gpu": 7}


def test_single_strategy_rejects_mixed_profiles() -> None:
    with pytest.raises(ValueError, match="single MIG strategy"):
        resources.per_gpu(_acc("H100-80GB"), "mig", mig_layout=["3g.40gb", "1g.10gb"], mig_strategy="single")


def test_mig_mode_rejects_gpus_without_mig_and_layouts_that_do_not_fit() -> None:
    with pytest.raises(ValueError, match="does not support MIG"):
        resources.per_gpu(_acc("T4"), "mig", mig_layout=["1g.5gb"])
    with pytest.raises(ValueError, match="does not fit"):
        resources.per_gpu(_acc("A30"), "mig", mig_layout=["4g.24gb", "1g.6gb"], mig_strategy="mixed")
    with pytest.raises(ValueError, match="needs a mig_layout"):
        resources.per_gpu(_acc("A30"), "mig")


def test_unknown_mode_and_strategy_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown sharing mode"):
        resources.per_gpu(_acc("A30"), "vgpu")
    with pytest.raises(ValueError, match="unknown MIG strategy"):
        resources.per_gpu(_acc("A30"), "mig", mig_layout=["4g.24gb"], mig_strategy="none")


def test_media_profile_resource_uses_a_dot() -> None:
    got = resources.per_gpu(_acc("H100-80GB"), "mig", mig_layout=["1g.10gb+me"], mig_strategy="mixed")
    assert got == {"nvidia.com/mig-1g.10gb.me": 1}


@pytest.mark.parametrize(
    ("resource", "gpu", "fraction"),
    [
        ("nvidia.com/mig-3g.40gb", "H100-80GB", 3 / 7),
        ("nvidia.com/mig-1g.10gb", "H100-80GB", 1 / 7),
        ("nvidia.com/mig-7g.40gb", "A100-40GB", 1.0),
        ("nvidia.com/mig-2g.12gb", "A30", 2 / 4),
        ("nvidia.com/mig-1g.6gb.me", "A30", 1 / 4),
        ("nvidia.com/gpu", "T4", 1.0),
    ],
)
def test_gpu_fraction_is_compute_slices_over_the_gpu(resource: str, gpu: str, fraction: float) -> None:
    assert resources.gpu_fraction(resource, _acc(gpu)) == pytest.approx(fraction)


def test_gpu_fraction_of_shared_gpus_divides_by_replicas() -> None:
    assert resources.gpu_fraction("nvidia.com/gpu.shared", _acc("L4"), replicas=4) == 0.25
    assert resources.gpu_fraction("nvidia.com/gpu", _acc("L4"), replicas=2) == 0.5


def test_gpu_fraction_rejects_foreign_resources() -> None:
    with pytest.raises(ValueError):
        resources.gpu_fraction("nvidia.com/mig-3g.20gb", _acc("H100-80GB"))
    with pytest.raises(ValueError):
        resources.gpu_fraction("cpu", _acc("H100-80GB"))


def test_fractions_of_a_full_mixed_layout_sum_to_at_most_one() -> None:
    for acc in load_catalog().accelerators():
        for layout in mig.maximal_layouts(acc) if acc.mig_capable else []:
            advertised = resources.per_gpu(acc, "mig", mig_layout=layout, mig_strategy="mixed")
            total = sum(resources.gpu_fraction(r, acc) * n for r, n in advertised.items())
            assert total <= 1.0 + 1e-9, (acc.name, layout)


def test_mig_without_instances_advertises_nothing_and_is_invalid_under_single() -> None:
    assert resources.per_gpu(_acc("A30"), "mig", mig_layout=[], mig_strategy="mixed") == {}
    with pytest.raises(ValueError, match="at least one MIG instance"):
        resources.per_gpu(_acc("A30"), "mig", mig_layout=[], mig_strategy="single")
