"""The progress line of long runs: on a terminal (a real pty) after the delay, never on a pipe or
with --quiet, erased at the end. The clock is injected: nothing here waits or measures time."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import TextIO

import pytest

from gpuplane.cli.liveline import LiveLine, for_stderr
from gpuplane.cli.simulate import _progress
from gpuplane.sim.config import SimConfig
from gpuplane.sim.engine import Tick
from gpuplane.sim.replay import simulate
from gpuplane.sim.whatif import builtin_spec
from gpuplane.traces import generate


class _Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def pty_pair() -> Iterator[tuple[TextIO, int]]:
    master, slave = os.openpty()
    stream = os.fdopen(slave, "w", encoding="utf-8")
    try:
        yield stream, master
    finally:
        stream.close()
        os.close(master)


class _Drain(threading.Thread):
    """Reads the pty's master side while a run writes (a full pty buffer would block the writer)."""

    def __init__(self, master: int) -> None:
        super().__init__(daemon=True)
        self.master = master
        self.chunks: list[bytes] = []

    def run(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.chunks.append(data)

    def text(self) -> str:
        return b"".join(self.chunks).decode()


def _read(master: int) -> str:
    os.set_blocking(master, False)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except (BlockingIOError, OSError):
            break
        if not data:
            break
        chunks.append(data.decode())
    return "".join(chunks)


def test_nothing_before_the_delay_then_throttled_redraws_then_erased(pty_pair: tuple[TextIO, int]) -> None:
    stream, master = pty_pair
    clock = _Clock()
    line = for_stderr(stream, quiet=False, clock=clock)
    assert line.enabled  # a pty is a terminal
    clock.t += 1.9
    line.show("one")
    assert _read(master) == ""  # before 2 s: a short run prints nothing
    clock.t += 0.1
    line.show("two")
    clock.t += 0.2
    line.show("three")  # within 0.5 s of the last redraw: skipped
    clock.t += 0.3
    line.show("four!")
    line.close()
    out = _read(master)
    assert out == "\rtwo\rfour!\r     \r"


def test_pipe_and_quiet_show_nothing(pty_pair: tuple[TextIO, int], tmp_path: object) -> None:
    stream, _ = pty_pair
    assert not for_stderr(stream, quiet=True).enabled
    r, w = os.pipe()
    with os.fdopen(w, "w") as pipe:
        assert not for_stderr(pipe, quiet=False).enabled
    os.close(r)


def test_a_twin_run_reports_simulated_time_done_waiting_and_rate(pty_pair: tuple[TextIO, int]) -> None:
    stream, master = pty_pair
    clock = _Clock()
    line = LiveLine(stream, enabled=True, clock=clock)
    spec = builtin_spec()
    workloads = generate(2, 2 * 86400.0, [t.name for t in spec.teams], jobs_per_hour=60)
    ticks: list[Tick] = []
    frozen: list[int] = []
    show = _progress(line)

    def progress(tick: Tick) -> None:
        clock.t += 1.0  # one second of (injected) wall time between calls
        ticks.append(tick)
        frozen.append(gc.get_freeze_count())
        show(tick)

    drain = _Drain(master)
    drain.start()
    outcome = simulate(spec, workloads, SimConfig(seed=2), progress)
    line.close()
    stream.close()  # the reader sees the end of the pty
    drain.join()
    out = drain.text()
    assert len(ticks) >= 3
    assert [t.now for t in ticks] == sorted(t.now for t in ticks)
    last = ticks[-1]
    assert last.total == len(workloads) and last.done + last.waiting <= last.submitted <= last.total
    assert "simulating: simulated day " in out and " workloads done, " in out and " waiting, " in out
    assert "workloads/s" in out
    # the long-lived state is frozen out of the collector during the run, and given back after
    assert min(frozen) > 0 and gc.get_freeze_count() == 0
    assert outcome.end > 0


def test_simulate_on_a_pipe_prints_no_progress() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gpuplane", "simulate", "--report", os.devnull, "-q"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr and "simulating" not in done.stderr


def test_version_says_which_build_of_the_twin_runs() -> None:
    from gpuplane.cli import twin_build

    assert twin_build("/x/gpuplane/kueue/scheduler.cpython-311-x86_64-linux-gnu.so") == "compiled with mypyc"
    assert twin_build("/x/gpuplane/kueue/scheduler.py") == "pure Python"
    done = subprocess.run(
        [sys.executable, "-m", "gpuplane", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.strip().endswith("(twin: pure Python)"), done.stdout
