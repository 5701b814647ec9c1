"""The Workload record: derived figures, consistency checks, and a lean memory layout."""

from __future__ import annotations

from typing import Any

import pytest

from gpuplane.traces import Checkpoint, PodSet, Workload, check_workload, timed_work, with_checkpoint


def _w(**kw: Any) -> Workload:
    """A valid one-gang training job with fields overridden (bad values too, for check_workload)."""
    base: dict[str, Any] = dict(
        id="j1",
        team="t",
        queue="q",
        klass="training",
        submit=0.0,
        pod_sets=(PodSet("worker", 2, 8.0),),
        work_gpu_seconds=16 * 3600.0,
    )
    base.update(kw)
    return Workload(**base)


def test_duration_at_full_speed_divides_gpu_work_by_the_gang() -> None:
    w = _w(pod_sets=(PodSet("launcher", 1, 0.0), PodSet("worker", 2, 8.0)))
    assert w.total_gpus == 16
    assert w.total_pods == 3
    assert w.duration == 3600.0


def test_fixed_run_time_wins_over_gpu_count() -> None:
    w = _w(
        klass="inference",
        pod_sets=(PodSet("server", 3, 1.0, "1g.10gb"),),
        work_gpu_seconds=None,
        run_time=7200.0,
    )
    assert w.duration == 7200.0
    assert w.mig_profiles == ("1g.10gb",)


def test_failed_workload_stops_at_its_fraction_of_the_run() -> None:
    w = _w(final_status="failed", end_at_fraction=0.25)
    assert w.stop_after == 900.0
    assert check_workload(w) == []


def test_source_line_is_not_part_of_identity() -> None:
    assert _w(source_line=3) == _w(source_line=99)


def test_gpu_model_constraint_splits_on_bar() -> None:
    assert _w(gpu_model="V100M16|V100M32").allowed_gpu_models == ("V100M16", "V100M32")
    assert _w().allowed_gpu_models == ()


@pytest.mark.parametrize(
    ("changes", "column"),
    [
        ({"run_time": 5.0}, "work_gpu_s"),  # both set
        ({"work_gpu_seconds": None}, "work_gpu_s"),  # neither set
        ({"pod_sets": (PodSet("cpu", 1, 0.0),)}, "work_gpu_s"),  # GPU work without GPUs
        ({"submit": -1.0}, "submit_s"),
        ({"klass": "gaming"}, "class"),
        ({"final_status": "lost"}, "final_status"),
        ({"final_status": "completed", "end_at_fraction": 0.5}, "end_at_fraction"),
        ({"final_status": "failed", "end_at_fraction": 0.0}, "end_at_fraction"),
        ({"pod_sets": (PodSet("w", 0, 1.0),)}, "pod_sets"),
        ({"pod_sets": (PodSet("w", 1, 1.5),)}, "pod_sets"),
        ({"pod_sets": ()}, "pod_sets"),
        ({"checkpoint": Checkpoint(0.0, 1.0, 1.0)}, "checkpoint_interval_s"),
    ],
)
def test_check_workload_names_the_inconsistent_field(changes: dict[str, object], column: str) -> None:
    problems = check_workload(_w(**changes))
    assert problems, changes
    assert problems[0][0] == column


def test_timed_work_gives_services_and_cpu_pods_a_fixed_run_time() -> None:
    gpu = (PodSet("pod", 1, 0.5),)
    cpu = (PodSet("pod", 1, 0.0),)
    assert timed_work("inference", gpu, 100.0) == (None, 100.0)
    assert timed_work("batch", cpu, 100.0) == (None, 100.0)
    assert timed_work("training", gpu, 100.0) == (50.0, None)


def test_with_checkpoint_only_touches_training() -> None:
    cp = Checkpoint(1800.0, 30.0, 60.0)
    assert with_checkpoint(_w(), cp).checkpoint == cp
    svc = _w(klass="inference", work_gpu_seconds=None, run_time=10.0)
    assert with_checkpoint(svc, cp) is svc


def test_records_have_slots_and_no_instance_dict() -> None:
    w = _w()
    assert not hasattr(w, "__dict__")
    assert not hasattr(w.pod_sets[0], "__dict__")
    with pytest.raises(AttributeError):
        w.submit = 5.0  # type: ignore[misc]
