"""The kind registry: lookup by API group, kinds other groups reuse, generic search, not understood."""

from __future__ import annotations

from typing import Any

from gpuplane.workloads import lookup, not_understood, pod_templates


def _job(api: str, kind: str = "Job") -> dict[str, Any]:
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": "x"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
    }


def test_batch_job_is_the_registered_job_kind() -> None:
    kind = lookup(_job("batch/v1"))
    assert kind is not None and kind.kueue is not None and kind.group == "batch"


def test_a_job_of_another_group_is_not_batch_job() -> None:
    # Volcano's batch.volcano.sh Job shares the name only.
    assert lookup(_job("batch.volcano.sh/v1alpha1")) is None
    volcano = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "v"},
        "spec": {
            "tasks": [{"name": "t", "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}]
        },
    }
    assert [t.path for t in pod_templates(volcano)] == [("spec", "tasks", 0, "template", "spec")]


def test_kinds_no_other_group_reuses_match_any_version() -> None:
    ray = {"apiVersion": "ray.io/v1alpha1", "kind": "RayJob", "metadata": {"name": "r"}, "spec": {}}
    kind = lookup(ray)
    assert kind is not None and kind.kind == "RayJob"


def test_unknown_replica_spec_jobs_still_have_their_templates() -> None:
    mx = {
        "apiVersion": "example.org/v1",
        "kind": "MXJob",
        "metadata": {"name": "m"},
        "spec": {"mxReplicaSpecs": {"Worker": {"template": {"spec": {"containers": [{"name": "c"}]}}}}},
    }
    assert [t.role for t in pod_templates(mx)] == ["Worker"]


def test_gpu_requests_in_an_unknown_shape_are_not_understood() -> None:
    obj = {
        "apiVersion": "example.org/v1",
        "kind": "Serving",
        "metadata": {"name": "s"},
        "spec": {"runner": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": 2}}}]}},
    }
    assert not_understood(obj) == ["nvidia.com/gpu"]
    known = _job("batch/v1")
    known["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": 1}}
    assert not_understood(known) == []


def test_config_objects_are_never_workloads() -> None:
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"nvidia.com/gpu": "1"}}
    assert pod_templates(cm) == [] and not_understood(cm) == []
