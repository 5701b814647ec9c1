"""Mutated real Kueue objects never crash explain: they load and explain, or fail with located
InputErrors (bad queue quantities), and one cycle's JSON still has the issue's shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuplane.errors import InputError
from gpuplane.explain import run_explain, to_json
from gpuplane.explain.load import parse_objects
from tests.support.mutation import paths, replaced

SCENARIOS = sorted(
    (Path(__file__).resolve().parents[1] / "kueue_upstream" / "scenarios").glob("*/objects.yaml")
)
DOCS = [[d for d in yaml.safe_load_all(p.read_text()) if d] for p in SCENARIOS[::4]]

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 20),
    st.sampled_from(
        [
            "",
            "1",
            "500m",
            "2Gi",
            "-1",
            "lots",
            "default",
            "Never",
            "Any",
            "LowerPriority",
            "StrictFIFO",
            "nvidia.com/gpu",
            "cpu",
            "2025-01-01T00:00:00Z",
        ]
    ),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.sampled_from(["a", "name"]), st.integers(), max_size=1),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_kueue_objects_never_crash_explain(data: st.DataObject) -> None:
    objects: list[Any] = list(data.draw(st.sampled_from(DOCS)))
    for _ in range(data.draw(st.integers(1, 3))):
        index = data.draw(st.integers(0, len(objects) - 1))
        path = data.draw(st.sampled_from([(), *paths(objects[index])]))
        objects[index] = replaced(objects[index], path, data.draw(VALUES))
    try:
        parsed = parse_objects([o for o in objects if isinstance(o, dict)], "mutated.yaml")
        snap, results = run_explain(parsed, cycles=2)
    except InputError as exc:
        assert exc.problems and all(p.message for p in exc.problems)
        return
    report = to_json(snap, results)
    for cycle in report["cycles"]:
        assert {"admitted", "preempted", "pending"} <= set(cycle)
        assert all(e["queue"] in ("heap", "inadmissible") for e in cycle["pending"])


def _cq(name: str, cohort: object) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": {"cohort": cohort, "resourceGroups": []},
    }


def test_a_cohort_that_is_not_a_name_is_a_located_error() -> None:
    # Found by test_mutated_kueue_objects_never_crash_explain on a fresh clone (issue 15):
    # `spec.cohort: [0]` crashed the snapshot with "unhashable type: 'list'".
    for bad in ([0], {"name": 1}, 3):
        try:
            parse_objects([_cq("a", bad)], "cq.yaml")
        except InputError as exc:
            assert exc.problems[0].path == "spec.cohort"
            assert "expected a name" in exc.problems[0].message
        else:
            raise AssertionError(f"cohort {bad!r} was accepted")
    parent = {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "Cohort",
        "metadata": {"name": "c"},
        "spec": {"parentName": ["root"]},
    }
    try:
        parse_objects([parent], "cohort.yaml")
    except InputError as exc:
        assert exc.problems[0].path == "spec.parentName"
    else:
        raise AssertionError("a list parent was accepted")


def test_a_fungibility_preference_that_is_not_a_string_is_a_located_error() -> None:
    # The compiled twin's records check field types (kueue/objects.py is compiled with mypyc): a
    # non-string preference was accepted by the pure twin and crashed the compiled one (exit 70).
    for bad in (5, ["BorrowingOverPreemption"], {"a": 1}):
        cq = _cq("a", "c")
        cq["spec"]["flavorFungibility"] = {"preference": bad}
        try:
            parse_objects([cq], "cq.yaml")
        except InputError as exc:
            assert exc.problems[0].path == "spec.flavorFungibility.preference"
            assert exc.problems[0].message == f"expected a string, got {type(bad).__name__}"
        else:
            raise AssertionError(f"preference {bad!r} was accepted")
    cq = _cq("a", "c")
    cq["spec"]["flavorFungibility"] = {"preference": "BorrowingOverPreemption"}
    assert parse_objects([cq], "cq.yaml").objects
