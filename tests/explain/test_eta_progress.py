"""`explain --eta`'s progress line (issue 23): on a terminal (a real pty) after the delay, with the
simulated time reached, workloads estimated, backlog and rate; nothing on a pipe or with --quiet;
Ctrl-C ends with exit 130 and the line erased. The clock is injected: nothing here waits.

The run is tests/explain/test_eta.py's event table (minutes after the snapshot): p3 is "never" at
once; r1 ends at 29 and p1 is admitted; r2 ends at 89 (nothing fits p2); p1 ends at 149 and p2 is
admitted. So the run passes the instants 0, 29, 89 and 149 minutes with 1, 2, 2 and 3 of the 3
pending workloads estimated; every pending workload stays in its queue until admitted (p3 too).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pytest
import yaml
from typer.testing import CliRunner

from gpuplane.cli import app
from gpuplane.cli import explain as explain_cli
from gpuplane.cli.liveline import LiveLine, for_stderr
from gpuplane.explain.command import ExplainOptions, explain_input
from gpuplane.explain.eta import EtaOptions, EtaTick
from gpuplane.explain.load import parse_documents
from gpuplane.yamlio import load_documents
from tests.explain.test_eta import PENDING, SETUP

MINUTE = 60.0


class _Clock:
    """Injected wall time: each reading is `step` seconds after the one before; `interrupt_at`
    raises KeyboardInterrupt on that reading (what Ctrl-C does in the middle of a run)."""

    def __init__(self, step: float, interrupt_at: int | None = None) -> None:
        self.t = 0.0
        self.step = step
        self.readings = 0
        self.interrupt_at = interrupt_at

    def __call__(self) -> float:
        self.readings += 1
        if self.readings == self.interrupt_at:
            raise KeyboardInterrupt
        self.t += self.step
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


def _input(tmp_path: Path) -> Path:
    f = tmp_path / "in.yaml"
    f.write_text(yaml.safe_dump_all([*SETUP, *PENDING]), encoding="utf-8")
    return f


def test_the_ticks_follow_the_event_table_and_the_etas_do_not_change(tmp_path: Path) -> None:
    text = _input(tmp_path).read_text(encoding="utf-8")
    ticks: list[EtaTick] = []
    seen: list[tuple[float, int, int, int, int]] = []

    def progress(tick: EtaTick) -> None:
        ticks.append(tick)
        seen.append((tick.now / MINUTE, tick.estimated, tick.waiting, tick.targets, tick.backlog()))

    with_line = explain_input(
        parse_documents(load_documents(text, "in.yaml")), ExplainOptions(eta=EtaOptions(progress=progress))
    )
    plain = explain_input(parse_documents(load_documents(text, "in.yaml")), ExplainOptions(eta=EtaOptions()))
    # (minutes, estimated, waiting, of, pending in the queues)
    assert seen == [(0.0, 1, 2, 3, 3), (29.0, 2, 1, 3, 2), (89.0, 2, 1, 3, 2), (149.0, 3, 0, 3, 1)]
    assert {k: (e.status, e.seconds) for k, e in with_line.etas.items()} == {
        k: (e.status, e.seconds) for k, e in plain.etas.items()
    }


def test_the_line_says_time_reached_estimated_backlog_and_rate(pty_pair: tuple[TextIO, int]) -> None:
    stream, master = pty_pair
    clock = _Clock(step=1.0)
    line = LiveLine(stream, enabled=True, clock=clock)  # start at t=1
    show = explain_cli.eta_progress(line)
    clock.t = 10.0  # past the delay; the next reading is t=11 (due), then t=12 (elapsed: 11 s)
    show(EtaTick(now=1.5 * 86400.0, estimated=22_000, waiting=28_000, targets=50_000, snap=_Snap()))  # type: ignore[arg-type]
    line.close()
    out = _read(master)
    text = "estimating: simulated day 1.5, 22,000 of 50,000 workloads estimated, 1,234 pending, 2,000 workloads/s"
    assert out == "\r" + text + "\r" + " " * len(text) + "\r"


class _Snap:
    """A stand-in snapshot whose queues hold 1,234 pending workloads in all."""

    class _CQ:
        def __init__(self, n: int) -> None:
            self.queue = [None] * n

    @property
    def cqs(self) -> dict[str, _Snap._CQ]:
        return {"a": _Snap._CQ(1000), "b": _Snap._CQ(234)}


def _patch_line(monkeypatch: pytest.MonkeyPatch, stream: TextIO, clock: _Clock) -> None:
    def on_the_pty(_stream: TextIO, quiet: bool) -> LiveLine:
        return for_stderr(stream, quiet, clock=clock)

    monkeypatch.setattr(explain_cli, "for_stderr", on_the_pty)


def test_on_a_terminal_the_line_is_shown_then_erased(
    tmp_path: Path, pty_pair: tuple[TextIO, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    stream, master = pty_pair
    _patch_line(monkeypatch, stream, _Clock(step=3.0))  # every reading 3 s later: each tick is due
    result = CliRunner().invoke(app, ["explain", "-f", str(_input(tmp_path)), "--eta", "-o", "json"])
    assert result.exit_code == 0, result.output
    out = _read(master)
    assert out.count("\restimating: simulated day ") == 4  # the four instants of the table
    assert "estimating: simulated day 0.1, 3 of 3 workloads estimated, 1 pending, " in out  # 149 min
    assert out.endswith("\r") and out.rstrip("\r").endswith(" ")  # erased before the output


def test_quiet_shows_nothing_on_a_terminal(
    tmp_path: Path, pty_pair: tuple[TextIO, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    stream, master = pty_pair
    _patch_line(monkeypatch, stream, _Clock(step=3.0))
    result = CliRunner().invoke(app, ["explain", "-f", str(_input(tmp_path)), "--eta", "-q", "-o", "json"])
    assert result.exit_code == 0, result.output
    assert _read(master) == ""


def test_ctrl_c_exits_130_and_erases_the_line(
    tmp_path: Path, pty_pair: tuple[TextIO, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    stream, master = pty_pair
    # clock readings: 1 the line's start, then 4 per drawn tick (due, the rate's elapsed, show's due
    # and its time): reading 6 is the second tick's, after the first was drawn
    _patch_line(monkeypatch, stream, _Clock(step=3.0, interrupt_at=6))
    result = CliRunner().invoke(app, ["explain", "-f", str(_input(tmp_path)), "--eta", "-o", "json"])
    assert result.exit_code == 130
    out = _read(master)
    assert out.startswith("\restimating: ") and out.endswith("\r") and out.count("estimating") == 1
    assert result.stdout.count("{") == 0  # nothing half written


def test_on_a_pipe_no_progress_is_printed(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gpuplane", "explain", "-f", str(_input(tmp_path)), "--eta", "-o", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr and "estimating" not in done.stderr
