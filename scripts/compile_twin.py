"""Build a copy of gpuplane whose twin hot paths are compiled with mypyc, or say why not.

    python scripts/compile_twin.py build/compiled      # then: PYTHONPATH=build/compiled gpuplane ...

The copy is the whole package (src/gpuplane) with the modules below compiled to C extensions
next to their sources; anything else stays Python. Nothing in src/ is touched, so an editable
install never runs a stale extension. The copy is rebuilt only when a source file changed (a
hash of src/gpuplane is kept in DEST/.compiled). When mypyc or a C compiler is missing, or
compilation fails, DEST is removed and the reason printed: whoever uses DEST then gets the pure
Python package (exit status 0 either way; `make bench` prints which one ran).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "src" / "gpuplane"
#: The modules of the twin's event loop and of Kueue admission (what a simulation spends its time in).
MODULES = [
    *(
        f"kueue/{name}.py"
        for name in (
            # objects: not compiled, so its frozen records stay deep-copyable (mypyc ones are not)
            "quantity",
            "resource_node",
            "queues",
            "shape_queue",
            "candidate_lists",
            "snapshot",
            "candidates",
            "flavor_assigner",
            "preemption",
            "fair_sharing",
            "fair_preemption",
            "assignment",
            "entry",
            "results",
            "reasons",
            "scheduler",
        )
    ),
    *(
        f"sim/{name}.py"
        for name in (
            "events",
            "progress",
            "requests",
            "state",
            "runs",
            "series",
            "cluster",
            "autoscaler",
            "contention",
            "fleet",
            "kueue_admitter",
            "engine",
        )
    ),
]


def source_hash() -> str:
    """A hash of every file of the package and of the module list (a change means a rebuild)."""
    digest = hashlib.sha256("\n".join(MODULES).encode())
    for path in sorted(SOURCE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(SOURCE)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def build(dest: Path) -> str:
    """Build `dest` (or keep it when up to date); returns what happened, in one line."""
    stamp = dest / ".compiled"
    wanted = source_hash()
    if stamp.exists() and stamp.read_text() == wanted:
        return f"compiled twin in {dest} is up to date"
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    shutil.copytree(SOURCE, dest / "gpuplane", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mypyc", *(f"gpuplane/{m}" for m in MODULES)],
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
    stamp.write_text(wanted)
    return f"compiled twin built in {dest} ({len(MODULES)} modules)"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    print(build(Path(argv[0]).resolve()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
