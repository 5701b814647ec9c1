"""The YAML emitter: whatever it writes, PyYAML reads back as the same data; plain scalars are
used only where they cannot be misread (YAML 1.1 booleans, numbers, versions)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuplane.yamlemit import emit, scalar

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.text(max_size=30),
    st.sampled_from(
        [
            "yes",
            "No",
            "on",
            "1.30",
            "0x1F",
            "1:30",
            "-1",
            "~",
            "null",
            "a: b",
            "#x",
            "x #y",
            "- item",
            "nvidia.com/gpu",
            "line\n",
            "two\nlines\n",
            "no-newline\nend",
            " lead",
            "@at",
            "*star",
        ]
    ),
)
keys = st.one_of(st.text(min_size=1, max_size=12), st.sampled_from(["true", "1", "a.b/c", "k: v", "-"]))
data = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.dictionaries(keys, data, max_size=5), st.lists(data, max_size=5)))
def test_emitted_yaml_loads_back_as_the_same_data(value: Any) -> None:
    assert yaml.safe_load(emit(value)) == value


@pytest.mark.parametrize("text", ["true", "off", "1.30", "1e3", "0o17", "0x1F", "", "null", "-1", "1:30"])
def test_strings_that_look_like_other_types_are_quoted(text: str) -> None:
    assert scalar(text).startswith('"')
    assert yaml.safe_load(f"k: {scalar(text)}") == {"k": text}


def test_multi_line_text_is_a_literal_block() -> None:
    assert emit({"config.yaml": "version: v1\nflags: {}\n"}) == "config.yaml: |\n  version: v1\n  flags: {}\n"


def test_floats_that_would_not_round_trip_are_refused() -> None:
    with pytest.raises(TypeError):
        scalar(float("nan"))


@pytest.mark.parametrize("text", ["550.90.07", "nvidia.com/gpu", "a100-spot", "v1beta2", "15s"])
def test_ordinary_words_stay_plain(text: str) -> None:
    assert scalar(text) == text
