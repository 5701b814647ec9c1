"""Workload names: Kueue's own test vectors (pkg/controller/jobframework/workload_names_test.go @ff69552e)."""

from __future__ import annotations

from gpuplane.workloads.names import NO_UID, workload_name

LONG = (
    "marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-department-"
    "social-media-engagement-tracker-and-analytics-dashboard-v2-final-revision-by-engineering-team-"
    "lead-senior-architect-validation-checked-approved-by-legal-and-ops-dept"
)


def test_short_name_matches_kueues_vector() -> None:
    # "short name, no extra (ShortWorkloadNames=false)": job-name-ef3a1
    assert workload_name("name", "uid", "Job", "batch") == "job-name-ef3a1"


def test_long_name_is_cut_before_the_hash_as_kueue_does() -> None:
    # "long owner name truncated (ShortWorkloadNames=false)": 247 characters, then -218b8
    want = (
        "job-marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-"
        "department-social-media-engagement-tracker-and-analytics-dashboard-v2-final-revision-by-"
        "engineering-team-lead-senior-architect-validation-checked-approved-by-l-218b8"
    )
    got = workload_name(LONG, "uid", "Job", "batch")
    assert got == want and len(got) == 253


def test_the_group_is_part_of_the_hash() -> None:
    assert workload_name("name", "uid", "Job", "batch") != workload_name("name", "uid", "Job", "other.io")


def test_an_object_never_created_has_no_hash_yet() -> None:
    assert workload_name("train", "", "JobSet", "jobset.x-k8s.io") == f"jobset-train-{NO_UID}"
