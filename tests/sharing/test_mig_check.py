"""MIG fit rules: the MIG guide's worked examples fit, impossible layouts are rejected with the
rule they break, and every answer agrees with a brute-force oracle over all start slots."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuplane.catalog import Accelerator, MigProfile, load_catalog
from gpuplane.sharing import mig

MIG_GPUS = [a.name for a in load_catalog().accelerators() if a.mig_capable]


def _acc(name: str) -> Accelerator:
    acc = load_catalog().accelerator(name)
    assert acc is not None
    return acc


def assert_valid_placement(acc: Accelerator, fit: mig.MigFit, requested: list[str]) -> None:
    """Independent check of a placement: valid starts, no overlap, counts and compute within limits."""
    assert fit.fits, fit.reason
    assert [p for p, _ in fit.placements] == [acc.mig_profiles[r].name for r in requested]
    used: set[int] = set()
    for name, start in fit.placements:
        profile = acc.mig_profiles[name]
        assert start in profile.placements
        span = set(range(start, start + profile.memory_slices))
        assert not span & used, fit.placements
        used |= span
    counts = Counter(p for p, _ in fit.placements)
    assert all(counts[p] <= acc.mig_profiles[p].max_count for p in counts)
    assert sum(acc.mig_profiles[p].compute_slices for p, _ in fit.placements) <= acc.compute_slices
    assert sum(1 for p, _ in fit.placements if "+me" in p) <= 1


def oracle_fits(acc: Accelerator, requested: list[str]) -> bool:
    """Brute force: try every combination of start slots (no ordering, no pruning tricks)."""
    profiles = [acc.mig_profiles[r] for r in requested]
    counts = Counter(p.name for p in profiles)
    if any(counts[n] > acc.mig_profiles[n].max_count for n in counts):
        return False
    if sum(p.compute_slices for p in profiles) > acc.compute_slices:
        return False
    if sum(1 for p in profiles if p.media_extensions) > 1:
        return False
    for starts in itertools.product(*(p.placements for p in profiles)):
        slots = [
            s for p, st_ in zip(profiles, starts, strict=True) for s in range(st_, st_ + p.memory_slices)
        ]
        if len(slots) == len(set(slots)):
            return True
    return False


def test_issue_example_fits_h100_with_a_start_slot_per_instance() -> None:
    acc = _acc("H100-80GB")
    requested = ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]
    fit = mig.check_layout(acc, requested)
    assert_valid_placement(acc, fit, requested)


def test_mig_guide_example_2_gets_the_guide_placement() -> None:
    # Guide: -cgi 9,19,14,19 gives 3g.20gb 4:4, 2g.10gb 2:2, 1g.5gb 0:1 and 1:1.
    fit = mig.check_layout(_acc("A100-40GB"), ["3g.20gb", "1g.5gb", "2g.10gb", "1g.5gb"])
    assert fit.fits
    assert sorted(fit.placements) == [("1g.5gb", 0), ("1g.5gb", 1), ("2g.10gb", 2), ("3g.20gb", 4)]


def test_mig_guide_example_3_two_one_one_one_one_one() -> None:
    # Guide: 2g.10gb@4 + 1g.5gb@{0,1,2,3,6}.
    fit = mig.check_layout(_acc("A100-40GB"), ["2g.10gb"] + ["1g.5gb"] * 5)
    assert fit.fits
    assert sorted(fit.placements) == sorted([("2g.10gb", 4)] + [("1g.5gb", s) for s in (0, 1, 2, 3, 6)])


def test_the_guide_failing_order_still_fits_because_we_place_large_instances_first() -> None:
    # `-cgi 19,19,14,9` fails in nvidia-smi only because of creation order; the layout is valid.
    fit = mig.check_layout(_acc("A100-40GB"), ["1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb"])
    assert fit.fits
    assert fit.creation_order[0] == ("3g.20gb", 4)


def test_4g_plus_3g_fits_on_current_drivers() -> None:
    assert mig.check_layout(_acc("A100-40GB"), ["4g.20gb", "3g.20gb"]).fits


def test_empty_layout_fits_a_mig_gpu() -> None:
    fit = mig.check_layout(_acc("A30"), [])
    assert fit.fits and fit.placements == []


@pytest.mark.parametrize(
    ("gpu", "layout", "reason"),
    [
        ("H100-80GB", ["4g.40gb", "4g.40gb"], "at most 1"),
        ("H100-80GB", ["7g.80gb", "1g.10gb"], "8 compute slices"),
        ("H100-80GB", ["3g.40gb", "3g.40gb", "1g.10gb"], "9 memory slices"),
        ("H100-80GB", ["4g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"], "8 compute slices"),
        ("A100-40GB", ["1g.5gb"] * 8, "at most 7"),
        ("A100-40GB", ["1g.10gb"] * 5, "at most 4"),
        ("H100-80GB", ["1g.10gb+me", "1g.10gb.me"], "at most 1"),
        ("A30", ["1g.6gb+me", "2g.12gb+me"], "media-extension"),
        ("A30", ["2g.12gb", "2g.12gb", "1g.6gb"], "5 compute slices"),
        ("A30", ["4g.24gb", "4g.24gb"], "at most 1"),
        ("T4", ["1g.5gb"], "does not support MIG"),
    ],
)
def test_impossible_layouts_are_rejected_with_the_rule_they_break(
    gpu: str, layout: list[str], reason: str
) -> None:
    fit = mig.check_layout(_acc(gpu), layout)
    assert not fit.fits and fit.placements == []
    assert reason in fit.reason


def test_unknown_profile_is_reported_separately() -> None:
    fit = mig.check_layout(_acc("H100-80GB"), ["3g.40gb", "3g.20gb"])
    assert not fit.fits and fit.unknown == ["3g.20gb"]
    assert "3g.20gb" in fit.reason and "H100-80GB" in fit.reason


def test_overlapping_start_slots_are_rejected_even_when_counts_allow_them() -> None:
    # A made-up GPU whose two profiles can only start at slot 0: counts and slices are fine,
    # the placement is not.
    toy = Accelerator(
        name="TOY",
        memory_gb=8,
        architecture="test",
        memory_slices=8,
        compute_slices=7,
        mig_profiles={
            "2g.2gb": MigProfile("2g.2gb", 2, 2, 2, [0, 4], 2),
            "1g.1gb": MigProfile("1g.1gb", 1, 2, 2, [0], 2),
        },
    )
    fit = mig.check_layout(toy, ["2g.2gb", "1g.1gb", "1g.1gb"])
    assert not fit.fits and "overlapping" in fit.reason
    assert mig.check_layout(toy, ["2g.2gb", "2g.2gb", "1g.1gb"]).fits is False
    assert mig.check_layout(toy, ["2g.2gb", "1g.1gb"]).fits


def test_placements_are_deterministic() -> None:
    acc = _acc("B200")
    layout = ["1g.23gb", "3g.90gb", "1g.23gb", "2g.45gb"]
    assert mig.check_layout(acc, layout) == mig.check_layout(acc, list(layout))


@st.composite
def gpu_and_layout(draw: st.DrawFn) -> tuple[Accelerator, list[str]]:
    acc = _acc(draw(st.sampled_from(MIG_GPUS)))
    names = sorted(acc.mig_profiles)
    layout = draw(st.lists(st.sampled_from(names), min_size=0, max_size=5))
    return acc, layout


@settings(max_examples=300, deadline=None)
@given(gpu_and_layout())
def test_check_layout_agrees_with_brute_force(case: tuple[Accelerator, list[str]]) -> None:
    acc, layout = case
    fit = mig.check_layout(acc, layout)
    assert fit.fits == oracle_fits(acc, layout), (acc.name, layout, fit.reason)
    if fit.fits:
        assert_valid_placement(acc, fit, layout)
