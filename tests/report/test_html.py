"""HTML pages: self-contained, escaped, deterministic, written atomically."""

from __future__ import annotations

import re
from pathlib import Path

from gpuplane.report import Page, cards, charts, note, table


def _page() -> Page:
    return (
        Page("GPU <account>", subtitle="week 47")
        .section("Usage", charts.bars(["a", "b"], [1.0, 2.0], title="bars"), "plain <b>text</b>")
        .section("Table", table(["team", "hours", "jobs"], [["a&b", 1234.5, 3], ["c", None, 0]]))
        .section("Notes", note("fallback used", warn=True), cards([("GPU-hours", "12")]))
    )


def test_page_references_no_external_resource() -> None:
    text = _page().render()
    urls = re.findall(r"(?:src|href)=\"([^\"]+)\"", text)
    assert urls == []
    assert "<script" not in text
    assert "@import" not in text and "url(" not in text


def test_plain_strings_are_escaped_and_html_blocks_are_not() -> None:
    text = _page().render()
    assert "plain &lt;b&gt;text&lt;/b&gt;" in text
    assert "GPU &lt;account&gt;" in text
    assert "<svg" in text


def test_table_right_aligns_and_formats_numbers() -> None:
    text = table(["n", "v"], [["x", 1234.5], ["y", 7], ["z", None]])
    assert '<td class="num">1,234.50</td>' in text
    assert '<td class="num">7</td>' in text
    assert "<td>–</td>" in text


def test_render_is_deterministic_and_write_puts_the_same_bytes(tmp_path: Path) -> None:
    first, second = _page().render(), _page().render()
    assert first == second
    target = tmp_path / "out" / "report.html"
    _page().write(target)
    assert target.read_text(encoding="utf-8") == first
