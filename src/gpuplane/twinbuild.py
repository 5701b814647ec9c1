"""Which build of the twin runs, and the one list of what the compiled build compiles with mypyc.

Two places build the twin's hot modules with mypyc, both from this module's `compiled_modules`:

- a wheel (`pip install .`): `setup.py` compiles them next to their sources in the wheel;
- a checkout (the editable install of `make`): `scripts/compile_twin.py` builds a separate copy of
  the whole package in `build/compiled` and stamps it with `source_hash` of src/gpuplane.

`attach_compiled_copy` (called by the package's `__init__`) makes a checkout's `import gpuplane`
load its subpackages from that copy only when the stamp matches the sources as they are now, so an
extension built from older sources never runs; `GPUPLANE_PURE=1` keeps the pure-Python package.
Whenever no compiler, no mypyc or a compile error stops a build, the pure-Python package runs, and
`gpuplane --version` says which one (`describe`). Nothing here imports more than the standard library:
`setup.py` loads this file on its own, before the package can be imported.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import sysconfig
from pathlib import Path

#: Set (to anything but "" or "0") to run, and build, the pure-Python twin.
PURE_ENV = "GPUPLANE_PURE"
#: The copy `scripts/compile_twin.py` builds, relative to the checkout (beside src/).
COPY_DIR = Path("build") / "compiled"
#: The stamp in the copy: the hash of the sources it was built from.
STAMP = ".compiled"
#: Packages compiled whole: every module in the folder but PURE_MODULES (one entry per line).
COMPILED_PACKAGES = (
    "kueue",  # the admission the twin runs
    "kueue/tas",  # topology-aware scheduling (issue 23: TAS runs compiled too)
)
#: Modules left uncompiled inside COMPILED_PACKAGES: the packages' faces. (kueue/objects.py is
#: compiled: its records are native classes; its frozen ones copy and pickle through
#: `objects.Record.__reduce__`, tests/kueue/test_records_copy.py.)
PURE_MODULES = (
    "kueue/__init__.py",
    "kueue/tas/__init__.py",
)
#: Single modules compiled (one entry per line): the quantity grammar and the simulator's hot
#: modules (its event loop, state, fleet, contention, autoscaler, admitter).
COMPILED_MODULES = (
    "kube/quantity.py",
    "sim/events.py",
    "sim/progress.py",
    "sim/requests.py",
    "sim/state.py",
    "sim/runs.py",
    "sim/series.py",
    "sim/cluster.py",
    "sim/autoscaler.py",
    "sim/contention.py",
    "sim/fleet.py",
    "sim/kueue_admitter.py",
    "sim/admitters.py",  # CycleOutcome: built once per scheduling cycle
    "sim/engine.py",
    "explain/eta.py",  # explain --eta's forward run drives Kueue's cycles
)


def pure_requested() -> bool:
    """True when GPUPLANE_PURE asks for the pure-Python twin."""
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def compiled_modules(package: Path) -> list[str]:
    """The modules compiled with mypyc, as paths relative to `package` (the gpuplane folder): every
    module of COMPILED_PACKAGES but PURE_MODULES, then COMPILED_MODULES."""
    whole = [
        f"{folder}/{p.name}"
        for folder in COMPILED_PACKAGES
        for p in sorted((package / folder).glob("*.py"))
        if f"{folder}/{p.name}" not in PURE_MODULES
    ]
    return [*whole, *COMPILED_MODULES]


def _sources(package: Path) -> list[Path]:
    return sorted(
        p
        for p in package.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in {".pyc", ".so", ".pyd"}
    )


def source_hash(package: Path) -> str:
    """A hash of every file of the package and of the compiled-module list (any change: a rebuild)."""
    digest = hashlib.sha256("\n".join(compiled_modules(package)).encode())
    for path in _sources(package):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def stamp_text(package: Path) -> str:
    """The stamp of a build of `package` as it is now (written into the copy once it is built)."""
    return json.dumps({"hash": source_hash(package)})


def copy_is_current(copy: Path, package: Path) -> bool:
    """True when `copy` holds a build of exactly the sources now in `package` (the stamp's content
    hash; about 40 ms for the whole package, paid only by a checkout that has a copy)."""
    try:
        stamp = json.loads((copy / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(stamp, dict) or not (copy / "gpuplane" / "__init__.py").is_file():
        return False
    return bool(stamp.get("hash") == source_hash(package))


def checkout_copy(package: Path) -> Path | None:
    """The compiled copy's folder when `package` is src/gpuplane of a checkout, else None."""
    root = package.parent.parent
    if package.parent.name != "src" or not (root / "pyproject.toml").is_file():
        return None
    return root / COPY_DIR


def attach_compiled_copy(package_path: list[str]) -> bool:
    """Load gpuplane's subpackages and modules from the checkout's compiled copy when it is current
    (and GPUPLANE_PURE is not set): `package_path` (the package's `__path__`) is pointed at the copy,
    and the copy's folder is appended to sys.path for mypyc's shared runtime library. True if done."""
    if pure_requested() or len(package_path) != 1:
        return False
    package = Path(package_path[0])
    copy = checkout_copy(package)
    if copy is None or not copy_is_current(copy, package):
        return False
    package_path[:] = [str(copy / "gpuplane")]
    sys.path.append(str(copy))
    return True


def module_is_compiled(module_file: str) -> bool:
    """True when a module was loaded from a C extension (mypyc's output)."""
    return module_file.endswith((".so", ".pyd"))


def describe(module_file: str) -> str:
    """The twin's build in words, from the file the Kueue scheduler module was loaded from."""
    return "compiled with mypyc" if module_is_compiled(module_file) else "pure Python"


def compiler_missing() -> str | None:
    """Why no C extension can be built here (no C compiler on PATH), or None when one is there.
    The compiler is the one Python's build tools use: $CC, else the CC Python was built with."""
    command = os.environ.get("CC") or str(sysconfig.get_config_var("CC") or "cc")
    words = command.split()
    if not words or shutil.which(words[0]) is None:
        return f"no C compiler ({command or 'CC is empty'!r} not found)"
    return None
