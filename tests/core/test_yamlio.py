"""Located YAML: every key and value remembers its line and column."""

from __future__ import annotations

import pytest

from gpuplane.errors import InputError
from gpuplane.yamlio import LocDict, key_position, load_documents, load_one, locate, plain

TEXT = """\
a:
  b:
    - x: 1
    - y: [2, 3]
---
kind: Second
"""


def test_positions_of_nested_values_and_keys() -> None:
    docs = load_documents(TEXT, "f.yaml")
    assert [d.line for d in docs] == [1, 6]
    root = docs[0].data
    assert isinstance(root, LocDict)
    assert locate(root, ("a", "b", 1, "y")) == (4, 10)
    assert key_position(root, ("a", "b", 1, "y")) == (4, 7)
    assert locate(root, ("a", "missing", "deeper")) == (2, 3)  # nearest existing node
    assert plain(root) == {"a": {"b": [{"x": 1}, {"y": [2, 3]}]}}


def test_malformed_yaml_is_located_input_error() -> None:
    with pytest.raises(InputError) as caught:
        load_one("a: [1, 2\nb: 3\n", "bad.yaml")
    problem = caught.value.problems[0]
    assert problem.file == "bad.yaml" and problem.line == 2
    assert "malformed YAML" in problem.message


def test_load_one_rejects_several_documents() -> None:
    with pytest.raises(InputError) as caught:
        load_one(TEXT, "two.yaml")
    assert caught.value.problems[0].line == 6


def test_timestamps_stay_text() -> None:
    data = load_one("metadata:\n  creationTimestamp: 2025-01-01T00:00:00Z\n", "t.yaml")
    assert data["metadata"]["creationTimestamp"] == "2025-01-01T00:00:00Z"
