"""The HTML account report renders in headless Chromium with its plots and no console errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplane.account.collect import Window
from gpuplane.account.engine import run
from gpuplane.account.promserver import Cluster
from gpuplane.account.report import build_page
from gpuplane.report.browser import BrowserUnavailable, check_in_chromium, find_chromium


def test_account_report_renders_with_plots(cluster: Cluster, tmp_path: Path) -> None:
    try:
        find_chromium()
    except BrowserUnavailable as exc:
        pytest.skip(str(exc))
    result = run(cluster.url, cluster.spec, Window.make(cluster.week.start, cluster.week.end, 60))
    html = tmp_path / "account.html"
    page = build_page(result, cluster.spec)
    page.write(html)
    assert page.render() == build_page(result, cluster.spec).render()
    check = check_in_chromium(html, tmp_path / "account.png")
    assert check.ok, check
    assert check.svg_count == 6
    assert check.title == "GPU account: acct-test"
    assert (tmp_path / "account.png").stat().st_size > 50_000
