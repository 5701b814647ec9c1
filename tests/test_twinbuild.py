"""Which twin build runs (issue 23, "the fast build is what users get").

A checkout loads the compiled copy `make` builds (build/compiled) only while its stamp matches the
sources, never with GPUPLANE_PURE set, never outside a checkout; with no C compiler the build falls
back to pure Python and says so; and the compiled twin's outputs are byte-identical to the pure
twin's (the built-in example's simulate JSON). The wheel's compiled and fallback builds are tested
in tests/test_wheel.py.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from gpuplane import twinbuild

REPO = Path(__file__).resolve().parents[1]


def _fake_checkout(root: Path) -> tuple[Path, Path]:
    """A checkout (pyproject.toml, src/gpuplane with a kueue module) and its built copy, stamped."""
    package = root / "src" / "gpuplane"
    (package / "kueue").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\n", encoding="utf-8")
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "kueue" / "scheduler.py").write_text("X = 1\n", encoding="utf-8")
    copy = root / twinbuild.COPY_DIR
    (copy / "gpuplane").mkdir(parents=True)
    (copy / "gpuplane" / "__init__.py").write_text("", encoding="utf-8")
    (copy / twinbuild.STAMP).write_text(twinbuild.stamp_text(package), encoding="utf-8")
    return package, copy


def _attach(package: Path) -> tuple[bool, list[str]]:
    path = [str(package)]
    before = list(sys.path)
    try:
        return twinbuild.attach_compiled_copy(path), path
    finally:
        sys.path[:] = before


def test_a_current_copy_is_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(twinbuild.PURE_ENV, raising=False)
    package, copy = _fake_checkout(tmp_path)
    assert _attach(package) == (True, [str(copy / "gpuplane")])


def test_a_copy_built_from_other_sources_is_never_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(twinbuild.PURE_ENV, raising=False)
    package, _ = _fake_checkout(tmp_path)
    source = package / "kueue" / "scheduler.py"
    info = source.stat()
    source.write_text("X = 2\n", encoding="utf-8")  # same size, the time restored: only the content differs
    os.utime(source, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert _attach(package) == (False, [str(package)])


@pytest.mark.parametrize("change", ["edit", "new file", "removed file"])
def test_any_change_to_the_sources_makes_the_copy_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    monkeypatch.delenv(twinbuild.PURE_ENV, raising=False)
    package, _ = _fake_checkout(tmp_path)
    if change == "edit":
        (package / "kueue" / "scheduler.py").write_text("X = 10\n", encoding="utf-8")
    elif change == "new file":
        (package / "data.yaml").write_text("a: 1\n", encoding="utf-8")
    else:
        (package / "kueue" / "scheduler.py").unlink()
    assert _attach(package) == (False, [str(package)])


def test_a_touched_but_unchanged_source_keeps_the_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(twinbuild.PURE_ENV, raising=False)
    package, copy = _fake_checkout(tmp_path)
    source = package / "kueue" / "scheduler.py"
    os.utime(source, ns=(1, 1))  # a new time, the same content
    assert _attach(package) == (True, [str(copy / "gpuplane")])


def test_gpuplane_pure_keeps_the_pure_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(twinbuild.PURE_ENV, "1")
    package, _ = _fake_checkout(tmp_path)
    assert _attach(package) == (False, [str(package)])


def test_outside_a_checkout_nothing_is_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(twinbuild.PURE_ENV, raising=False)
    package, _ = _fake_checkout(tmp_path)
    (tmp_path / "pyproject.toml").unlink()
    assert _attach(package) == (False, [str(package)])


def test_a_missing_compiler_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "/nonexistent/cc -O2")
    assert twinbuild.compiler_missing() == "no C compiler ('/nonexistent/cc -O2' not found)"
    monkeypatch.setenv("CC", sys.executable)  # any program on disk stands for a compiler here
    assert twinbuild.compiler_missing() is None


def _compile_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compile_twin", REPO / "scripts" / "compile_twin.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_without_a_compiler_the_copy_is_not_built_and_the_reason_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(twinbuild.PURE_ENV, raising=False)
    monkeypatch.setenv("CC", "/nonexistent/cc")
    dest = tmp_path / "compiled"
    (dest / "gpuplane").mkdir(parents=True)  # a copy from earlier sources is removed, never kept
    said = _compile_script().build(dest)
    assert said == "pure Python: no C compiler ('/nonexistent/cc' not found)"
    assert not dest.exists()


def test_the_compiled_modules_exist_and_include_the_kueue_records() -> None:
    package = REPO / "src" / "gpuplane"
    modules = twinbuild.compiled_modules(package)
    assert all((package / m).is_file() for m in modules)
    assert "kueue/scheduler.py" in modules and "sim/engine.py" in modules
    # the records are native classes in the compiled twin (tests/kueue/test_records_copy.py)
    assert "kueue/objects.py" in modules and "kueue/__init__.py" not in modules
    # topology-aware scheduling runs compiled too (issue 23), its package face stays Python
    assert {"kueue/tas/placement.py", "kueue/tas/state.py", "kueue/tas/hook.py"} <= set(modules)
    assert "kueue/tas/__init__.py" not in modules
    assert len(modules) == len(set(modules))


def _run(args: list[str], cwd: Path, pure: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != twinbuild.PURE_ENV}
    if pure:
        env[twinbuild.PURE_ENV] = "1"
    return subprocess.run(
        [sys.executable, "-m", "gpuplane", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_checkouts_compiled_twin_says_so_and_writes_what_the_pure_twin_writes(tmp_path: Path) -> None:
    copy = REPO / twinbuild.COPY_DIR
    if not twinbuild.copy_is_current(copy, REPO / "src" / "gpuplane"):
        pytest.skip("no compiled copy of these sources: `make compiled` (make test and make demo build it)")
    outputs = {}
    for pure in (True, False):
        version = _run(["--version"], tmp_path, pure)
        assert version.returncode == 0, version.stderr
        assert version.stdout.strip().endswith(
            "(twin: pure Python)" if pure else "(twin: compiled with mypyc)"
        )
        name = tmp_path / ("pure.json" if pure else "compiled.json")
        done = _run(["simulate", "-q", "--json", str(name)], tmp_path, pure)
        assert done.returncode == 0, done.stderr[-2000:]
        outputs[pure] = name.read_bytes()
    assert json.loads(outputs[True]) and outputs[True] == outputs[False]


GOOD_C = """
#include <Python.h>
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "good", NULL, -1, NULL};
PyMODINIT_FUNC PyInit_good(void) { return PyModule_Create(&def); }
"""


def test_a_failing_compile_leaves_no_extension_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # setup.py's build_ext on two extensions: the first compiles, the second is not C; the wheel
    # must then hold neither (a part of a mypyc build cannot run), and the build says why
    if twinbuild.compiler_missing() is not None:
        pytest.skip("no C compiler here")
    setuptools = importlib.import_module("setuptools")  # (no type stubs here)
    Distribution, Extension = setuptools.Distribution, setuptools.Extension

    spec = importlib.util.spec_from_file_location("gpuplane_setup", REPO / "setup.py")
    assert spec is not None and spec.loader is not None
    setup_py = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup_py)  # defines the hook; setup() runs only as __main__
    (tmp_path / "good.c").write_text(GOOD_C, encoding="utf-8")
    (tmp_path / "bad.c").write_text("this is not C;\n", encoding="utf-8")
    extensions = [Extension("good", [str(tmp_path / "good.c")]), Extension("bad", [str(tmp_path / "bad.c")])]
    command = setup_py.OptionalBuildExt(Distribution({"name": "probe", "ext_modules": extensions}))
    command.build_lib, command.build_temp = str(tmp_path / "lib"), str(tmp_path / "tmp")
    command.ensure_finalized()
    command.run()
    assert (tmp_path / "tmp").is_dir()  # the compiler ran (good.c was compiled) ...
    assert not [p for p in (tmp_path / "lib").rglob("*") if p.is_file()]  # ... and nothing is kept
    assert command.extensions == []
    assert "gpuplane build: pure Python: compiling the twin failed (CompileError" in capsys.readouterr().err
