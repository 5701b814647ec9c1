"""One vocabulary: label, annotation and resource names are spelled only in `gpuplane.vocab`.

Python source outside `src/gpuplane/vocab/` names them through the vocab constants (code, help
texts, docstrings, field descriptions alike); data files (YAML, CSV) may carry them with their
sources. The scan reads the source text, so a literal in a comment or docstring fails it too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "gpuplane"
# gpuplane's own group, NVIDIA's names (device plugin, GFD, MIG, DRA driver) and Kueue's labels
# and annotations: the prefixes `gpuplane.vocab` defines the names under. A host name that only
# ends in one (docs.nvidia.com/..., a citation) is not a name.
LITERAL = re.compile(r"(?<![\w.-])(gpuplane\.io/|nvidia\.com/|kueue\.x-k8s\.io/)")


def _hits(text: str) -> list[int]:
    return [n for n, line in enumerate(text.splitlines(), 1) if LITERAL.search(line)]


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ('"""Reads `nvidia.com/gpu`."""\nx = 1\n', [1]),
        ('LABEL = "gpuplane.io/pool"\n', [1]),
        ("# the kueue.x-k8s.io/queue-name label\n", [1]),
        ('document["$id"] = "https://gpuplane.io/schemas/platform.json"\n', [1]),
        ("from gpuplane.vocab import GPU_RESOURCE\nrequests = {GPU_RESOURCE: 1}\n", []),
        ("# https://docs.nvidia.com/datacenter/cloud-native/ (a citation)\n", []),
        ('url = "https://kueue.sigs.k8s.io/docs/"\n', []),
    ],
)
def test_the_scan_finds_the_literals_it_is_meant_to_find(text: str, lines: list[int]) -> None:
    assert _hits(text) == lines


def test_no_python_module_outside_vocab_spells_a_vocab_name() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        folder = path.relative_to(SRC).parts[0]
        if folder == "vocab":
            continue
        offenders += [f"{path.relative_to(SRC)}:{n}" for n in _hits(path.read_text(encoding="utf-8"))]
    assert offenders == [], "import the name from gpuplane.vocab: " + ", ".join(offenders)


def test_the_scan_covers_the_engines() -> None:
    folders = {p.relative_to(SRC).parts[0] for p in SRC.rglob("*.py")}
    assert {"spec", "sharing", "catalog", "cli", "kueue", "sim", "account", "workloads"} <= folders


def test_src_holds_only_the_package() -> None:
    # The check is `grep -rn "gpuplane.io/\|nvidia.com/gpu" src/`: build metadata there
    # (gpuplane.egg-info/PKG-INFO copies the README) would answer it; setup.cfg puts it beside
    # pyproject.toml. A stale src/gpuplane.egg-info from an older checkout can simply be deleted.
    assert sorted(p.name for p in SRC.parent.iterdir()) == ["gpuplane"]
