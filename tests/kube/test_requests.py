"""Requests of one pod as Kueue counts them (k8s PodRequests + Kueue's AdjustResources), by hand."""

from __future__ import annotations

import pytest

from gpuplane.kube.requests import BadField, Transformation, pod_requests, transform

M = 1000  # milli-units per unit


def _c(
    name: str, requests: dict[str, str] | None = None, limits: dict[str, str] | None = None, **extra: str
) -> dict[str, object]:
    res: dict[str, object] = {}
    if requests:
        res["requests"] = requests
    if limits:
        res["limits"] = limits
    return {"name": name, "resources": res, **extra}


def test_app_containers_are_summed() -> None:
    spec = {"containers": [_c("a", {"cpu": "2"}), _c("b", {"cpu": "500m"})]}
    assert pod_requests(spec, ()) == {"cpu": 2500}


def test_an_init_container_is_a_floor_not_an_addition() -> None:
    spec = {"initContainers": [_c("init", {"cpu": "4"})], "containers": [_c("a", {"cpu": "1"})]}
    assert pod_requests(spec, ()) == {"cpu": 4 * M}


def test_native_sidecars_add_up_and_raise_later_init_containers() -> None:
    # KEP-753: sidecar S (1 cpu) then init I (3 cpu): I runs beside S -> floor 4; app 2 + S 1 = 3.
    spec = {
        "initContainers": [_c("s", {"cpu": "1"}, restartPolicy="Always"), _c("i", {"cpu": "3"})],
        "containers": [_c("a", {"cpu": "2"})],
    }
    assert pod_requests(spec, ()) == {"cpu": 4 * M}
    # The same init before the sidecar starts: floor 3; app + sidecar = 3.
    spec["initContainers"].reverse()
    assert pod_requests(spec, ()) == {"cpu": 3 * M}


def test_limits_stand_in_for_missing_requests_per_resource() -> None:
    spec = {"containers": [_c("a", {"cpu": "1"}, {"cpu": "4", "nvidia.com/gpu": "2"})]}
    assert pod_requests(spec, ()) == {"cpu": 1 * M, "nvidia.com/gpu": 2 * M}


def test_overhead_is_added_and_a_runtime_class_supplies_it_when_the_pod_has_none() -> None:
    spec = {"containers": [_c("a", {"cpu": "1"})]}
    assert pod_requests(spec, (), overhead={"cpu": 250}) == {"cpu": 1250}
    own = {**spec, "overhead": {"cpu": "100m"}}
    assert pod_requests(own, (), overhead={"cpu": 250}) == {"cpu": 1100}


def test_pod_level_requests_replace_the_container_sum_for_cpu_and_memory_only() -> None:
    spec = {
        "resources": {"requests": {"cpu": "6"}},
        "containers": [_c("a", {"cpu": "1", "nvidia.com/gpu": "1"})],
    }
    assert pod_requests(spec, ()) == {"cpu": 6 * M, "nvidia.com/gpu": 1 * M}


def test_limit_range_default_request_wins_over_the_containers_limit() -> None:
    # Kueue merges defaultRequest into requests before limits stand in for missing requests.
    spec = {"containers": [_c("a", None, {"cpu": "2"})]}
    assert pod_requests(spec, (), defaults=({"cpu": 500}, {})) == {"cpu": 500}
    assert pod_requests({"containers": [_c("a")]}, (), defaults=({}, {"memory": 1024})) == {"memory": 1024}


def test_a_bad_quantity_names_its_field() -> None:
    with pytest.raises(BadField) as err:
        pod_requests({"containers": [_c("a", {"cpu": "lots"})]}, ("spec",))
    assert err.value.path == ("spec", "containers", 0, "resources", "requests", "cpu")


def test_hami_transformation_multiplies_per_vgpu_amounts_by_the_vgpu_count() -> None:
    # Kueue docs, tasks/run/using_hami.md: gpu 2 and gpumem 1024 -> total-gpumem 2048 (Replace).
    rules = {
        "nvidia.com/gpumem": Transformation(
            "nvidia.com/gpumem", (("nvidia.com/total-gpumem", M),), False, "nvidia.com/gpu"
        ),
        "nvidia.com/gpucores": Transformation(
            "nvidia.com/gpucores", (("nvidia.com/total-gpucores", M),), False, "nvidia.com/gpu"
        ),
    }
    pod = {"nvidia.com/gpu": 2 * M, "nvidia.com/gpumem": 1024 * M, "nvidia.com/gpucores": 30 * M}
    assert transform(pod, rules) == {
        "nvidia.com/gpu": 2 * M,
        "nvidia.com/total-gpumem": 2048 * M,
        "nvidia.com/total-gpucores": 60 * M,
    }


def test_retain_keeps_the_input_and_excluded_prefixes_are_dropped() -> None:
    rules = {"cpu": Transformation("cpu", (("cpu_credits", M),))}
    assert transform({"cpu": 3 * M, "example.com/x": M}, rules, ("example.com/",)) == {
        "cpu": 3 * M,
        "cpu_credits": 3 * M,
    }
