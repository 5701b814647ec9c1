"""Helpers for property tests that mutate the example specs (imported by tests/spec and tests/render)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yaml"))
EXAMPLE_DOCS = [yaml.safe_load(p.read_text()) for p in EXAMPLES]


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key/index path in a loaded YAML document."""
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            out += paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += paths(value, (*prefix, index))
    return out


def replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of `doc` with the node at `path` replaced by `value`."""
    if not path:
        return value
    copy = dict(doc) if isinstance(doc, dict) else list(doc)
    copy[path[0]] = replaced(doc[path[0]], path[1:], value)
    return copy


def value_like(current: Any) -> Any:
    """A hypothesis strategy for a replacement of the same type as `current` (likely to load)."""
    from hypothesis import strategies as st

    if isinstance(current, bool):
        return st.booleans()
    if isinstance(current, int):
        return st.integers(0, 16)
    if isinstance(current, float):
        return st.floats(0, 10)
    if isinstance(current, str):
        return st.sampled_from(
            [
                current,
                "T4",
                "L4",
                "H100-80GB",
                "A100-80GB",
                "exclusive",
                "mig",
                "mps",
                "time-slicing",
                "mixed",
                "single",
                "all-1g.10gb",
                "inference",
                "training",
            ]
        )
    if isinstance(current, list) and all(isinstance(v, str) for v in current):
        return st.lists(
            st.sampled_from(
                ["1g.10gb", "3g.40gb", "2g.20gb", "7g.80gb", "inference", "training", "batch", "1", "2"]
            ),
            min_size=1,
            max_size=4,
        )
    return st.just(current)


def lookup(doc: Any, path: tuple[Any, ...]) -> Any:
    """The node at `path`."""
    for part in path:
        doc = doc[part]
    return doc
