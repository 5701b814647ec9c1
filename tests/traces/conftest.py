"""Fixtures of the traces tests: the reference traces folder and small file writers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def traces_dir(shared_dir: Path) -> Path:
    return shared_dir / "reference" / "traces"


@pytest.fixture
def write_csv(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write `text` to tmp_path/name and return the path."""

    def write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write
