"""Writing outputs: the one API every command that writes uses, and the rules it keeps.

Files (`--json`, `--csv`, `--report`, `--out`, `--export-workload`, ...):

- a new or regular file is written to a temporary sibling and renamed over it when complete, so
  it is either the old file or the whole new one; a symlink to a regular file keeps pointing to
  it (its target is replaced, not the link);
- `-`, `/dev/stdout`, `/dev/fd/N` and anything that is not a regular file (a pipe, a terminal,
  `/dev/null`) are written to, never replaced; nothing new is created under /dev or /proc;
- a directory is refused.

Trees (`render -o DIR`, `write_tree_atomic`): see its docstring. Either way, a write error
(read-only filesystem, full disk, permissions) is one `OutputError` naming the path (exit 2),
and Ctrl-C, SIGTERM or SIGHUP remove the temporary siblings before the process ends.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from gpuplane.errors import OutputError
from gpuplane.swap import deferred_signals, exchange, move_new, terminating_raises

__all__ = [
    "STDOUT",
    "TreeMarker",
    "check_file_target",
    "check_tree_target",
    "open_output",
    "replace_file",
    "write_text_atomic",
    "write_tree_atomic",
]

STDOUT = "-"
_DEVICE_DIRS = ("/dev/", "/proc/")
_TEMP_TAG = "gpuplane-tmp"


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def _default_mode() -> int:
    """The mode a plainly created file gets (0o666 minus the umask); mkstemp would give 0o600."""
    return 0o666 & ~_umask()


def _failed(path: str | Path, exc: OSError) -> OutputError:
    return OutputError.at(str(path), f"cannot write: {exc.strerror or exc}")


# -- files ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _FileTarget:
    how: str  # "stdout" | "in-place" | "atomic"
    path: Path


def _file_target(path: str | Path) -> _FileTarget:
    """How a file output is written (see the module docstring); OutputError when it must not be."""
    text = str(path)
    if text == STDOUT:
        return _FileTarget("stdout", Path(text))
    if not text.strip():
        raise OutputError.at(repr(text), "an empty file name")
    absolute = os.path.abspath(text)
    try:
        info = os.stat(text)
    except FileNotFoundError:
        if absolute.startswith(_DEVICE_DIRS):
            raise OutputError.at(
                text, "no such device; gpuplane creates no files under /dev or /proc"
            ) from None
        return _FileTarget("atomic", Path(os.path.realpath(text)))
    except OSError as exc:
        raise _failed(text, exc) from None
    if stat.S_ISDIR(info.st_mode):
        raise OutputError.at(text, "is a directory; give a file name")
    if not stat.S_ISREG(info.st_mode) or absolute.startswith(_DEVICE_DIRS):
        return _FileTarget("in-place", Path(text))
    return _FileTarget("atomic", Path(os.path.realpath(text)))


def check_file_target(path: str | Path) -> None:
    """Raise OutputError now if `path` could not be written as a file output (before any work)."""
    target = _file_target(path)
    if target.how == "atomic":
        parent = target.path.parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not parent.is_dir():
            raise OutputError.at(str(path), f"cannot write: {parent} is not a directory")


@contextlib.contextmanager
def _atomic(path: Path, display: str) -> Iterator[IO[str]]:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f".{_TEMP_TAG}", dir=path.parent)
    except OSError as exc:
        raise _failed(display, exc) from None
    try:
        with terminating_raises():
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                yield handle
            os.chmod(tmp, _default_mode())
            os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise _failed(display, exc) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def open_output(path: str | Path) -> Iterator[IO[str]]:
    """A text stream for one output, committed when the block ends without an exception.

    A regular file is replaced atomically (an error or interrupt leaves the old file as it was);
    `-` is stdout; other non-regular files are written in place (appended to, never truncated or
    replaced). Errors become OutputError.
    """
    target = _file_target(path)
    if target.how == "stdout":
        yield sys.stdout
        return
    if target.how == "atomic":
        with _atomic(target.path, str(path)) as handle:
            yield handle
        return
    try:
        fd = os.open(target.path, os.O_WRONLY | os.O_APPEND)
    except OSError as exc:
        raise _failed(path, exc) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            yield handle
    except BrokenPipeError:
        raise  # its reader went away (`--json /dev/stdout | head`): the CLI ends quietly
    except OSError as exc:
        raise _failed(path, exc) from None


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write one output file by the rules of this module (atomic replace, or in place, or stdout)."""
    with open_output(path) as handle:
        handle.write(text)
        if handle is sys.stdout:
            handle.flush()


def replace_file(path: str | Path, text: str) -> None:
    """Write `path` atomically, replacing the name itself: a symbolic link at `path` is replaced by
    the new file, never written through (for files inside a folder gpuplane owns, where a link
    may have been planted). Errors become OutputError."""
    with _atomic(Path(path), str(path)) as handle:
        handle.write(text)


# -- trees ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TreeMarker:
    """How a tree gpuplane wrote is recognised: `file` (relative) exists and starts with `header`
    (an empty header: the file's presence is the mark)."""

    file: str
    header: str = ""

    def found_in(self, directory: Path) -> bool:
        """True when `directory` carries this marker (a regular file, not a link)."""
        path = directory / self.file
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                return False
            with open(path, encoding="utf-8", errors="replace") as handle:
                return handle.read(len(self.header)) == self.header
        except OSError:
            return False


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _protected(dest: Path, inputs: Iterable[str | Path]) -> str | None:
    """Why `dest` must not be replaced without --force, or None."""
    cwd = Path.cwd().resolve()
    if _inside(cwd, dest):
        return "is the current directory or one above it"
    try:
        home: Path | None = Path.home().resolve()
    except (RuntimeError, KeyError):  # no HOME and no passwd entry
        home = None
    if home is not None and _inside(home, dest):
        return "is your home directory or one above it"
    for source in inputs:
        if str(source) != "-" and _inside(Path(source).resolve(), dest):
            return f"contains the input {source}"
    if os.path.lexists(dest / ".git"):
        return "is a git checkout (it has .git)"
    return None


def _dest_state(dest: Path, marker: TreeMarker | None, inputs: Iterable[str | Path], force: bool) -> bool:
    """Whether `dest` exists (as a directory we may replace); OutputError when it must not be."""
    shown = str(dest)
    try:
        info = os.lstat(dest)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise _failed(shown, exc) from None
    if stat.S_ISLNK(info.st_mode):
        raise OutputError.at(
            shown,
            f"is a symbolic link to {os.readlink(dest)}; gpuplane does not replace through links: give the directory itself",
        )
    if not stat.S_ISDIR(info.st_mode):
        raise OutputError.at(shown, "exists and is not a directory; gpuplane will not turn it into one")
    reason = _protected(dest.resolve(), inputs)
    if reason is not None and not force:
        raise OutputError.at(shown, f"{reason}; refusing to replace it (--force overrides)")
    with os.scandir(dest) as entries:
        empty = not any(entries)
    if not force and not empty and (marker is None or not marker.found_in(dest)):
        mark = f" (no {marker.file} from it)" if marker is not None else ""
        raise OutputError.at(
            shown,
            f"was not written by gpuplane{mark}; refusing to replace it: "
            "choose a new or empty directory, or pass --force",
        )
    return True


def check_tree_target(
    dest: str | Path, marker: TreeMarker | None, *, inputs: Iterable[str | Path] = (), force: bool = False
) -> None:
    """Raise OutputError now if `write_tree_atomic` would refuse `dest` (before any work)."""
    _dest_state(Path(os.path.abspath(dest)), marker, inputs, force)


def _remove(path: str) -> None:
    with deferred_signals():  # an interrupt must not leave half a temporary tree behind
        shutil.rmtree(path, ignore_errors=True)


def _stale_siblings(dest: Path, marker: TreeMarker | None) -> None:
    """Remove temporary trees an earlier run left beside `dest` when it was killed (SIGKILL)."""
    prefix = f".{dest.name}.{_TEMP_TAG}-"
    with contextlib.suppress(OSError):
        for entry in os.scandir(dest.parent):
            if entry.name.startswith(prefix) and entry.is_dir(follow_symlinks=False):
                pid = entry.name[len(prefix) :].split("-", 1)[0]
                ours = marker is None or marker.found_in(Path(entry.path))
                if pid.isdigit() and not _alive(int(pid)) and ours:
                    _remove(entry.path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _fill(staging: Path, files: dict[str, str]) -> None:
    for rel, text in sorted(files.items()):
        target = staging / rel
        if os.path.isabs(rel) or ".." in Path(rel).parts:
            raise ValueError(f"not a relative path inside the tree: {rel!r}")
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "x", encoding="utf-8", newline="\n") as handle:
            handle.write(text)


def write_tree_atomic(
    dest: str | Path,
    files: dict[str, str],
    marker: TreeMarker | None = None,
    *,
    inputs: Iterable[str | Path] = (),
    force: bool = False,
) -> None:
    """Replace directory `dest` with exactly `files` (relative path -> text), all or nothing.

    `files` must contain `marker.file` starting with `marker.header`: that marker is how a later
    run knows the tree is gpuplane's (without a marker, only a new or empty `dest` is written). An
    existing `dest` is replaced only if it is an empty directory or carries the marker, and is not the current or home directory (or above them),
    a directory holding one of `inputs`, or a git checkout; `force` lifts those two checks. A
    symbolic link or a non-directory at `dest` is always refused. The new tree is built beside
    `dest` and exchanged with it in one atomic step (see `gpuplane.swap`), so `dest` is never
    missing; temporary siblings are removed on errors and on Ctrl-C/SIGTERM/SIGHUP.
    """
    if marker is not None and (marker.file not in files or not files[marker.file].startswith(marker.header)):
        raise ValueError(f"the tree must contain its marker {marker.file!r}")
    dest = Path(os.path.abspath(dest))
    exists = _dest_state(dest, marker, inputs, force)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        _stale_siblings(dest, marker)
        staging = tempfile.mkdtemp(prefix=f".{dest.name}.{_TEMP_TAG}-{os.getpid()}-", dir=dest.parent)
    except OSError as exc:
        raise _failed(dest, exc) from None
    try:
        with terminating_raises():
            os.chmod(staging, 0o777 & ~_umask())
            _fill(Path(staging), files)
            if exists:
                exchange(staging, str(dest))  # staging now holds the old tree
            else:
                move_new(staging, str(dest))
    except OSError as exc:
        _remove(staging)
        raise _failed(dest, exc) from None
    except BaseException:
        _remove(staging)
        raise
    _remove(staging)
