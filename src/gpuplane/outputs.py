"""Writing outputs atomically: everything goes to a temporary place and is moved in when complete.

Bad input must never leave a half-written output directory or file behind.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def _default_mode() -> int:
    """The mode a plainly created file gets (0o666 minus the umask); mkstemp would give 0o600."""
    return 0o666 & ~_umask()


def write_text_atomic(path: Path, text: str) -> None:
    """Write a file via a temporary sibling and an atomic rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(tmp, _default_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_tree_atomic(dest: Path, files: dict[str, str]) -> None:
    """Replace directory `dest` with exactly `files` (relative path -> text), all or nothing.

    The new tree is built beside `dest` and swapped in with renames, so a failure at any point
    leaves the old directory as it was.
    """
    dest = dest.resolve()
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.new.", dir=dest.parent))
    os.chmod(staging, 0o777 & ~_umask())
    try:
        for rel, text in sorted(files.items()):
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="\n")
        if dest.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old.", dir=dest.parent))
            old.rmdir()
            os.replace(dest, old)
            try:
                os.replace(staging, dest)
            except BaseException:
                os.replace(old, dest)
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
