"""The plan folder (`plan -o DIR`): owned, locked, and never followed through a link.

- DIR is used only when it is new, empty, or carries plan's marker: a regular file `.gpuplane-plan`
  (not a link) that starts with `MARKER_HEADER`, as render's tree carries its `index.yaml`. A DIR
  with anything else in it is refused; DIR itself must not be a symbolic link (a dangling one
  included) and must be writable, checked before any work.
- One lock per DIR (`flock` on `.gpuplane-plan.lock`, held for the whole run): a second plan into
  the same DIR is refused at once, so two runs never leave a mixed folder.
- Inside DIR nothing is followed through a symbolic link: each file is written to a temporary
  sibling and renamed onto its name, so a link planted as `winner.yaml` or as a cache entry is
  replaced, never written through; a `cache` that is a link or not a directory is refused; cache
  entries are read only when they are regular files (opened with O_NOFOLLOW), within the input size
  limit.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from pathlib import Path
from types import TracebackType

from gpuplane.errors import OutputError
from gpuplane.limits import limits
from gpuplane.outputs import TreeMarker, replace_file

MARKER = ".gpuplane-plan"
MARKER_HEADER = "# Written by gpuplane plan: this folder is replaced by the next plan run into it.\n"
LOCK = ".gpuplane-plan.lock"
CACHE = "cache"
OUR_FILES = ("winner.yaml", "report.html", "plan.json", "designs.csv", CACHE, MARKER, LOCK)


class Unreadable(Exception):
    """A cache entry that cannot be used (missing, a link, not a regular file, too large)."""


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutputError.at(str(path), f"cannot write: {exc.strerror or exc}") from None


class PlanFolder:
    """DIR of one plan run: `check()` before the work, then `with folder:` holds the lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock: int | None = None

    @property
    def marker(self) -> TreeMarker:
        """How a folder plan wrote is recognised."""
        return TreeMarker(MARKER, MARKER_HEADER)

    def check(self) -> None:
        """OutputError now if DIR cannot or must not be used (see the module docstring)."""
        shown = str(self.path)
        info = _lstat(self.path)
        if info is None:
            parent = Path(os.path.abspath(self.path)).parent
            while _lstat(parent) is None and parent != parent.parent:
                parent = parent.parent
            if not parent.is_dir():
                raise OutputError.at(shown, f"cannot write: {parent} is not a directory")
            if not os.access(parent, os.W_OK | os.X_OK):
                raise OutputError.at(shown, f"cannot write: {parent} is not writable")
            return
        if stat.S_ISLNK(info.st_mode):
            raise OutputError.at(
                shown,
                f"is a symbolic link to {os.readlink(self.path)}; gpuplane plan does not write through links: "
                "give the directory itself",
            )
        if not stat.S_ISDIR(info.st_mode):
            raise OutputError.at(shown, "exists and is not a directory")
        if not os.access(self.path, os.W_OK | os.X_OK):
            raise OutputError.at(shown, "cannot write: the directory is not writable")
        self._check_owned()

    def _check_owned(self) -> None:
        shown = str(self.path)
        try:
            names = sorted(os.listdir(self.path))
        except OSError as exc:
            raise OutputError.at(shown, f"cannot read: {exc.strerror or exc}") from None
        others = [n for n in names if n != LOCK]
        if others and not self.marker.found_in(self.path):
            raise OutputError.at(
                shown,
                f"not written by gpuplane plan (no {MARKER} with plan's header; has {', '.join(others[:5])}); "
                "choose an empty or new -o DIR",
            )
        cache = _lstat(self.path / CACHE)
        if cache is not None and not stat.S_ISDIR(cache.st_mode):
            what = "a symbolic link" if stat.S_ISLNK(cache.st_mode) else "not a directory"
            raise OutputError.at(
                str(self.path / CACHE), f"is {what}; gpuplane plan follows no links inside its folder"
            )

    def __enter__(self) -> PlanFolder:
        shown = str(self.path)
        self.check()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OutputError.at(
                    str(self.path / LOCK), "is a symbolic link; refusing to use it"
                ) from None
            raise OutputError.at(shown, f"cannot write: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise OutputError.at(
                shown,
                "another gpuplane plan is writing into this folder; wait for it or choose another -o DIR",
            ) from None
        self._lock = fd
        try:
            self.check()  # again, now that no other plan can change it
            self.write(MARKER, MARKER_HEADER)
            (self.path / CACHE).mkdir(exist_ok=True)
        except BaseException:
            self._release()
            raise
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._release()

    def _release(self) -> None:
        if self._lock is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock, fcntl.LOCK_UN)
            os.close(self._lock)
            self._lock = None

    @property
    def cache(self) -> Path:
        """The cache folder."""
        return self.path / CACHE

    def write(self, name: str, text: str) -> Path:
        """Replace DIR/name with `text` (a link there is replaced, never followed)."""
        path = self.path / name
        replace_file(path, text)
        return path

    def remove(self, name: str) -> None:
        """Remove DIR/name if it is there (a link is removed, not its target)."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path / name)


def read_entry(path: Path) -> str:
    """The text of a cache entry; Unreadable when it is not a regular file we may read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Unreadable("a symbolic link, not followed") from None
        raise Unreadable(exc.strerror or str(exc)) from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable("not a regular file")
        cap = limits().input_bytes
        if info.st_size > cap:
            raise Unreadable(f"larger than {cap} bytes (limits: input_bytes)")
        data = handle.read(cap + 1)
    if len(data) > cap:
        raise Unreadable(f"larger than {cap} bytes (limits: input_bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not UTF-8 ({exc.reason})") from None
