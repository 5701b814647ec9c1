"""Accelerator facts: names and aliases resolve, MIG profile data is self-consistent and agrees
with the researched reference table (../shared/reference/nvidia-data/mig-profiles-derived.yaml)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from gpuplane.catalog import Accelerator, load_catalog

REQUIRED = [
    "A100-40GB",
    "A100-80GB",
    "H100-80GB",
    "H100-NVL-94GB",
    "H200-141GB",
    "B200",
    "A30",
    "L4",
    "L40S",
    "A10",
    "T4",
    "M60",
]
MIG_GPUS = ["A100-40GB", "A100-80GB", "H100-80GB", "H100-NVL-94GB", "H200-141GB", "B200", "A30"]
# reference table name -> catalog name
REFERENCE_NAMES = {
    "A100-SXM4-40GB": "A100-40GB",
    "A100-SXM4-80GB": "A100-80GB",
    "H100-80GB": "H100-80GB",
    "H100-NVL-94GB": "H100-NVL-94GB",
    "H200-141GB": "H200-141GB",
    "B200-180GB": "B200",
    "A30-24GB": "A30",
}


def _acc(name: str) -> Accelerator:
    acc = load_catalog().accelerator(name)
    assert acc is not None, name
    return acc


def test_catalog_has_every_accelerator_the_issue_names() -> None:
    names = load_catalog().accelerator_names()
    assert [n for n in REQUIRED if n not in names] == []


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("A100", "A100-40GB"),
        ("a100-80gb", "A100-80GB"),
        ("H100", "H100-80GB"),
        ("NVIDIA-A100-SXM4-80GB", "A100-80GB"),
        ("nvidia-a100-sxm4-80gb", "A100-80GB"),
        ("NVIDIA-H100-80GB-HBM3", "H100-80GB"),
        ("nvidia-tesla-a100", "A100-40GB"),
        ("nvidia-l4", "L4"),
        ("Tesla-T4", "T4"),
        ("h200", "H200-141GB"),
        ("  b200 ", "B200"),
    ],
)
def test_aliases_resolve_to_canonical_names_case_insensitively(alias: str, canonical: str) -> None:
    assert _acc(alias).name == canonical


def test_unknown_accelerator_is_none_not_an_exception() -> None:
    assert load_catalog().accelerator("X9000") is None


def test_aliases_and_gfd_products_do_not_collide_between_accelerators() -> None:
    seen: dict[str, str] = {}
    for acc in load_catalog().accelerators():
        for alias in {a.lower() for a in [acc.name, *acc.aliases, *acc.gfd_products]}:
            assert seen.setdefault(alias, acc.name) == acc.name, alias


def test_gfd_product_names_resolve_to_their_accelerator() -> None:
    for acc in load_catalog().accelerators():
        for product in acc.gfd_products:
            assert _acc(product).name == acc.name


def test_only_m60_is_visualization_only() -> None:
    assert [a.name for a in load_catalog().accelerators() if a.visualization_only] == ["M60"]


def test_mig_capability_matches_the_mig_guide_list() -> None:
    assert [a.name for a in load_catalog().accelerators() if a.mig_capable] == MIG_GPUS


def test_gpus_without_mig_have_no_slices() -> None:
    for acc in load_catalog().accelerators():
        if not acc.mig_capable:
            assert (acc.memory_slices, acc.compute_slices, acc.mig_profiles) == (0, 0, {})


@pytest.mark.parametrize("name", MIG_GPUS)
def test_every_mig_placement_lies_inside_the_gpu(name: str) -> None:
    acc = _acc(name)
    for profile in acc.mig_profiles.values():
        assert profile.placements, profile.name
        for start in profile.placements:
            assert start >= 0 and start + profile.memory_slices <= acc.memory_slices
            assert start % profile.memory_slices == 0 or profile.memory_slices == 1
        assert profile.compute_slices <= acc.compute_slices
        assert profile.max_count <= len(profile.placements)


@pytest.mark.parametrize("name", MIG_GPUS)
def test_profile_names_agree_with_their_slices_and_resource_names(name: str) -> None:
    acc = _acc(name)
    for profile in acc.mig_profiles.values():
        match = re.fullmatch(r"(\d+)g\.(\d+)gb(\+me)?", profile.name)
        assert match, profile.name
        assert int(match.group(1)) == profile.compute_slices
        assert int(match.group(2)) == profile.memory_gb <= acc.memory_gb
        assert profile.resource_name == "nvidia.com/mig-" + profile.name.replace("+", ".")


def test_profile_lookup_accepts_config_and_resource_spellings() -> None:
    acc = _acc("H100-80GB")
    for spelling in ["1g.10gb+me", "1g.10gb.me", "mig-1g.10gb.me", "nvidia.com/mig-1g.10gb.me", "1G.10GB+ME"]:
        profile = acc.mig_profile(spelling)
        assert profile is not None and profile.name == "1g.10gb+me", spelling


def test_mig_profiles_agree_with_the_reference_table(shared_dir: Path) -> None:
    table = yaml.safe_load(
        (shared_dir / "reference/nvidia-data/mig-profiles-derived.yaml").read_text(encoding="utf-8")
    )["gpus"]
    for ref_name, canonical in REFERENCE_NAMES.items():
        ref = table[ref_name]
        acc = _acc(canonical)
        assert (acc.memory_slices, acc.compute_slices) == (
            ref["memory_slices_total"],
            ref["compute_slices_total"],
        )
        assert set(acc.mig_profiles) == set(ref["profiles"]), canonical
        for pname, facts in ref["profiles"].items():
            mine = acc.mig_profiles[pname]
            assert (
                mine.compute_slices,
                mine.memory_slices,
                mine.max_count,
                mine.placements,
                mine.placement_source,
            ) == (
                facts["compute_slices"],
                facts["memory_slices"],
                facts["max_count"],
                facts["placements"],
                facts["placement_source"],
            ), f"{canonical} {pname}"


def test_pci_ids_are_in_mig_parted_filter_form() -> None:
    for acc in load_catalog().accelerators():
        for pci in acc.pci_device_ids:
            assert re.fullmatch(r"0x[0-9A-F]{4}10DE", pci), pci
            assert load_catalog().accelerator_for_pci_id(pci.lower()) is acc


def test_every_accelerator_cites_a_source_and_date() -> None:
    for acc in load_catalog().accelerators():
        assert acc.source.strip() and re.fullmatch(r"\d{4}-\d{2}-\d{2}", acc.date), acc.name
