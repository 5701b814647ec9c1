"""Reading what the user names: files, directories, stdin (`-`), pipes and process substitution.

One set of rules for every input role (`--spec`, `-f`, `--config`, `--team-map`, `--nodepools`,
`-w`), so that each fails the same way, as a located `InputError` (exit 2):

- a file is read as bytes and decoded as UTF-8; text that is not UTF-8 (UTF-16, binary, stray
  bytes) is refused with the byte offset, line and column of the first bad byte;
- a regular file larger than `limits().input_bytes` is refused before it is read; anything else
  (a pipe, `<(...)`, `/dev/stdin`, a character device such as `/dev/zero`) is read up to that
  limit and refused past it, so nothing is read without end;
- a directory is walked recursively in sorted order (hidden entries skipped, symlinked
  directories not followed); a directory or file that cannot be read is an error, never skipped;
- stdin is `-`; a closed stdin is an error, not a crash.

Trace files (`-w`) are streamed: `open_text` reopens a regular file for each pass and copies a
pipe once into an anonymous temporary file (at most `limits().piped_trace_bytes`).
"""

from __future__ import annotations

import codecs
import io
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import IO, BinaryIO

from gpuplane.errors import InputError
from gpuplane.limits import limits

__all__ = [
    "STDIN",
    "STDIN_NAME",
    "decode",
    "decode_problem",
    "display_name",
    "expand",
    "locate_decode_error",
    "open_text",
    "read_bytes",
    "read_text",
    "release",
]

STDIN = "-"
STDIN_NAME = "<stdin>"
_CHUNK = 1 << 20
_UTF16_32_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def display_name(source: str | Path) -> str:
    """How an input is named in messages: its path as given, or `<stdin>` for `-`."""
    return STDIN_NAME if str(source) == STDIN else str(source)


def _source(source: str | Path) -> str | Path:
    """The input a display name stands for (`<stdin>` is `-`)."""
    return STDIN if str(source) == STDIN_NAME else source


def _os_problem(name: str, exc: OSError) -> InputError:
    if isinstance(exc, FileNotFoundError):
        return InputError.single(name, "cannot read: no such file or directory")
    if isinstance(exc, IsADirectoryError):
        return InputError.single(name, "is a directory; give a file")
    return InputError.single(name, f"cannot read: {exc.strerror or exc}")


def _stdin_binary(name: str) -> BinaryIO:
    stream = sys.stdin
    if stream is None or stream.closed:
        raise InputError.single(name, "stdin is closed; pipe the input in or name a file")
    binary = getattr(stream, "buffer", None)
    if binary is None:  # a text stream without bytes underneath (tests, embedding)
        return io.BytesIO(stream.read().encode("utf-8", "surrogateescape"))
    return binary  # type: ignore[no-any-return]


def _too_large(name: str, cap: int) -> InputError:
    return InputError.single(
        name, f"larger than the input limit of {cap} bytes (limits: input_bytes); split the input"
    )


def _read_capped(stream: IO[bytes], name: str, cap: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    try:
        while size <= cap:
            chunk = stream.read(min(_CHUNK, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise _os_problem(name, exc) from None
    if size > cap:
        raise _too_large(name, cap)
    return b"".join(chunks)


def read_bytes(source: str | Path) -> bytes:
    """The bytes of a file, pipe or `-` (stdin), within `limits().input_bytes`; InputError if not."""
    name = display_name(source)
    cap = limits().input_bytes
    if str(source) == STDIN:
        return _read_capped(_stdin_binary(name), name, cap)
    try:
        with open(source, "rb") as stream:
            info = os.fstat(stream.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(21, "Is a directory")
            if stat.S_ISREG(info.st_mode) and info.st_size > cap:
                raise _too_large(name, cap)
            return _read_capped(stream, name, cap)
    except OSError as exc:
        raise _os_problem(name, exc) from None


def _position(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, column


def decode_problem(data: bytes, name: str) -> InputError | None:
    """Why `data` is not UTF-8 text, located at its first bad byte; None when it is."""
    if data.startswith(_UTF16_32_BOMS) and not data.startswith(codecs.BOM_UTF8):
        return InputError.single(
            name,
            "UTF-16/UTF-32 text (it starts with a byte-order mark); gpuplane reads UTF-8: "
            "convert it first, e.g. `iconv -f UTF-16 -t UTF-8`",
            line=1,
            column=1,
        )
    nul = data.find(b"\0")
    end = nul if nul >= 0 else len(data)
    try:
        data[:end].decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(data, exc.start)
        return InputError.single(
            name,
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} at byte offset {exc.start} ({exc.reason})",
            line=line,
            column=column,
        )
    if nul >= 0:
        line, column = _position(data, nul)
        return InputError.single(
            name,
            f"a NUL byte at byte offset {nul}: binary data or UTF-16/UTF-32 text, not UTF-8",
            line=line,
            column=column,
        )
    return None


def decode(data: bytes, name: str) -> str:
    """UTF-8 text of `data` (a leading UTF-8 byte-order mark dropped), or a located InputError."""
    problem = decode_problem(data, name)
    if problem is not None:
        raise problem
    text = data.decode("utf-8")
    return text[1:] if text.startswith("\ufeff") else text


def read_text(source: str | Path) -> str:
    """`read_bytes` then `decode`: the UTF-8 text of a file, pipe or `-`."""
    return decode(read_bytes(source), display_name(source))


def _walk_error(exc: OSError) -> None:
    raise _os_problem(str(exc.filename or ""), exc)


def expand(source: str | Path, suffixes: tuple[str, ...]) -> list[Path]:
    """The files an input names: itself, or for a directory every file below it with one of the
    `suffixes` (case-insensitive), sorted, hidden entries skipped. `-` is not expanded here."""
    path = Path(source)
    try:
        info = path.stat()
    except OSError as exc:
        raise _os_problem(str(source), exc) from None
    if not stat.S_ISDIR(info.st_mode):
        return [path]
    found: list[Path] = []
    for folder, dirs, files in os.walk(path, onerror=_walk_error):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            child = Path(folder) / name
            if name.startswith(".") or not name.lower().endswith(suffixes):
                continue
            try:
                regular = stat.S_ISREG(child.stat().st_mode)
            except OSError as exc:
                raise _os_problem(str(child), exc) from None
            if regular:  # a FIFO or device inside a directory is not an input file
                found.append(child)
    return sorted(found)


# -- streamed text (trace files) ------------------------------------------------------------

_SPOOLED: dict[str, tuple[object, IO[bytes]]] = {}


def _copy_into(stream: IO[bytes], spool: IO[bytes], name: str, cap: int) -> None:
    size = 0
    while chunk := stream.read(_CHUNK):
        size += len(chunk)
        if size > cap:
            raise InputError.single(name, f"piped input larger than {cap} bytes (limits: piped_trace_bytes)")
        spool.write(chunk)
    spool.flush()


def _spool(source: str | Path, name: str) -> IO[bytes]:
    """The anonymous temporary copy of a non-regular input, made on first use."""
    key = str(source)
    owner: object = sys.stdin if key == STDIN else key
    held = _SPOOLED.get(key)
    if held is not None and (held[0] is owner or held[0] == owner):
        return held[1]
    spool = tempfile.TemporaryFile(prefix="gpuplane-input-")  # noqa: SIM115 - kept open until release()
    try:
        if key == STDIN:
            _copy_into(_stdin_binary(name), spool, name, limits().piped_trace_bytes)
        else:
            with open(source, "rb") as stream:
                _copy_into(stream, spool, name, limits().piped_trace_bytes)
    except OSError as exc:
        spool.close()
        raise _os_problem(name, exc) from None
    except BaseException:
        spool.close()
        raise
    _SPOOLED[key] = (owner, spool)
    return spool


def _reopen(spool: IO[bytes]) -> int:
    fd = os.dup(spool.fileno())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _is_regular(source: str | Path) -> bool:
    if str(source) == STDIN:
        return False
    try:
        return stat.S_ISREG(os.stat(source).st_mode)
    except OSError as exc:
        raise _os_problem(str(source), exc) from None


def open_text(source: str | Path, encoding: str = "utf-8") -> IO[str]:
    """Open a text input for one streaming pass; call again for another pass.

    A regular file is reopened; a pipe, process substitution or `-` is copied once into an
    anonymous temporary file (freed by `release` or at exit) and each pass reads that copy, so
    passes must not overlap. A decoding error surfaces as UnicodeDecodeError while reading;
    `locate_decode_error` turns it into a located InputError.
    """
    source = _source(source)
    name = display_name(source)
    try:
        if _is_regular(source):
            return open(source, encoding=encoding, newline="")
        return open(_reopen(_spool(source, name)), encoding=encoding, newline="")
    except OSError as exc:
        raise _os_problem(name, exc) from None


def _open_binary(source: str | Path) -> IO[bytes]:
    if _is_regular(source):
        return open(source, "rb")
    return open(_reopen(_spool(source, display_name(source))), "rb")


def locate_decode_error(source: str | Path) -> InputError:
    """Where a text input that failed to decode while streaming stops being UTF-8: one more pass
    over its bytes with an incremental decoder, tracking the byte offset, line and column."""
    source = _source(source)
    name = display_name(source)
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, line, last_newline = 0, 1, -1
    with _open_binary(source) as reader:
        while chunk := reader.read(_CHUNK):
            pending = len(decoder.getstate()[0])
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                bad = offset - pending + exc.start
                before = chunk[: max(bad - offset, 0)]
                newline = before.rfind(b"\n")
                last = offset + newline if newline >= 0 else last_newline
                byte = (bytes(exc.object) if isinstance(exc.object, bytes | bytearray) else b"?")[exc.start]
                return InputError.single(
                    name,
                    f"not UTF-8 text: byte 0x{byte:02x} at byte offset {bad} ({exc.reason})",
                    line=line + before.count(b"\n"),
                    column=bad - last,
                )
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                last_newline = offset + newline
            line += chunk.count(b"\n")
            offset += len(chunk)
    if decoder.getstate()[0]:
        return InputError.single(name, f"not UTF-8 text: it ends inside a character (byte offset {offset})")
    return InputError.single(name, "not UTF-8 text")


def release() -> None:
    """Free the temporary copies of piped inputs (the CLI calls this after each command)."""
    while _SPOOLED:
        _, (_, spool) = _SPOOLED.popitem()
        spool.close()
