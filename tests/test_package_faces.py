"""Each package's face is what it says: `__all__` equals the package's public names (issue 20).

A public name is one not starting with `_` that the package's `__init__` defines or imports; a
submodule may be listed in `__all__` (it must then exist). A name imported for internal use
is imported as `_name` or inside the function that needs it, so `from gpuplane.x import *` and
readers of `__all__` see the real API and nothing else.
"""

from __future__ import annotations

import importlib
import types
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "gpuplane"
#: Packages without an `__all__`, and why.
NO_FACE = {
    "cli": "the command layer: nothing imports from it but entry.py (its face is `app` and `main`)",
    "vocab": "a namespace of constants, all public by construction (tests/test_vocab_literals.py)",
}
PACKAGES = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))


def _public(module: types.ModuleType) -> set[str]:
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and name != "annotations" and not isinstance(value, types.ModuleType)
    }


@pytest.mark.parametrize("package", [p for p in PACKAGES if p not in NO_FACE])
def test_all_equals_the_public_names(package: str) -> None:
    module = importlib.import_module(f"gpuplane.{package}")
    listed = set(getattr(module, "__all__", []))
    submodules = {n for n in listed if isinstance(getattr(module, n, None), types.ModuleType)}
    assert listed - submodules == _public(module), (
        f"gpuplane.{package}: not in __all__: {sorted(_public(module) - listed)}; "
        f"listed but not defined: {sorted(listed - submodules - _public(module))}"
    )
    assert len(getattr(module, "__all__", [])) == len(listed), "a name listed twice"


def test_the_exemptions_are_packages() -> None:
    assert set(NO_FACE) <= set(PACKAGES)


def test_the_check_sees_a_stray_name() -> None:
    """The check can fail: a module with an imported helper not in `__all__` has a stray name."""
    stray = types.ModuleType("stray")
    exec("from typing import Any\n__all__ = ['f']\ndef f() -> None: ...\n", stray.__dict__)
    assert _public(stray) - set(stray.__all__) == {"Any"}
