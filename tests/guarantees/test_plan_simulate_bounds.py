"""Guarantees of issue 19 for plan and simulate's neighbours: `render --check` compares a file of
another size without reading it (a 64 GiB sparse file is "changed", not a MemoryError) and reads one
of the same size within the input limit; a traceback (exit 70) is redacted; every numeric range
returns a finite value inside it or refuses (hypothesis)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest
import typer
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gpuplane import bounds
from gpuplane.cli import GpuplaneGroup
from gpuplane.errors import UsageError
from tests.support.cli import EXAMPLE, gpuplane


def test_render_check_never_reads_a_huge_file_whole(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert gpuplane("render", EXAMPLE, "-o", out).code == 0
    target = out / "README.md"
    with target.open("r+b") as handle:
        handle.truncate(64 * 2**30)  # sparse: no disk used, but read whole it is 64 GiB
    done = gpuplane("render", EXAMPLE, "--check", out)
    assert done.code == 1, done.err
    assert "changed: README.md" in done.out + done.err and "MemoryError" not in done.err


def test_render_check_reads_a_file_of_the_same_size_and_finds_the_change(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert gpuplane("render", EXAMPLE, "-o", out).code == 0
    target = out / "README.md"
    data = bytearray(target.read_bytes())
    data[-2] = ord("#") if data[-2] != ord("#") else ord("!")
    target.write_bytes(bytes(data))
    assert os.path.getsize(target) == len(data)
    done = gpuplane("render", EXAMPLE, "--check", out)
    assert done.code == 1 and "changed: README.md" in done.out + done.err, done.err
    target.unlink()
    assert gpuplane("render", EXAMPLE, "-o", out).code == 0
    assert gpuplane("render", EXAMPLE, "--check", out).code == 0


def test_a_traceback_never_shows_a_password(capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 70 prints the traceback, redacted: a Ray address or a server URL in an exception's
    message keeps its host, never its password."""
    app = typer.Typer(cls=GpuplaneGroup, add_completion=False)

    @app.command()
    def boom() -> None:
        raise RuntimeError("cannot reach ray://admin:s3cr3t-pw@head:10001 nor admin:s3cr3t-pw@10.0.0.1:6379")

    @app.command()
    def other() -> None:
        """A second command, so that typer keeps `boom` as a subcommand."""

    with pytest.raises(SystemExit) as exit_:
        app(["boom"])
    assert exit_.value.code == 70
    err = capsys.readouterr().err
    assert "Traceback" in err and "ray://***@head:10001" in err and "***@10.0.0.1:6379" in err
    assert "s3cr3t-pw" not in err


@settings(max_examples=300, deadline=None)
@given(
    value=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(2**70), 2**70)),
    which=st.sampled_from(
        ["rate", "seconds", "seconds_above_zero", "hours", "interference", "rows", "seeds"]
    ),
)
@example(value=math.nan, which="rate")
@example(value=1e400, which="seconds")
def test_every_range_returns_a_finite_value_inside_it_or_refuses(value: float, which: str) -> None:
    allowed = getattr(bounds, which)()
    try:
        got = allowed.check(value, "--x")
    except UsageError as exc:
        assert exc.option == "--x"
        return
    assert math.isfinite(got) and allowed.minimum <= got <= allowed.maximum
    assert not (allowed.above and got == allowed.minimum)
    assert not allowed.integer or got == int(got)
