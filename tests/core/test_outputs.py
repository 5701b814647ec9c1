"""Atomic outputs: complete or untouched, with ordinary file modes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from gpuplane.outputs import write_text_atomic, write_tree_atomic


def test_write_text_atomic_replaces_whole_file_with_default_mode(tmp_path: Path) -> None:
    target = tmp_path / "a" / "report.html"
    write_text_atomic(target, "one")
    write_text_atomic(target, "two")
    assert target.read_text() == "two"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert [p.name for p in target.parent.iterdir()] == ["report.html"]


def test_write_tree_atomic_swaps_whole_directory(tmp_path: Path) -> None:
    dest = tmp_path / "out"
    write_tree_atomic(dest, {"a.yaml": "a", "sub/b.yaml": "b"})
    write_tree_atomic(dest, {"c.yaml": "c"})
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*")) == ["c.yaml"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_write_tree_atomic_failure_leaves_old_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dest = tmp_path / "out"
    write_tree_atomic(dest, {"keep.yaml": "old"})

    def broken_write(self: Path, *args: object, **kwargs: object) -> int:
        raise OSError("disk full")

    monkeypatch.setattr(Path, "write_text", broken_write)
    with pytest.raises(OSError):
        write_tree_atomic(dest, {"new.yaml": "new"})
    monkeypatch.undo()
    assert (dest / "keep.yaml").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
