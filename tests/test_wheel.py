"""The wheel as users get it: built offline from the checkout's files, it holds the package, its
data files and nothing of the tests; installed on its own (no checkout, no ../shared beside it),
every command family that reads packaged data runs from it.

The wheel is built with `pip wheel --no-deps --no-build-isolation --no-index` (the setuptools
backend comes from the dev extras, so no network is needed) from a copy of the files git knows,
so that nothing the build writes (build/, *.egg-info) lands in the checkout.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplane import twinbuild
from gpuplane.cli import app, twin_build

REPO = Path(__file__).resolve().parents[1]
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
# The modules issue 15 moved out of the package into tests/support: they must never ship again.
TEST_SUPPORT_MODULES = {"testdata", "scenarios", "promserver", "browser"}
# Data files the tool reads at run time, by the loader that reads them (a hand-made list: the
# comparison with the source tree below catches files added later).
RUNTIME_DATA = {
    "gpuplane/vocab/names.yaml",  # vocab/__init__.py
    "gpuplane/limits.yaml",  # limits.py
    "gpuplane/baselines.yaml",  # baselines.py
    "gpuplane/plan/defaults.yaml",  # plan/defaults.py
    "gpuplane/catalog/data/accelerators.yaml",  # catalog/loader.py
    "gpuplane/catalog/data/vm_skus.yaml",
    "gpuplane/catalog/data/prices.csv",
    "gpuplane/catalog/data/providers.yaml",
    "gpuplane/catalog/data/device_plugin_sharing.yaml",
    "gpuplane/catalog/data/gpu_operator_mig_configs.yaml",
    "gpuplane/catalog/data/nvidia_charts.yaml",
    "gpuplane/render/data/dra.yaml",  # render/dra.py
    "gpuplane/render/data/tenancy.yaml",  # render/tenancy.py
    "gpuplane/audit/data/defaults.yaml",  # audit/facts.py
    "gpuplane/audit/data/cves.yaml",
    "gpuplane/audit/data/cuda_driver.csv",
    "gpuplane/sim/data/defaults.yaml",  # sim/config.py
    "gpuplane/sim/data/builtin-platform.yaml",  # sim/whatif.py
    "gpuplane/traces/generator_defaults.yaml",  # traces/params.py
    "gpuplane/traces/openb_qos.yaml",  # traces/openb.py
    "gpuplane/acceptance/data/series.yaml",  # acceptance/series.py
    "gpuplane/acceptance/data/thresholds.yaml",  # acceptance/thresholds.py
    "gpuplane/acceptance/data/nccl.yaml",
    "gpuplane/acceptance/helper.py",  # acceptance/workloads.py mounts it into the suite's pods
    "gpuplane/py.typed",
}


@dataclass(frozen=True)
class Built:
    """The wheel's file names, the package files of the copied checkout, the install folder and what
    the build printed."""

    names: frozenset[str]
    sources: frozenset[str]
    site: Path
    log: str


#: mypyc's shared runtime library of the compiled twin (setup.py: group_name), top level in the wheel.
MYPYC_RUNTIME = "gpuplane_twin__mypyc"


def _extension(name: str) -> bool:
    return name.endswith((".so", ".pyd"))


def _can_compile() -> bool:
    """Whether setup.py can compile the twin here (a C compiler and mypyc)."""
    return twinbuild.compiler_missing() is None and importlib.util.find_spec("mypyc") is not None


def _checkout_copy(dest: Path) -> Path:
    """The files git knows (tracked, or new and not ignored) copied to `dest`, as a clone has them."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # a tracked file deleted in the work tree is not copied
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def _package_files(root: Path) -> frozenset[str]:
    """Every file under `root`/src/gpuplane, as wheel paths (gpuplane/...)."""
    src = root / "src"
    return frozenset(
        p.relative_to(src).as_posix()
        for p in (src / "gpuplane").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in {".pyc", ".so"}
    )


def _build(work: Path, env: dict[str, str]) -> Built:
    """The wheel built from a copy of the checkout with `env`, and installed into work/site."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("the wheel is built from the files git knows: this is not a git checkout")
    checkout = _checkout_copy(work / "checkout")
    dist, site = work / "dist", work / "site"
    build = ["wheel", str(checkout), "-w", str(dist), "--no-deps", "--no-build-isolation", "--no-index", "-v"]
    # mypyc's compile of the twin takes about a CPU-minute; a loaded machine needs more wall time.
    done = subprocess.run([*PIP, *build], check=True, capture_output=True, text=True, timeout=1200, env=env)
    (wheel,) = dist.glob("gpuplane-*.whl")
    install = ["install", "--no-deps", "--no-index", "--target", str(site), str(wheel), "-q"]
    subprocess.run([*PIP, *install], check=True, capture_output=True, text=True, timeout=300)
    with zipfile.ZipFile(wheel) as archive:
        names = frozenset(i.filename for i in archive.infolist() if not i.is_dir())
    return Built(names, _package_files(checkout), site, done.stdout + done.stderr)


def _build_env(**extra: str) -> dict[str, str]:
    """The environment of a user's build: no GPUPLANE_PURE (the suite sets it for itself)."""
    return {**{k: v for k, v in os.environ.items() if k != twinbuild.PURE_ENV}, **extra}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The wheel as `pip install .` builds it on this machine (compiled when it can be)."""
    return _build(tmp_path_factory.mktemp("wheel"), _build_env())


def test_the_wheel_holds_only_the_gpuplane_package_and_its_metadata(built: Built) -> None:
    tops = {name.split("/")[0] for name in built.names}
    runtime = {t for t in tops if t.startswith(f"{MYPYC_RUNTIME}.") and _extension(t)}
    assert tops - runtime == {"gpuplane", "gpuplane-0.1.0.dist-info"}
    assert len(runtime) == (1 if _can_compile() else 0), runtime


def test_no_test_module_or_test_support_module_is_in_the_wheel(built: Built) -> None:
    for name in built.names:
        path = Path(name)
        assert "tests" not in path.parts and "support" not in path.parts, name
        assert path.stem not in TEST_SUPPORT_MODULES, name
        assert not path.name.startswith("test_") and path.name != "conftest.py", name


def test_every_package_file_and_every_runtime_data_file_is_in_the_wheel(built: Built) -> None:
    package = {name for name in built.names if name.startswith("gpuplane/") and not _extension(name)}
    assert package >= RUNTIME_DATA
    assert package == built.sources  # a data file of a new kind would be missing here


def test_the_wheel_holds_the_compiled_twin_beside_its_sources_when_it_can_be_built(built: Built) -> None:
    extensions = {name for name in built.names if name.startswith("gpuplane/") and _extension(name)}
    compiled = {f"gpuplane/{m}" for m in twinbuild.compiled_modules(REPO / "src" / "gpuplane")}
    if not _can_compile():
        assert extensions == set() and "gpuplane build: pure Python:" in built.log
        return
    # each compiled module is one extension named after it (gpuplane/kueue/scheduler.cpython-311-....so)
    assert {name.split(".")[0] + ".py" for name in extensions} == compiled
    assert compiled <= built.names  # the sources ship too (tracebacks, and the pure fallback's files)
    assert f"compiling {len(compiled)} twin modules with mypyc" in built.log


def _code_strings(tree: ast.AST) -> Iterator[str]:
    """String literals of a module that are not docstrings (those may cite ../shared as a source)."""
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.value


def test_the_package_code_names_no_path_to_the_reference_folder() -> None:
    for path in (REPO / "src" / "gpuplane").rglob("*.py"):
        for text in _code_strings(ast.parse(path.read_text(encoding="utf-8"))):
            assert "shared/" not in text and text != "shared", (path, text)


# Runs with only the installed wheel on the path, from a folder with no checkout and no ../shared:
# imports every module, then one command of each family that reads packaged data.
DRIVER = textwrap.dedent(
    """
    import importlib, json, pkgutil, sys
    from pathlib import Path

    from typer.testing import CliRunner

    site, examples = Path(sys.argv[1]), Path(sys.argv[2])
    import gpuplane
    from gpuplane.cli import app

    assert Path(gpuplane.__file__).is_relative_to(site), gpuplane.__file__
    modules = [m.name for m in pkgutil.walk_packages(gpuplane.__path__, "gpuplane.")]
    for name in modules:
        if not name.endswith("__main__"):
            importlib.import_module(name)
    spec = examples / "eks-mixed.yaml"
    runs = [
        ["providers"],
        *[["render", str(p), "-o", f"render-{p.stem}"] for p in sorted(examples.glob("*.yaml"))],
        ["audit", "-f", "render-eks-mixed", "--spec", str(spec), "-o", "json", "--fail-on", "never"],
        ["audit", "rules"],
        ["explain", "-f", "render-eks-mixed/kueue", "-o", "json"],
        ["simulate", "--horizon-hours", "6", "-q", "--json", "sim.json", "--report", "sim.html"],
        ["plan", "--no-ray", "--designs", "2", "--seeds", "1", "--finalists", "1", "-q", "-o", "plan"],
        ["acceptance", "render", str(spec), "--pool", "h100-train", "--image", "r.example/t:1",
         "--command", "python train.py", "-o", "suite"],
    ]
    for args in runs:
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, (args, result.output, result.exception)
    loaded = {n: getattr(m, "__file__", None) for n, m in list(sys.modules.items())}
    outside = [n for n, f in loaded.items() if n.startswith("gpuplane") and f and not Path(f).is_relative_to(site)]
    print(json.dumps({"modules": len(modules), "ran": [a[0] for a in runs], "outside": outside,
                      "tests": sorted(n for n in loaded if n == "tests" or n.startswith("tests."))}))
    """
)


def test_the_installed_wheel_runs_every_command_family_without_the_checkout(
    built: Built, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "driver.py").write_text(DRIVER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(built.site), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "driver.py", str(built.site), str(REPO / "examples")],
        cwd=run_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["modules"] >= 100 and report["outside"] == [] and report["tests"] == []
    assert not (run_dir.parent / "shared").exists() and not (built.site.parent / "shared").exists()
    assert set(report["ran"]) == {"providers", "render", "audit", "explain", "simulate", "plan", "acceptance"}
    assert json.loads((run_dir / "sim.json").read_text())
    assert (run_dir / "plan" / "winner.yaml").is_file() and (run_dir / "suite").is_dir()


def test_the_installed_console_script_starts(built: Built, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(built.site)}
    script = built.site / "bin" / "gpuplane"
    done = subprocess.run(
        [sys.executable, str(script), "--version"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and "0.1.0" in done.stdout, done.stdout + done.stderr
    expected = "compiled with mypyc" if _can_compile() else "pure Python"
    assert done.stdout.strip() == f"gpuplane 0.1.0 (twin: {expected})"


def test_the_installed_twin_simulates_byte_for_byte_what_the_pure_package_does(
    built: Built, tmp_path: Path
) -> None:
    # the built-in example as the wheel (compiled where it can be) runs it, and as this suite's pure
    # package does in-process: deterministic outputs may not depend on the build
    args = ["simulate", "--horizon-hours", "12", "-q", "--json"]
    env = {**os.environ, "PYTHONPATH": str(built.site)}
    script = built.site / "bin" / "gpuplane"
    done = subprocess.run(
        [sys.executable, str(script), *args, "wheel.json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    pure = CliRunner().invoke(app, [*args, str(tmp_path / "pure.json")])
    assert pure.exit_code == 0, pure.output
    assert twin_build() == "pure Python"
    assert (tmp_path / "wheel.json").read_bytes() == (tmp_path / "pure.json").read_bytes()


def test_without_a_compiler_the_wheel_is_pure_python_and_says_so(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    fallback = _build(tmp_path_factory.mktemp("pure-wheel"), _build_env(CC="/nonexistent/cc"))
    assert not any(_extension(name) for name in fallback.names)
    assert "gpuplane build: pure Python: no C compiler ('/nonexistent/cc' not found)" in fallback.log
    done = subprocess.run(
        [sys.executable, str(fallback.site / "bin" / "gpuplane"), "--version"],
        env={**os.environ, "PYTHONPATH": str(fallback.site)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout.strip() == "gpuplane 0.1.0 (twin: pure Python)", done.stdout + done.stderr
