"""`make bench`: run every benchmarks/bench_*.py and print its figures.

Each module exposes `run() -> list[tuple[str, str]]`. Benchmarks print figures; they never
assert on wall time. Each figure is printed with the one the previous run on this machine printed
beside it (kept in build/bench-last.json), so a change shows as two numbers in one line. `make bench BENCH=sim` (or `python benchmarks/run.py sim`) runs one family.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
LAST = HERE.parent / "build" / "bench-last.json"


def _previous() -> dict[str, str]:
    try:
        data = json.loads(LAST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _remember(figures: dict[str, str]) -> None:
    LAST.parent.mkdir(parents=True, exist_ok=True)
    tmp = LAST.with_suffix(".tmp")
    tmp.write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(LAST)


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _twin_build() -> str:
    """Whether the twin's hot modules run compiled (scripts/compile_twin.py) or as Python."""
    import gpuplane.kueue.scheduler

    where = Path(gpuplane.kueue.scheduler.__file__)
    return (
        f"twin compiled with mypyc ({where.parent.parent.parent})"
        if where.suffix == ".so"
        else "twin in pure Python"
    )


def main(argv: list[str]) -> int:
    wanted = set(argv)
    print(f"({_twin_build()})", flush=True)
    paths = sorted(HERE.glob("bench_*.py"))
    failures = 0
    previous = _previous()
    figures = dict(previous)
    for path in paths:
        family = path.stem.removeprefix("bench_")
        if wanted and family not in wanted:
            continue
        print(f"== {family}", flush=True)
        started = time.perf_counter()
        try:
            rows = _load(path).run()
        except Exception as exc:  # report and go on with the other families
            print(f"  FAILED: {type(exc).__name__}: {exc}", flush=True)
            failures += 1
            continue
        width = max((len(label) for label, _ in rows), default=0)
        for label, figure in rows:
            key = f"{family}: {label}"
            before = previous.get(key)
            beside = f"   [previous: {before}]" if before is not None else "   [previous: none]"
            print(f"  {label.ljust(width)}  {figure}{beside}", flush=True)
            figures[key] = figure
        _remember(figures)
        print(f"  ({time.perf_counter() - started:.1f} s for this family)", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
