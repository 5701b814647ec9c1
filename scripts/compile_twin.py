"""Build a copy of gpuplane whose twin hot paths are compiled with mypyc, or say why not.

    python scripts/compile_twin.py [build/compiled]

The copy is the whole package (src/gpuplane) with the modules `gpuplane.twinbuild.compiled_modules`
lists compiled to C extensions next to their sources; anything else stays Python. Nothing in src/ is
touched. A checkout's `import gpuplane` loads the copy only while its stamp (DEST/.compiled) matches
the sources (see gpuplane/twinbuild.py), so a stale extension never runs; `PYTHONPATH=DEST` runs it
too (what `make bench` does). The copy is rebuilt only when a source file changed. When no C
compiler is there, mypyc is missing or compilation fails, DEST is removed and the reason printed:
the pure-Python package then runs (exit status 0 either way; `gpuplane --version` says which runs).
GPUPLANE_PURE=1 skips the build (and keeps the package from loading DEST).
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "src" / "gpuplane"


def _twinbuild() -> ModuleType:
    """gpuplane/twinbuild.py loaded on its own (importing gpuplane would attach the copy being built)."""
    spec = importlib.util.spec_from_file_location("_gpuplane_twinbuild", SOURCE / "twinbuild.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(dest: Path) -> str:
    """Build `dest` (or keep it when up to date); returns what happened, in one line."""
    tb = _twinbuild()
    if tb.pure_requested():
        return f"pure Python: {tb.PURE_ENV} is set (no build; an existing copy is not loaded)"
    if tb.copy_is_current(dest, SOURCE):
        return f"compiled twin in {dest} is up to date"
    shutil.rmtree(dest, ignore_errors=True)
    missing = tb.compiler_missing()
    if missing is not None:
        return f"pure Python: {missing}"
    modules = tb.compiled_modules(SOURCE)
    stamp = tb.stamp_text(SOURCE)  # taken before the copy: a source changed meanwhile means a rebuild
    dest.mkdir(parents=True)
    shutil.copytree(SOURCE, dest / "gpuplane", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mypyc", *(f"gpuplane/{m}" for m in modules)],
            cwd=dest,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        done = subprocess.CompletedProcess([], 1, "", str(exc))
    if done.returncode != 0:
        shutil.rmtree(dest, ignore_errors=True)
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return "pure Python: mypyc could not compile the twin (" + " | ".join(tail) + ")"
    shutil.rmtree(dest / "build", ignore_errors=True)
    (dest / tb.STAMP).write_text(stamp, encoding="utf-8")
    return f"compiled twin built in {dest} ({len(modules)} modules)"


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        print(__doc__, file=sys.stderr)
        return 2
    print(build(Path(argv[0] if argv else REPO / "build" / "compiled").resolve()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
