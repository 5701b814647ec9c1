"""`--scale-down-unneeded 0` ends: an empty node with pods pending for its pool is looked at again
at the autoscaler's next scan (sim/data/defaults.yaml autoscaler_scan_s), not at the same instant
without end (it once spun at one instant forever on the built-in example)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gpuplane.sim.config import default


def test_the_rescan_floor_is_clusters_autoscalers_scan_interval() -> None:
    assert default("autoscaler_scan_s") == 10.0


def test_simulate_with_an_unneeded_time_of_zero_ends(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gpuplane", "simulate", "--scale-down-unneeded", "0", "-q"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
