"""The README's layout section names every package and top-level module of src/gpuplane, once,
and nothing that is not there."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "gpuplane"


def _layout_block() -> list[str]:
    """The lines of the code block under `## Layout`, after its `src/gpuplane/` header."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```", 2)[1].strip("\n").splitlines()
    assert block[0] == "src/gpuplane/", block[0]
    return block[1:]


def test_every_package_has_one_line_and_every_line_names_a_package() -> None:
    listed = [m.group(1) for line in _layout_block() if (m := re.match(r"  ([a-z_]+)/ ", line))]
    packages = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))
    assert sorted(listed) == packages  # each once: a duplicate line would show twice here


def test_every_top_level_module_is_named_and_every_named_module_exists() -> None:
    named = {
        m
        for line in _layout_block()
        if not line.startswith("    ")
        for m in re.findall(r"(?<![\w/.])(\w+\.py)\b", line)
    }
    modules = {p.name for p in PACKAGE.glob("*.py")} - {"__init__.py"}
    assert named == modules
