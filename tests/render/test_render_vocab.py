"""render/ and providers/ spell no label, annotation, taint or resource name themselves: every such
name comes from `gpuplane.vocab` (issue 15, "one vocabulary"), so renaming one is a data change."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from gpuplane import vocab

SRC = Path(vocab.__file__).resolve().parents[1]
AREAS = ("render", "providers")


def _strings(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [s for k, v in node.items() if k not in ("source", "date") for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return [node] if isinstance(node, str) else []


def external_names() -> set[str]:
    """The names of vocab/names.yaml that cannot occur in prose by chance (a '/', or an env var)."""
    data = yaml.safe_load((SRC / "vocab" / "names.yaml").read_text(encoding="utf-8"))
    names = {s for s in _strings(data) if "/" in s or re.fullmatch(r"[A-Z][A-Z0-9_]{8,}", s)}
    return names | {f"{vocab.GROUP}/", vocab.NVIDIA_PREFIX, f"{vocab.KUEUE_GROUP}/", f"{vocab.DRA_GROUP}/"}


def literals_in(text: str, names: set[str]) -> list[str]:
    """Each name of `names` the text spells (longest first, so a prefix is not reported twice)."""
    found = []
    for name in sorted(names, key=len, reverse=True):
        if name in text:
            found.append(name)
            text = text.replace(name, "")
    return found


def test_the_literal_finder_sees_a_label_and_a_prefix() -> None:
    names = external_names()
    assert {vocab.GPU_RESOURCE, vocab.MIG_CONFIG_LABEL, vocab.DCGM_VIRTUAL_GPUS_ENV} <= names
    assert literals_in('labels = {"nvidia.com/mig.config": x}', names) == [vocab.MIG_CONFIG_LABEL]
    assert literals_in('f"{GROUP}/pool"', names) == []
    assert literals_in('"gpuplane.io/team"', names) == [f"{vocab.GROUP}/"]


def test_render_and_providers_take_every_name_from_vocab() -> None:
    names = external_names()
    offenders = {
        str(path.relative_to(SRC)): found
        for area in AREAS
        for path in sorted((SRC / area).glob("*.py"))
        if (found := literals_in(path.read_text(encoding="utf-8"), names))
    }
    assert offenders == {}
