"""The wheel's build hook: compile the twin's hot modules with mypyc, or build the pure-Python wheel.

Everything else about the build is in pyproject.toml. `pip install .` (and `pip wheel .`) compile the
modules `gpuplane.twinbuild.compiled_modules` lists into C extensions beside their sources (mypy,
which provides mypyc, is in [build-system].requires; a C compiler must be on the machine). When the
build cannot run, the wheel is the pure-Python package and says why on the build's output:
- GPUPLANE_PURE=1 in the environment asks for the pure build;
- no C compiler ($CC or the compiler Python was built with is not on PATH);
- mypyc is missing, or it or the C compiler fails on the sources (every extension already built
  is removed, so a wheel never holds part of a build).
An editable install (`pip install -e .`, what `make` does) never compiles in place (an extension
next to a changed source would go stale): `make` builds a separate copy instead, see
scripts/compile_twin.py. `gpuplane --version` says which build runs.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def _twinbuild() -> ModuleType:
    """src/gpuplane/twinbuild.py loaded on its own (the package is not importable while it builds)."""
    spec = importlib.util.spec_from_file_location("_gpuplane_twinbuild", ROOT / "src/gpuplane/twinbuild.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _say(message: str) -> None:
    print(f"gpuplane build: {message}", file=sys.stderr, flush=True)


class OptionalBuildExt(build_ext):
    """build_ext that falls back to the pure-Python package when compiling fails."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # CompileError, LinkError, a missing header: any reason is a fallback
            for ext in self.extensions:
                Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
            self.extensions = []
            _say(f"pure Python: compiling the twin failed ({type(exc).__name__}: {exc})")


def _extensions() -> list[Any]:
    """The mypyc extensions for a wheel build, or [] (with the reason said) for the pure build."""
    if not any(command == "bdist_wheel" for command in sys.argv[1:]):
        return []  # metadata, sdist, editable install: nothing to compile
    twinbuild = _twinbuild()
    if twinbuild.pure_requested():
        _say(f"pure Python: {twinbuild.PURE_ENV} is set")
        return []
    missing = twinbuild.compiler_missing()
    if missing is not None:
        _say(f"pure Python: {missing}")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        _say(f"pure Python: mypyc is not installed ({exc})")
        return []
    package = ROOT / "src" / "gpuplane"
    paths = [f"src/gpuplane/{m}" for m in twinbuild.compiled_modules(package)]
    # No mypy configuration: the project's (strict, with the pydantic plugin) is for linting, and the
    # runtime dependencies are not installed in an isolated build (their types are then Any).
    options = ["--config-file=", "--ignore-missing-imports"]
    try:
        extensions: list[Any] = mypycify([*options, *paths], group_name="gpuplane_twin")
    except BaseException as exc:  # mypyc exits (SystemExit) on a type error
        if isinstance(exc, KeyboardInterrupt):
            raise
        _say(f"pure Python: mypyc could not compile the twin ({type(exc).__name__}: {exc})")
        return []
    _say(f"compiling {len(paths)} twin modules with mypyc")
    return extensions


if __name__ == "__main__":  # (setuptools' build backend runs this file as __main__; tests import it)
    setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
