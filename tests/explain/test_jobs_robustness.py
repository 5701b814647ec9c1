"""Mutated job objects (the kind fixtures) never crash explain: each becomes a Workload, a note or
a located InputError, and the JSON keeps its shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuplane.errors import InputError
from gpuplane.explain.command import ExplainOptions, explain_input
from gpuplane.explain.eta import EtaOptions
from gpuplane.explain.load import parse_objects
from tests.support.mutation import paths, replaced

FIXTURES = Path(__file__).resolve().parents[1] / "workloads" / "fixtures"
SETUP = [
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "f"}},
    {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "cq"},
        "spec": {
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                    "flavors": [
                        {
                            "name": "f",
                            "resources": [
                                {"name": "cpu", "nominalQuota": 512},
                                {"name": "memory", "nominalQuota": "4Ti"},
                                {"name": "nvidia.com/gpu", "nominalQuota": 64},
                            ],
                        }
                    ],
                }
            ],
        },
    },
]
JOBS = [d for p in sorted(FIXTURES.glob("*.yaml")) for d in yaml.safe_load_all(p.read_text()) if d]
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 40),
    st.sampled_from(
        ["", "1", "250m", "8Gi", "lots", "-1", "Always", "Worker", "main", "K8sJobMode", "SidecarMode"]
    ),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.sampled_from(["name", "replicas", "cpu"]), st.integers(0, 4), max_size=1),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_job_objects_never_crash_explain(data: st.DataObject) -> None:
    job: Any = data.draw(st.sampled_from(JOBS))
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from([(), *paths(job)]))
        job = replaced(job, path, data.draw(VALUES))
    docs = [*SETUP, *(job if isinstance(job, list) else [job])]
    try:
        parsed = parse_objects([d for d in docs if isinstance(d, dict)], "mutated.yaml")
        result = explain_input(parsed, ExplainOptions(eta=EtaOptions(assume_runtime=600)))
    except InputError as exc:
        assert exc.problems and all(p.message for p in exc.problems)
        return
    out = result.json()
    assert {"whatIf", "jobs", "notManaged", "eta"} <= set(out)
    assert all(
        a["status"] in ("admitted", "preempts", "waits", "unschedulable", "not managed")
        for a in out["whatIf"]
    )


def _raycluster(head_containers: Any) -> dict[str, Any]:
    doc = next(d for d in JOBS if d["kind"] == "RayCluster")  # GCS fault tolerance is on
    doc = replaced(doc, ("spec", "headGroupSpec", "template", "spec", "containers"), head_containers)
    return dict(doc)


def test_found_by_the_property_test_odd_ray_head_containers() -> None:
    # The head floor (GCS fault tolerance) once indexed, set and extended whatever was there.
    for containers in (
        None,
        [False],
        0,
        [{"name": "h", "resources": None}],
        [{"name": "h", "resources": {"requests": None}}],
    ):
        explain_input(parse_objects([*SETUP, _raycluster(containers)], "ray.yaml"))


def test_found_by_the_property_test_a_bad_head_quantity_is_a_note() -> None:
    bad = _raycluster([{"name": "h", "resources": {"requests": {"cpu": "-1"}}}])
    result = explain_input(parse_objects([*SETUP, bad], "ray.yaml"))
    assert result.conversion.jobs == []
    assert any("negative quantity" in n for n in result.conversion.notes)
