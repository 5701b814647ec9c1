"""Shared fixtures: paths to the repository and to the read-only reference folder beside it."""

from __future__ import annotations

import os

# The suite runs the pure-Python package in-process (tests monkeypatch module functions, which mypyc's
# compiled modules do not allow), even where `make` built the compiled copy: set before anything
# imports gpuplane (gpuplane/twinbuild.py: PURE_ENV). tests/test_twinbuild.py and tests/test_wheel.py
# run the compiled builds in subprocesses and compare their outputs with these.
os.environ.setdefault("GPUPLANE_PURE", "1")

from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def repo_dir() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"the reference folder {SHARED} is missing (it lies beside the checkout)")
    return SHARED


# Hypothesis: `make test` is deterministic (a fixed derivation of examples per test, no example
# database carried between runs, no deadline that a loaded machine could miss), so the suite
# passes or fails the same way on every fresh run; every example that ever found a bug is kept with
# @example. `HYPOTHESIS_PROFILE=explore make test` searches with fresh randomness and more examples.
settings.register_profile("deterministic", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("explore", max_examples=1000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))
