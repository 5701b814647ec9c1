"""Fixtures for render tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.render.render_helpers import EXAMPLES


@pytest.fixture(params=EXAMPLES, ids=[p.stem for p in EXAMPLES])
def example(request: pytest.FixtureRequest) -> Path:
    path: Path = request.param
    return path
