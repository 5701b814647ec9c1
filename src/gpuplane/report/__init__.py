"""The shared report kit: self-contained HTML pages with inline SVG charts, used by account and simulate.

    from gpuplane.report import Page, charts, table
    page = Page("GPU account").section("Usage", charts.line({...}, title="GPUs"), table([...], rows))
    page.write(Path("account.html"))

`tests.support.browser.check_in_chromium` (test support, not installed) renders a page in headless
Chromium for the tests.
"""

from __future__ import annotations

from gpuplane.report import charts
from gpuplane.report.html import Html, Page, cards, figure, note, paragraph, table

__all__ = ["Html", "Page", "cards", "charts", "figure", "note", "paragraph", "table"]
