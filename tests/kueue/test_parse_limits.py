"""Kueue objects with numbers out of range: located errors or a Workload's stated problem, never an
OverflowError (issue 9: `weight: "1e400"`, `resourceUsage.cpu: 1e400`, counts past int32)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gpuplane.errors import InputError
from gpuplane.explain import run_explain, to_json
from gpuplane.explain.load import load_paths, parse_objects
from gpuplane.kube.quantity import QuantityError, parse_quantity
from gpuplane.kueue import Workload
from gpuplane.limits import limits
from tests.support.mutation import paths, replaced

API = "kueue.x-k8s.io/v1beta1"


def cq(**spec: Any) -> dict[str, Any]:
    groups = [
        {
            "coveredResources": ["cpu"],
            "flavors": [
                {"name": "f", "resources": [{"name": "cpu", "nominalQuota": spec.pop("quota", "4")}]}
            ],
        }
    ]
    return {
        "apiVersion": API,
        "kind": "ClusterQueue",
        "metadata": {"name": "cq"},
        "spec": {"resourceGroups": groups, **spec},
    }


def workload(pod_set: dict[str, Any], status: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    template = {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}
    return {
        "apiVersion": API,
        "kind": "Workload",
        "metadata": {"name": "w", "namespace": "ns"},
        "spec": {"queueName": "lq", "podSets": [{"name": "main", "template": template, **pod_set}], **spec},
        "status": status or {},
    }


def problem_of(objects: list[dict[str, Any]]) -> str:
    with pytest.raises(InputError) as caught:
        parse_objects(objects, "objects.yaml")
    assert len(caught.value.problems) == 1
    p = caught.value.problems[0]
    return f"{p.path}: {p.message}"


@pytest.mark.parametrize("text", ["1e400", "9223372036854775808", "8Ei", "1e99999999"])
def test_quantities_past_two_to_the_63_are_refused(text: str) -> None:
    with pytest.raises(QuantityError, match="2\\^63-1"):
        parse_quantity(text)


def test_the_largest_quantity_still_parses() -> None:
    assert parse_quantity(str(limits().quantity_max)) == limits().quantity_max * 1000


def test_a_fair_sharing_weight_of_1e400_is_located() -> None:
    assert problem_of([cq(fairSharing={"weight": "1e400"})]) == (
        "spec.fairSharing.weight: quantity '1e400' is larger than a Kubernetes quantity can be (2^63-1)"
    )


def test_a_nominal_quota_of_1e400_is_located() -> None:
    found = problem_of([cq(quota="1e400")])
    assert found.startswith("spec.resourceGroups.0.flavors.0.resources.0.nominalQuota: quantity '1e400'")


def test_resource_usage_of_1e400_is_the_workloads_problem_not_a_crash() -> None:
    admitted = {
        "admission": {
            "clusterQueue": "cq",
            "podSetAssignments": [{"name": "main", "count": 1, "resourceUsage": {"cpu": "1e400"}}],
        }
    }
    parsed = parse_objects([cq(), workload({"count": 1}, admitted)], "objects.yaml")
    (wl,) = [o for o in parsed.objects if isinstance(o, Workload)]
    assert wl.problem is not None and "status.admission.podSetAssignments.0.resourceUsage.cpu" in wl.problem
    snap, results = run_explain(parsed, cycles=1)
    assert to_json(snap, results)["cycles"]


@pytest.mark.parametrize(
    ("count", "message"),
    [
        ("1e400", "expected an integer, got '1e400'"),
        ([1], "expected an integer, got list"),
        (2.5, "expected an integer, got float"),
        (10**12, f"1000000000000 is out of range (0 to {150_000})"),
    ],
)
def test_a_pod_count_that_is_not_a_small_integer_is_the_workloads_problem(
    count: object, message: str
) -> None:
    parsed = parse_objects([workload({"count": count})], "objects.yaml")
    (wl,) = parsed.objects
    assert isinstance(wl, Workload) and wl.problem is not None
    assert f"spec.podSets.0.count: {message}" in wl.problem


def test_a_priority_past_int32_is_located() -> None:
    assert problem_of([workload({"count": 1}, priority=2**31)]) == (
        "spec.priority: 2147483648 is out of range (-2147483648 to 2147483647)"
    )


def test_a_broken_configuration_in_a_configmap_is_located(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    text = "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nfairSharing: [\n"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "data": {"config.yaml": text}}))
    with pytest.raises(InputError) as caught:
        load_paths([str(path)])
    p = caught.value.problems[0]
    assert (p.file, p.path) == (str(path), "data.config.yaml")
    assert "the embedded YAML does not load" in p.message


SCENARIOS = sorted(
    (Path(__file__).resolve().parents[1] / "kueue_upstream" / "scenarios").glob("*/objects.yaml")
)
DOCS = [[d for d in yaml.safe_load_all(p.read_text()) if d] for p in SCENARIOS[1::5]]
EXTREME: list[Any] = [
    "1e400",
    "-1e400",
    "9" * 5000,
    "1e99999999",
    "8Ei",
    10**30,
    -(10**30),
    2**31,
    2.5,
    [[]],
    {"weight": "1e400"},
]


@example(doc_index=0, mutations=[(0, 0)])
@given(
    doc_index=st.integers(0, len(DOCS) - 1),
    mutations=st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(0, len(EXTREME) - 1)), min_size=1, max_size=3
    ),
)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_extreme_numbers_anywhere_never_crash_explain(
    doc_index: int, mutations: list[tuple[Any, int]]
) -> None:
    objects: list[Any] = list(DOCS[doc_index])
    for where, which in mutations:
        index = where % len(objects)
        candidates = [(), *paths(objects[index])]
        path = candidates[(where // 7) % len(candidates)]
        objects[index] = replaced(objects[index], path, EXTREME[which])
    try:
        parsed = parse_objects([o for o in objects if isinstance(o, dict)], "mutated.yaml")
        snap, results = run_explain(parsed, cycles=2)
    except InputError as exc:
        assert exc.problems and all(p.message for p in exc.problems)
        return
    assert to_json(snap, results)["cycles"]


def test_pod_sets_or_device_class_names_that_are_not_lists_are_skipped_not_a_crash() -> None:
    # Found by test_mutated_kueue_objects_never_crash_explain once parse stopped turning every
    # TypeError into "cannot read object": `spec.podSets: true` crashed the DRA claim bookkeeping.
    wl = workload({"count": 1})
    wl["spec"]["podSets"] = True
    config = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta1",
        "kind": "Configuration",
        "resources": {"deviceClassMappings": [{"name": "gpu", "deviceClassNames": 5}]},
    }
    parsed = parse_objects([cq(), wl, config], "objects.yaml")
    (loaded,) = [o for o in parsed.objects if isinstance(o, Workload)]
    assert loaded.pod_sets == []
