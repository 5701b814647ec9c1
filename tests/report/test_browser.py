"""Headless Chromium check: real rendering, real console errors, external fetches caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplane.report import Page, charts
from tests.support.browser import BrowserUnavailable, check_in_chromium, find_chromium


@pytest.fixture(scope="module")
def chromium() -> str:
    try:
        return find_chromium()
    except BrowserUnavailable as exc:
        pytest.skip(str(exc))


def test_report_with_charts_renders_without_console_errors(chromium: str, tmp_path: Path) -> None:
    page = Page("kit").section(
        "charts",
        charts.line({"a": [(0, 1), (1, 2)]}, title="l"),
        charts.stacked_bars(["x"], {"s": [1.0]}, title="s"),
        charts.boxes({"g": [1, 2, 3]}, title="b"),
    )
    html = tmp_path / "kit.html"
    page.write(html)
    shot = tmp_path / "kit.png"
    result = check_in_chromium(html, shot)
    assert result.ok, result
    assert result.svg_count == 3
    assert result.title == "kit"
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 5000


def test_console_errors_and_exceptions_are_collected(chromium: str, tmp_path: Path) -> None:
    html = tmp_path / "bad.html"
    html.write_text(
        "<!DOCTYPE html><title>bad</title><script>console.error('boom');console.log('harmless-log');"
        "missingFunction();</script>",
        encoding="utf-8",
    )
    result = check_in_chromium(html, tmp_path / "bad.png")
    assert not result.ok
    assert result.console_errors[0] == "boom"
    assert any("missingFunction" in e for e in result.console_errors)
    assert not any("harmless-log" in e for e in result.console_errors)


def test_requests_to_external_urls_are_reported(chromium: str, tmp_path: Path) -> None:
    html = tmp_path / "cdn.html"
    html.write_text('<!DOCTYPE html><img src="http://cdn.invalid/x.png">', encoding="utf-8")
    result = check_in_chromium(html, tmp_path / "cdn.png")
    assert result.external_requests == ["http://cdn.invalid/x.png"]
    assert not result.ok
