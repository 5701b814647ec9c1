"""Self-contained HTML pages: a title, sections of text, figures (inline SVG), tables and notes.

No external URLs, no scripts, one inline stylesheet: the file opens offline, prints well and is
byte-identical for the same content (nothing here reads the clock).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from gpuplane.outputs import write_text_atomic


class Html(str):
    """Markup that is already safe to insert as is (built by this kit, never from raw input)."""

    __slots__ = ()


Cell = str | int | float | None

_STYLE = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222;
       margin: 0; background: #f6f7f9; line-height: 1.45; }
main { max-width: 1080px; margin: 0 auto; padding: 24px 32px 48px; }
header h1 { font-size: 1.7rem; margin: 0 0 4px; }
header p.subtitle { color: #555; margin: 0 0 16px; }
section { background: #fff; border: 1px solid #e1e4e8; border-radius: 8px; padding: 16px 20px;
          margin: 18px 0; }
section h2 { font-size: 1.2rem; margin: 0 0 10px; }
figure { margin: 12px 0; overflow-x: auto; }
svg.chart { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 10px 0; font-size: 0.9rem; }
th, td { padding: 4px 10px; border-bottom: 1px solid #eceef1; text-align: left; }
th { background: #f3f4f6; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 8px 0; }
.card { border: 1px solid #e1e4e8; border-radius: 6px; padding: 8px 14px; min-width: 140px; }
.card .label { color: #666; font-size: 0.8rem; }
.card .value { font-size: 1.3rem; font-weight: 600; }
.note { border-left: 4px solid #0072B2; background: #eef5fb; padding: 6px 12px; margin: 8px 0; }
.note.warn { border-color: #E69F00; background: #fdf6e7; }
footer { color: #777; font-size: 0.8rem; margin-top: 24px; }
"""


def escape(text: str) -> str:
    """Escape text for HTML content."""
    return html.escape(text, quote=True)


def paragraph(text: str) -> Html:
    """A paragraph of plain (escaped) text."""
    return Html(f"<p>{escape(text)}</p>")


def note(text: str, *, warn: bool = False) -> Html:
    """A highlighted note, e.g. a stated fallback or a missing data source."""
    kind = "note warn" if warn else "note"
    return Html(f'<div class="{kind}">{escape(text)}</div>')


def figure(svg: Html, caption: str = "") -> Html:
    """A chart with an optional caption."""
    cap = f"<figcaption>{escape(caption)}</figcaption>" if caption else ""
    return Html(f"<figure>{svg}{cap}</figure>")


def _cell(value: Cell, float_format: str) -> tuple[str, bool]:
    if value is None:
        return "–", False
    if isinstance(value, bool):
        return escape(str(value).lower()), False
    if isinstance(value, int):
        return f"{value:,}", True
    if isinstance(value, float):
        return format(value, float_format), True
    return escape(value), False


def table(headers: Sequence[str], rows: Sequence[Sequence[Cell]], *, float_format: str = ",.2f") -> Html:
    """A table; numbers are right-aligned and formatted with `float_format`."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body: list[str] = []
    for row in rows:
        cells = []
        for value in row:
            text, numeric = _cell(value, float_format)
            cells.append(f'<td class="num">{text}</td>' if numeric else f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return Html(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")


def cards(items: Sequence[tuple[str, str]]) -> Html:
    """Key figures as a row of small cards: (label, value) pairs."""
    inner = "".join(
        f'<div class="card"><div class="label">{escape(label)}</div><div class="value">{escape(value)}</div></div>'
        for label, value in items
    )
    return Html(f'<div class="cards">{inner}</div>')


class Page:
    """An HTML report under construction: `Page(title).section(...).section(...).render()`."""

    def __init__(self, title: str, subtitle: str = "", footer: str = "") -> None:
        self.title = title
        self.subtitle = subtitle
        self.footer = footer
        self._sections: list[str] = []

    def section(self, heading: str, *blocks: Html | str, anchor: str = "") -> Page:
        """Add a section; `Html` blocks are inserted as is, plain strings become paragraphs."""
        inner = "".join(b if isinstance(b, Html) else paragraph(b) for b in blocks)
        ident = f' id="{escape(anchor)}"' if anchor else ""
        self._sections.append(f"<section{ident}><h2>{escape(heading)}</h2>{inner}</section>")
        return self

    def render(self) -> str:
        """The complete HTML document as text."""
        subtitle = f'<p class="subtitle">{escape(self.subtitle)}</p>' if self.subtitle else ""
        footer = f"<footer>{escape(self.footer)}</footer>" if self.footer else ""
        return (
            "<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(self.title)}</title><style>{_STYLE}</style></head>"
            f"<body><main><header><h1>{escape(self.title)}</h1>{subtitle}</header>"
            + "\n".join(self._sections)
            + f"{footer}</main></body></html>\n"
        )

    def write(self, path: Path) -> None:
        """Write the page atomically to `path`."""
        write_text_atomic(path, self.render())
