"""`explain --eta` runs Kueue's cycles with the collector eased (`eta.eased_collector`): long-lived
state frozen, the youngest generation collected less often; everything as it was afterwards."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from gpuplane.explain.eta import GC_YOUNG_THRESHOLD, eased_collector


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    old = gc.get_threshold()
    yield old
    gc.set_threshold(*old)


def test_the_threshold_is_raised_inside_and_restored_after(thresholds: tuple[int, int, int]) -> None:
    gc.set_threshold(700, 10, 10)
    with eased_collector():
        assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, 10, 10)
        assert gc.get_freeze_count() > 0  # what was alive at the start is out of the scans
        with eased_collector():  # nested (settle inside the forward run): same settings
            assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, 10, 10)
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_a_higher_threshold_is_kept_and_a_switched_off_collector_stays_off(
    thresholds: tuple[int, int, int],
) -> None:
    gc.set_threshold(GC_YOUNG_THRESHOLD * 2, 5, 5)
    with eased_collector():
        assert gc.get_threshold() == (GC_YOUNG_THRESHOLD * 2, 5, 5)
    gc.set_threshold(0, 5, 5)
    with eased_collector():
        assert gc.get_threshold()[0] == 0
    assert gc.get_threshold() == (0, 5, 5)


def test_restored_when_the_block_raises(thresholds: tuple[int, int, int]) -> None:
    gc.set_threshold(700, 10, 10)
    with pytest.raises(KeyboardInterrupt), eased_collector():
        raise KeyboardInterrupt  # Ctrl-C during a long run
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0
