"""Maximal layouts: each fits, none can grow, and every fitting layout is inside one of them."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from gpuplane.catalog import Accelerator, load_catalog
from gpuplane.sharing import mig

MIG_GPUS = [a.name for a in load_catalog().accelerators() if a.mig_capable]


def _acc(name: str) -> Accelerator:
    acc = load_catalog().accelerator(name)
    assert acc is not None
    return acc


def _base_profiles(acc: Accelerator) -> list[str]:
    return [p for p in acc.mig_profiles if "+me" not in p]


@pytest.mark.parametrize("gpu", MIG_GPUS)
def test_every_maximal_layout_fits_and_cannot_grow(gpu: str) -> None:
    acc = _acc(gpu)
    layouts = mig.maximal_layouts(acc)
    assert layouts
    for layout in layouts:
        assert mig.check_layout(acc, layout).fits, layout
        for extra in _base_profiles(acc):
            assert not mig.check_layout(acc, [*layout, extra]).fits, (layout, extra)


@pytest.mark.parametrize("gpu", ["A100-40GB", "A30"])
def test_every_fitting_layout_is_contained_in_a_maximal_one(gpu: str) -> None:
    acc = _acc(gpu)
    maximal = [Counter(layout) for layout in mig.maximal_layouts(acc)]
    names = _base_profiles(acc)
    for size in range(1, acc.compute_slices + 1):
        for combo in itertools.combinations_with_replacement(names, size):
            if mig.check_layout(acc, list(combo)).fits:
                need = Counter(combo)
                assert any(all(m[k] >= v for k, v in need.items()) for m in maximal), combo


def test_a100_40gb_maximal_layouts_include_the_known_ones_and_not_partial_ones() -> None:
    layouts = mig.maximal_layouts(_acc("A100-40GB"))
    for expected in (
        ["7g.40gb"],
        ["4g.20gb", "3g.20gb"],
        ["3g.20gb", "3g.20gb"],
        ["1g.5gb"] * 7,
        ["3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"],
    ):
        assert expected in layouts
    assert ["4g.20gb", "2g.10gb"] not in layouts
    assert len(layouts) == len({tuple(lay) for lay in layouts})


def test_maximal_layouts_leave_out_media_profiles_unless_asked() -> None:
    acc = _acc("H100-80GB")
    assert not any("+me" in p for lay in mig.maximal_layouts(acc) for p in lay)
    with_media = mig.maximal_layouts(acc, include_media=True)
    assert any("1g.10gb+me" in lay for lay in with_media)
    for layout in with_media:
        assert mig.check_layout(acc, layout).fits


def test_maximal_layouts_are_listed_largest_profile_first_and_stably() -> None:
    acc = _acc("H200-141GB")
    first = mig.maximal_layouts(acc)
    assert first == mig.maximal_layouts(acc)
    assert first[0] == ["7g.141gb"]
    order = list(acc.mig_profiles)
    for layout in first:
        assert layout == sorted(layout, key=order.index)
