"""The HTML account report renders in headless Chromium with its plots and no console errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplane.account.engine import run
from gpuplane.account.report import build_page
from gpuplane.account.window import Window
from tests.account.conftest import Day
from tests.account.done_day import DAY
from tests.support.browser import BrowserUnavailable, check_in_chromium, find_chromium


def test_account_report_renders_with_plots(day: Day, tmp_path: Path) -> None:
    try:
        find_chromium()
    except BrowserUnavailable as exc:
        pytest.skip(str(exc))
    result = run(day.url, day.spec, Window.make(DAY, DAY + 86400, 60))
    html = tmp_path / "account.html"
    page = build_page(result)
    page.write(html)
    assert page.render() == build_page(result).render()
    text = page.render()
    assert "unmeasured" in text and "KUBERNETES_VIRTUAL_GPUS" in text
    check = check_in_chromium(html, tmp_path / "account.png")
    assert check.ok, check
    assert check.svg_count == 6
    assert check.title == "GPU account: done-day"
    assert (tmp_path / "account.png").stat().st_size > 50_000


def test_the_report_reads_computed_views_only() -> None:
    source = Path(__file__).resolve().parents[2] / "src" / "gpuplane" / "account" / "report.py"
    text = source.read_text(encoding="utf-8")
    assert ".raw" not in text and "RawData" not in text and "Resolver" not in text
