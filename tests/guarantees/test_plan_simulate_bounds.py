"""Guarantees of issue 19 for reads without end: `render --check` compares a file of another size
without reading it (a 64 GiB sparse file is "changed", not a MemoryError) and reads one of the same
size within the input limit."""

from __future__ import annotations

import os
from pathlib import Path

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
