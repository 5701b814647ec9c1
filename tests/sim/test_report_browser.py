"""The HTML report opens in headless Chromium without console errors and its plots render.

The screenshot is kept as an artifact: $GPUPLANE_ARTIFACTS/sim-report.png when that variable is
set, else in pytest's temporary directory (the path is printed).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpuplane.sim.command import execute
from gpuplane.sim.options import Options
from tests.support.browser import BrowserUnavailable, check_in_chromium, find_chromium


@pytest.fixture(scope="module")
def chromium() -> str:
    try:
        return find_chromium()
    except BrowserUnavailable as exc:
        pytest.skip(str(exc))


def test_builtin_what_if_report_renders_all_plots_without_errors(chromium: str, tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    execute(Options(report=report, horizon_hours=72.0))
    artifacts = Path(os.environ.get("GPUPLANE_ARTIFACTS", tmp_path))
    artifacts.mkdir(parents=True, exist_ok=True)
    shot = artifacts / "sim-report.png"
    result = check_in_chromium(report, shot, width=1200)
    print(f"screenshot: {shot}")
    assert result.ok, result
    # queue waits, 5 pools over time (a100-train, a100-mig, t4-dev, t4-dev-a, t4-dev-c), nodes,
    # cost by team, cost by pool
    assert result.svg_count == 9
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    text = report.read_text()  # self-contained: no script, nothing fetched
    assert "<script" not in text and not result.external_requests
