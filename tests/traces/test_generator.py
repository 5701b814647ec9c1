"""The seeded generator: determinism, validity, and distributions that follow its parameters."""

from __future__ import annotations

import itertools
import math
import statistics
import tracemalloc
from collections import Counter
from importlib import resources
from typing import Any

import pytest
import yaml

from gpuplane.traces import Workload, builtin_week, check_workload, default_params, generate, params_from_dict

DAY = 86400.0


@pytest.fixture(scope="module")
def month() -> list[Workload]:
    return generate(11, 30 * DAY, ("x", "y", "z"), jobs_per_hour=60)


def test_same_seed_same_workloads_other_seed_other_workloads() -> None:
    assert generate(5, DAY, jobs_per_hour=20) == generate(5, DAY, jobs_per_hour=20)
    assert generate(5, DAY, jobs_per_hour=20) != generate(6, DAY, jobs_per_hour=20)


def test_every_record_is_valid_sorted_and_inside_the_horizon(month: list[Workload]) -> None:
    assert all(check_workload(w) == [] for w in month)
    assert all(a.submit <= b.submit for a, b in itertools.pairwise(month))
    assert month[0].submit >= 0 and month[-1].submit < 30 * DAY
    assert len({w.id for w in month}) == len(month)


def test_poisson_arrivals_match_the_rate(month: list[Workload]) -> None:
    jobs = [w for w in month if w.klass != "inference"]
    expected = 60 * 24 * 30
    assert abs(len(jobs) - expected) < 4 * math.sqrt(expected)
    gaps = [b.submit - a.submit for a, b in itertools.pairwise(jobs)]
    # Exponential gaps: the standard deviation equals the mean.
    assert statistics.stdev(gaps) == pytest.approx(statistics.fmean(gaps), rel=0.05)


def test_training_durations_are_lognormal_around_the_philly_median(month: list[Workload]) -> None:
    p = default_params().training.duration
    durations = sorted(w.duration for w in month if w.klass == "training")
    median = durations[len(durations) // 2]
    p90 = durations[int(0.9 * len(durations))]
    assert median == pytest.approx(math.exp(p.mu), rel=0.1)  # 1,144 s
    assert p90 == pytest.approx(math.exp(p.mu + 1.2815515655446004 * p.sigma), rel=0.15)  # 11,266 s
    assert max(durations) <= p.max_s


def test_gang_sizes_classes_statuses_and_checkpoints_follow_the_parameters(month: list[Workload]) -> None:
    p = default_params()
    training = [w for w in month if w.klass == "training"]
    jobs = [w for w in month if w.klass != "inference"]
    assert len(training) / len(jobs) == pytest.approx(p.training_share, abs=0.02)
    gangs = Counter(int(w.total_gpus) for w in training)
    assert set(gangs) == {1, 2, 4, 8, 16, 32}
    assert gangs[1] / len(training) == pytest.approx(0.5, abs=0.03)
    assert all(ps.gpus_per_pod <= 8 for w in training for ps in w.pod_sets)
    status = Counter(w.final_status for w in jobs)
    assert status["failed"] / len(jobs) == pytest.approx(p.failed_share, abs=0.02)
    assert status["killed"] / len(jobs) == pytest.approx(p.killed_share, abs=0.02)
    failed = [w.end_at_fraction for w in jobs if w.final_status == "failed"]
    assert statistics.fmean(failed) == pytest.approx(1 / 3, abs=0.03)  # failures come early
    with_cp = [w for w in training if w.checkpoint is not None]
    assert len(with_cp) / len(training) == pytest.approx(p.checkpoint.share, abs=0.03)
    assert {w.checkpoint.interval_s for w in with_cp if w.checkpoint} == {1800.0, 3600.0}
    assert all(w.checkpoint is None for w in jobs if w.klass == "batch")


def test_teams_get_decreasing_shares(month: list[Workload]) -> None:
    teams = Counter(w.team for w in month if w.klass != "inference")
    assert teams["x"] > teams["y"] > teams["z"] > 0
    assert teams["x"] / teams["z"] == pytest.approx(3.0, rel=0.15)  # weights 1, 1/2, 1/3


def test_services_are_long_running_small_gpu_or_mig(month: list[Workload]) -> None:
    services = [w for w in month if w.klass == "inference"]
    assert services and all(w.run_time is not None and w.work_gpu_seconds is None for w in services)
    long_running = [w for w in services if w.submit < 3600]
    assert sum(1 for w in long_running if w.submit + w.duration == pytest.approx(30 * DAY)) >= 6
    assert any(w.mig_profiles for w in services)
    assert any(0 < ps.gpus_per_pod < 1 and ps.mig_profile is None for w in services for ps in w.pod_sets)
    assert all(w.priority > max(x.priority for x in month if x.klass != "inference") for w in services)


def test_builtin_week_offers_about_the_planned_load() -> None:
    p = default_params()
    week = builtin_week()
    assert week == builtin_week(0)
    assert {w.team for w in week} == {"team-a", "team-b", "team-c"}
    offered = sum(w.work_gpu_seconds * w.end_at_fraction for w in week if w.work_gpu_seconds) / (7 * DAY)
    # One week of heavy-tailed jobs: within a factor of two of 0.75 x 40 GPUs.
    assert (
        p.builtin_load * p.builtin_capacity_gpus / 2 < offered < p.builtin_load * p.builtin_capacity_gpus * 2
    )
    assert 500 < len(week) < 3000


def test_rate_can_be_sized_from_capacity_and_load() -> None:
    small = generate(1, 10 * DAY, capacity_gpus=20, load=0.5, services=False)
    large = generate(1, 10 * DAY, capacity_gpus=80, load=0.5, services=False)
    assert len(large) / len(small) == pytest.approx(4, rel=0.1)


@pytest.mark.parametrize("kwargs", [{"teams": []}, {"teams": ["a", "a"]}, {"jobs_per_hour": 0}, {"load": -1}])
def test_bad_arguments_are_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        generate(0, DAY, **kwargs)


def test_records_are_lean_enough_for_800k_in_well_under_a_gigabyte() -> None:
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        jobs = generate(2, 4 * DAY, jobs_per_hour=100)
        retained = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    per_job = retained / len(jobs)
    assert per_job * 800_000 < 500 * 2**20, f"{per_job:.0f} bytes per job"


def test_edited_parameters_drive_the_output() -> None:
    raw = yaml.safe_load(
        resources.files("gpuplane.traces").joinpath("generator_defaults.yaml").read_text("utf-8")
    )
    raw["status"] = {"failed": 0.0, "killed": 0.0}
    raw["training"]["gang_sizes"] = {12: 1.0}
    raw["class_shares"] = {"training": 1.0, "batch": 0.0}
    jobs = generate(3, DAY, params=params_from_dict(raw), jobs_per_hour=30, services=False)
    assert {w.final_status for w in jobs} == {"completed"}
    assert {w.pod_sets[0].count * w.pod_sets[0].gpus_per_pod for w in jobs} == {12.0}
    assert {ps.gpus_per_pod for w in jobs for ps in w.pod_sets} == {6.0}  # 12 GPUs in two pods of <= 8
