"""Checkpoint arithmetic of one run segment: writes, finish time, what an interruption keeps."""

from __future__ import annotations

from gpuplane.sim.progress import checkpoints_between, cut, wall_to_finish
from gpuplane.traces import Checkpoint

CK = Checkpoint(interval_s=1800, write_s=60, restore_s=120)


def test_no_checkpoint_is_written_at_the_very_end() -> None:
    assert checkpoints_between(0, 7200, CK) == 3  # at 1800, 3600, 5400
    assert checkpoints_between(0, 7201, CK) == 4
    assert checkpoints_between(3600, 7200, CK) == 1


def test_wall_time_adds_restore_and_writes() -> None:
    assert wall_to_finish(0, 7200, CK, 0) == 7200 + 3 * 60
    assert wall_to_finish(3600, 7200, CK, 120) == 120 + 3600 + 60
    assert wall_to_finish(0, 100, None, 0) == 100


def test_interruption_keeps_the_last_complete_checkpoint() -> None:
    c = cut(0, 7200, CK, 0, 4000)  # two cycles of 1860 s done, 280 s into the third
    assert (c.progress, c.saved, c.write_s, c.restore_s) == (3880, 3600, 120, 0)


def test_interruption_while_writing_loses_the_unfinished_checkpoint() -> None:
    c = cut(0, 7200, CK, 0, 1830)  # 30 s into the first write
    assert (c.progress, c.saved, c.write_s) == (1800, 0, 30)


def test_interruption_during_restore_gains_nothing() -> None:
    c = cut(3600, 7200, CK, 120, 100)
    assert (c.progress, c.saved, c.restore_s, c.write_s) == (3600, 3600, 100, 0)


def test_without_checkpoint_everything_since_the_start_is_lost() -> None:
    c = cut(0, 7200, None, 0, 5000)
    assert (c.progress, c.saved) == (5000, 0)
