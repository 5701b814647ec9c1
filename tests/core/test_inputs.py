"""Inputs: every file, pipe and stdin read the same way, and every bad one is a located error."""

from __future__ import annotations

import dataclasses
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuplane import inputs
from gpuplane.errors import InputError
from gpuplane.inputs import decode, expand, open_text, read_bytes, read_text
from gpuplane.limits import limits


def problem(exc: pytest.ExceptionInfo[InputError]) -> str:
    assert len(exc.value.problems) == 1
    return str(exc.value.problems[0])


def test_utf16_with_a_byte_order_mark_names_the_encoding(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_bytes("a: 1\n".encode("utf-16"))
    with pytest.raises(InputError) as caught:
        read_text(path)
    assert problem(caught).startswith(f"{path}:1:1: error: UTF-16/UTF-32 text")


def test_a_bad_byte_is_located_by_offset_line_and_column() -> None:
    data = b"a: 1\nb: caf\xe9\n"
    with pytest.raises(InputError) as caught:
        decode(data, "x.yaml")
    # byte 0xe9 is at offset 11: line 2, column 7 (counted in bytes)
    assert (
        problem(caught)
        == "x.yaml:2:7: error: not UTF-8 text: byte 0xe9 at byte offset 11 (invalid continuation byte)"
    )


def test_a_nul_byte_means_binary_or_utf16_without_bom() -> None:
    with pytest.raises(InputError) as caught:
        decode("a: 1\n".encode("utf-16-le"), "le.yaml")
    assert problem(caught) == (
        "le.yaml:1:2: error: a NUL byte at byte offset 1: binary data or UTF-16/UTF-32 text, not UTF-8"
    )


def test_a_utf8_byte_order_mark_is_dropped() -> None:
    assert decode(b"\xef\xbb\xbfa: 1\n", "bom.yaml") == "a: 1\n"


def test_missing_file_directory_and_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or directory"):
        read_bytes(tmp_path / "absent.yaml")
    with pytest.raises(InputError, match="is a directory"):
        read_bytes(tmp_path)


def test_a_regular_file_over_the_limit_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = dataclasses.replace(limits(), input_bytes=10)
    monkeypatch.setattr(inputs, "limits", lambda: small)
    path = tmp_path / "big.yaml"
    path.write_text("x" * 11)
    with pytest.raises(InputError, match="larger than the input limit of 10 bytes"):
        read_bytes(path)
    path.write_text("x" * 10)
    assert read_bytes(path) == b"x" * 10


def test_an_endless_device_is_read_only_up_to_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    small = dataclasses.replace(limits(), input_bytes=4096)
    monkeypatch.setattr(inputs, "limits", lambda: small)
    with pytest.raises(InputError) as caught:
        read_bytes("/dev/zero")
    assert problem(caught).startswith("/dev/zero: error: larger than the input limit of 4096 bytes")


def test_stdin_closed_and_stdin_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(InputError) as caught:
        read_text("-")
    assert problem(caught) == "<stdin>: error: stdin is closed; pipe the input in or name a file"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"kind: X\n")))
    assert read_text("-") == "kind: X\n"


def test_process_substitution_is_read_like_a_file(tmp_path: Path) -> None:
    script = "from gpuplane.inputs import read_text; import sys; print(read_text(sys.argv[1]), end='')"
    proc = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -c "{script}" <(printf "kind: Namespace\\n")'],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "kind: Namespace\n"


def test_expand_walks_sorted_skips_hidden_and_non_regular(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.yaml").write_text("")
    (tmp_path / "a.YML").write_text("")
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.yaml").write_text("")
    (tmp_path / ".hidden.yaml").write_text("")
    os.mkfifo(tmp_path / "fifo.yaml")
    found = expand(tmp_path, (".yaml", ".yml"))
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["a.YML", "b/z.yaml"]


def test_an_unreadable_directory_is_an_error_whoever_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Root reads everything, so the permission error is made at the os.walk level.
    (tmp_path / "sub").mkdir()
    real_scandir = os.scandir

    def scandir(path: str = ".") -> Iterator[os.DirEntry[str]]:
        if path.endswith("sub"):
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(InputError) as caught:
        expand(tmp_path, (".yaml",))
    assert problem(caught) == f"{tmp_path / 'sub'}: error: cannot read: Permission denied"


def test_open_text_replays_a_pipe_for_every_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"id\n1\n")))
    try:
        for _ in range(3):
            with open_text("-") as stream:
                assert stream.read() == "id\n1\n"
    finally:
        inputs.release()


def test_a_decode_error_in_a_streamed_file_is_located(tmp_path: Path) -> None:
    path = tmp_path / "trace.csv"
    path.write_bytes(b"id\n" + b"row\n" * 300_000 + b"bad \xff\n")
    error = inputs.locate_decode_error(path)
    assert str(error.problems[0]) == (
        f"{path}:300002:5: error: not UTF-8 text: byte 0xff at byte offset 1200007 (invalid start byte)"
    )
