"""Located YAML: every key and value remembers its line and column."""

from __future__ import annotations

import dataclasses

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gpuplane import yamlio
from gpuplane.errors import InputError
from gpuplane.limits import limits
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


# -- limits and hostile input (issue 9): stated limits, located errors, never a crash ---------


def only_problem(caught: pytest.ExceptionInfo[InputError]) -> str:
    assert len(caught.value.problems) == 1
    return str(caught.value.problems[0])


@pytest.mark.parametrize("shape", ["flow-lists", "block-maps"])
def test_nesting_past_the_limit_is_located_not_a_recursion_error(shape: str) -> None:
    depth = limits().yaml_depth
    if shape == "flow-lists":
        # the root mapping is level 1, so depth - 1 lists inside it are exactly at the limit
        assert load_one("a: " + "[" * (depth - 1) + "]" * (depth - 1) + "\n", "ok.yaml")
        text = "a: " + "[" * depth + "]" * depth + "\n"
        where = f"1:{depth + 3}"  # the depth-th "[" (columns are 1-based, after "a: ")
    else:
        text = "".join("  " * i + "k:\n" for i in range(depth)) + "  " * depth + "x: 1\n"
        where = f"{depth + 1}:{2 * depth + 1}"
    with pytest.raises(InputError) as caught:
        load_one(text, "deep.yaml")
    assert (
        only_problem(caught)
        == f"deep.yaml:{where}: error: nested deeper than {depth} levels (limits: yaml_depth)"
    )


def test_integers_past_the_digit_limit_are_located() -> None:
    digits = limits().int_digits
    assert load_one(f"n: {'9' * digits}\n", "ok.yaml") == {"n": int("9" * digits)}
    with pytest.raises(InputError) as caught:
        load_one(f"a: 1\nn: {'9' * 5000}\n", "big.yaml")
    assert only_problem(caught) == (
        f"big.yaml:2:4: error: an integer of 5000 characters; at most {digits} digits are read (limits: int_digits)"
    )


@pytest.mark.parametrize("text", [".inf", "-.Inf", ".nan", "1.0e+400"])
def test_numbers_that_are_not_finite_are_refused(text: str) -> None:
    with pytest.raises(InputError) as caught:
        load_one(f"cost: {text}\n", "inf.yaml")
    assert (
        only_problem(caught)
        == f"inf.yaml:1:7: error: {text} is not a finite number (gpuplane reads finite numbers only)"
    )


def test_documents_past_the_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    small = dataclasses.replace(limits(), documents_per_input=3)
    monkeypatch.setattr(yamlio, "limits", lambda: small)
    assert len(load_documents("a: 1\n---\nb: 2\n---\nc: 3\n", "ok.yaml")) == 3
    with pytest.raises(InputError) as caught:
        load_documents("a: 1\n---\nb: 2\n---\nc: 3\n---\nd: 4\n", "many.yaml")
    assert (
        only_problem(caught)
        == "many.yaml:7:1: error: more than 3 YAML documents in one input (limits: documents_per_input)"
    )


def test_collections_past_the_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    small = dataclasses.replace(limits(), yaml_nodes_per_input=5)
    monkeypatch.setattr(yamlio, "limits", lambda: small)
    with pytest.raises(InputError, match=r"more than 5 mappings and sequences in one input"):
        load_one("a: [[], [], [], [], []]\n", "wide.yaml")


def test_a_duplicate_key_is_an_error_in_gpuplane_formats() -> None:
    with pytest.raises(InputError) as caught:
        load_one("name: a\nteams: []\nname: b\n", "spec.yaml")
    assert only_problem(caught) == "spec.yaml:3:1: error: duplicate key 'name' (first at line 1)"


def test_a_duplicate_key_is_a_warning_in_kubernetes_objects() -> None:
    docs = load_documents("kind: Pod\nmetadata:\n  name: a\n  name: b\n", "pod.yaml")
    assert docs[0].data["metadata"]["name"] == "b"
    assert [str(w) for w in docs[0].warnings] == [
        "pod.yaml:4:3: warning: duplicate key 'name': this later value wins over line 3"
    ]


def test_a_merge_key_override_is_not_a_duplicate() -> None:
    text = "base: &b {cpu: 1, gpu: 1}\npod:\n  <<: *b\n  gpu: 2\n"
    assert load_one(text, "merge.yaml")["pod"] == {"cpu": 1, "gpu": 2}
    assert load_documents(text, "merge.yaml")[0].warnings == ()


@example(text="a: *x\n")  # an undefined alias
@example(text="- &a [*a]\n")  # a recursive alias
@example(text="? [a, b]\n: 1\n")  # a complex key
@given(st.text(alphabet=st.sampled_from(list("ab:-[]{}&*!|>'\"#,? \n0123456789.e+")), max_size=80))
@settings(max_examples=300, deadline=None)
def test_any_text_loads_or_is_a_located_input_error(text: str) -> None:
    try:
        load_documents(text, "fuzz.yaml")
    except InputError as exc:
        assert exc.problems and all(p.file == "fuzz.yaml" for p in exc.problems)


def test_positions_stay_aligned_when_keys_are_deleted_or_added() -> None:
    root = load_one("a: 1\nb: 2\nc: 3\n", "p.yaml")
    del root["a"]
    assert root.key_at("b") == (2, 1) and root.value_at("c") == (3, 4)
    assert root.pop("b") == 2 and root.key_pos == {"c": (3, 1)}
    root["d"] = 4  # added after loading: no position of its own, the nearest parent instead
    assert root.key_at("d") is None and locate(root, ("d",)) == (1, 1)
    assert root.popitem() == ("d", 4) and root.value_pos == {"c": (3, 4)}


def test_copies_and_pickles_keep_positions() -> None:
    import copy
    import pickle

    root = load_one("a:\n  - x: 1\n", "p.yaml")
    for clone in (copy.deepcopy(root), pickle.loads(pickle.dumps(root)), copy.copy(root)):
        assert clone == root and isinstance(clone, LocDict)
        assert locate(clone, ("a", 0, "x")) == (2, 8)


def test_embedded_yaml_that_does_not_load_is_none_never_an_exception() -> None:
    from gpuplane.audit import AuditConfig, audit, read_text

    deep = "kind: config.kueue.x-k8s.io\ntimeSlicing: " + "[" * 500 + "]" * 500 + "\n"
    for text in (deep, f"n: {'9' * 5000}\ntimeSlicing: x\n", "a: [1\n", "a: 1\n---\nb: 2\n", ""):
        assert yamlio.load_embedded(text, "cm.yaml") is None
    assert yamlio.load_embedded("sharing: {timeSlicing: {}}\n", "cm.yaml") == {"sharing": {"timeSlicing": {}}}
    # what audit does with such ConfigMaps (device-plugin and Kueue configs): reads on, no crash
    cm = plain({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": deep}})
    findings = audit(read_text(yaml.safe_dump(cm), "cm.yaml"), AuditConfig())
    assert all(f.rule != "GPU000" for f in findings)
