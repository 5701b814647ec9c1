"""Progress of one run segment of a job: restore, run, checkpoint writes, and what an interruption loses.

Pure arithmetic in seconds of full-speed run ("progress"). A segment starts from `base` (0 or the
last saved checkpoint, always a multiple of the checkpoint interval), spends `restore` seconds
restoring, then alternates `interval` seconds of progress with `write` seconds of checkpoint
writing. No checkpoint is written at the very end of the run (at `target`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpuplane.traces import Checkpoint

_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class Cut:
    """Where a segment stood when it was cut after `elapsed` seconds of wall time."""

    progress: float  # progress reached
    saved: float  # progress the last complete checkpoint holds (resume point)
    restore_s: float  # wall seconds spent restoring
    write_s: float  # wall seconds spent writing checkpoints


def checkpoints_between(base: float, target: float, ckpt: Checkpoint | None) -> int:
    """Checkpoints written on the way from `base` to `target` (multiples of the interval strictly between)."""
    if ckpt is None or target <= base:
        return 0
    highest = math.ceil(target / ckpt.interval_s - _EPS) - 1
    lowest = math.floor(base / ckpt.interval_s + _EPS)
    return max(0, highest - lowest)


def wall_to_finish(base: float, target: float, ckpt: Checkpoint | None, restore: float) -> float:
    """Wall seconds a segment needs from its start to reach `target`."""
    writes = checkpoints_between(base, target, ckpt)
    return restore + (target - base) + writes * (ckpt.write_s if ckpt else 0.0)


def cut(base: float, target: float, ckpt: Checkpoint | None, restore: float, elapsed: float) -> Cut:
    """State of a segment interrupted `elapsed` wall seconds after it started (before it finished)."""
    if elapsed <= restore:
        return Cut(base, base, max(elapsed, 0.0), 0.0)
    run = elapsed - restore
    if ckpt is None:
        return Cut(min(base + run, target), base, restore, 0.0)
    writes = checkpoints_between(base, target, ckpt)
    cycle = ckpt.interval_s + ckpt.write_s
    done = min(int(run // cycle) if cycle > 0 else writes, writes)
    rest = run - done * cycle
    saved = base + done * ckpt.interval_s
    if done < writes:
        progress = saved + min(rest, ckpt.interval_s)
        writing = max(0.0, rest - ckpt.interval_s)
        return Cut(progress, saved, restore, done * ckpt.write_s + writing)
    return Cut(min(saved + rest, target), saved, restore, done * ckpt.write_s)
