"""Each workload kind turned into the Workload Kueue would create, spelled out by hand.

Fixtures are modelled on Kueue's own samples (site/static/examples in kubernetes-sigs/kueue
@ff69552e) with GPU content of our own; every one validates against its real schema (the CRDs in
../shared/crds, kubernetes-validate for core kinds). The expected pod sets follow the integration
sources cited in gpuplane.workloads (pkg/controller/jobs/* at the same commit): names, counts and
per-pod requests are worked out here from the fixture, not from the code under test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuplane.explain.jobframework import convert_jobs
from gpuplane.explain.load import load_paths
from gpuplane.kube.quantity import parse_quantity
from tests.support.crds import validate

FIXTURES = Path(__file__).parent / "fixtures"
NO_CRD_HERE = {
    "llminferenceservice.yaml",
    "unknown-gpu-kind.yaml",
    "inferenceservice.yaml",
    "knative-service.yaml",
    "dynamographdeployment.yaml",
}  # KServe, Knative and Dynamo CRDs are not in ../shared/crds; unknown-gpu-kind is made up

GiB = 1024**3


def _q(**requests: str) -> dict[str, int]:
    """Per-pod requests in milli-units; `gpu` stands for nvidia.com/gpu."""
    return {("nvidia.com/gpu" if k == "gpu" else k): parse_quantity(v) for k, v in requests.items()}


def _convert(*names: str) -> Any:
    return convert_jobs(load_paths([str(FIXTURES / n) for n in names]))


def _pod_sets(conv: Any, key: str) -> list[tuple[str, int, int | None, dict[str, int]]]:
    job = next(j for j in conv.jobs if j.workload.key == key)
    return [(ps.name, ps.count, ps.min_count, dict(ps.per_pod)) for ps in job.workload.pod_sets]


@pytest.mark.parametrize(
    "fixture", sorted(p.name for p in FIXTURES.glob("*.yaml") if p.name not in NO_CRD_HERE)
)
def test_fixture_matches_its_real_schema(fixture: str) -> None:
    for doc in yaml.safe_load_all((FIXTURES / fixture).read_text()):
        validate(doc)


def test_job_one_pod_set_main_with_min_count_and_sidecar_arithmetic() -> None:
    # parallelism 4 < completions 8 -> 4 pods; job-min-parallelism 2. Per pod: app 8 cpu/32Gi plus
    # the native sidecar 1 cpu/1Gi = 9/33Gi; the init container after the sidecar needs 16+1 cpu,
    # 4+1 Gi; Kubernetes takes the max: 17 cpu, 33Gi. The GPU limit stands in for the request.
    conv = _convert("job.yaml")
    key = "vision/job-resnet-sweep-71b1f"  # sha1("Job\nbatch\nresnet-sweep\n<uid>")[:5]
    assert _pod_sets(conv, key) == [
        ("main", 4, 2, {"cpu": 17000, "memory": 33 * GiB * 1000, "nvidia.com/gpu": 1000})
    ]
    job = conv.jobs[0]
    assert (job.workload.queue_name, job.runtime) == ("vision", 5400.0)


def test_jobset_a_pod_set_per_replicated_job_replicas_times_parallelism() -> None:
    conv = _convert("jobset.yaml")
    assert _pod_sets(conv, "nlp/jobset-llm-pretrain-<uid>") == [
        ("driver", 1, None, _q(cpu="2", memory="8Gi")),
        ("workers", 8, None, _q(cpu="32", memory="256Gi", gpu="8")),
    ]


def test_pytorchjob_master_then_worker_and_priority_from_run_policy() -> None:
    pc = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "research"},
        "value": 500,
    }
    parsed = load_paths([str(FIXTURES / "pytorchjob.yaml")])
    from gpuplane.explain.load import parse_objects

    parsed.objects.extend(parse_objects([pc]).objects)
    conv = convert_jobs(parsed)
    per_pod = _q(cpu="8", memory="64Gi", gpu="2")
    assert _pod_sets(conv, "nlp/pytorchjob-bert-finetune-<uid>") == [
        ("master", 1, None, per_pod),
        ("worker", 3, None, per_pod),
    ]
    assert conv.jobs[0].workload.priority == 500


def test_pytorchjob_naming_a_missing_priority_class_gets_no_workload_admitted() -> None:
    conv = _convert("pytorchjob.yaml")
    assert "PriorityClass research is not in the input" in (conv.jobs[0].workload.problem or "")


def test_tfjob_replica_types_in_kueues_order() -> None:
    conv = _convert("tfjob.yaml")
    assert [(n, c) for n, c, _, _ in _pod_sets(conv, "ads/tfjob-wide-deep-<uid>")] == [
        ("chief", 1),
        ("ps", 2),
        ("worker", 4),
    ]


def test_jaxjob_worker_limits_stand_in_for_requests() -> None:
    conv = _convert("jaxjob.yaml")
    assert _pod_sets(conv, "vision/jaxjob-diffusion-<uid>") == [
        ("worker", 2, None, _q(cpu="6", memory="48Gi", gpu="4"))
    ]


def test_mpijob_launcher_then_worker() -> None:
    conv = _convert("mpijob.yaml")
    assert _pod_sets(conv, "infra/mpijob-nccl-allreduce-<uid>") == [
        ("launcher", 1, None, _q(cpu="1", memory="2Gi")),
        ("worker", 2, None, _q(cpu="16", memory="128Gi", gpu="8")),
    ]


def test_trainjob_pod_sets_come_from_its_runtime_with_num_nodes_and_resources_per_node() -> None:
    conv = _convert("trainjob.yaml")
    assert _pod_sets(conv, "nlp/trainjob-llama-sft-<uid>") == [
        ("dataset-initializer", 1, None, _q(cpu="2", memory="4Gi")),
        ("node", 4, None, _q(cpu="16", memory="128Gi", gpu="4")),
    ]


def test_trainjob_without_its_runtime_is_a_note_not_a_guess(tmp_path: Path) -> None:
    docs = list(yaml.safe_load_all((FIXTURES / "trainjob.yaml").read_text()))
    only_job = tmp_path / "trainjob.yaml"
    only_job.write_text(yaml.safe_dump(docs[1]))
    conv = convert_jobs(load_paths([str(only_job)]))
    assert conv.jobs == []
    assert any("ClusterTrainingRuntime torch-gpu is not in the input" in n for n in conv.notes)


def test_rayjob_head_with_autoscaler_multihost_workers_and_submitter() -> None:
    # head: 2 cpu/8Gi plus the autoscaler container (500m/512Mi); GPU-Workers: replicas 2 x
    # numOfHosts 2, named lower-case; the default submissionMode K8sJobMode adds `submitter`
    # (500m cpu, 200Mi requested).
    conv = _convert("rayjob.yaml")
    assert _pod_sets(conv, "nlp/rayjob-batch-inference-<uid>") == [
        ("head", 1, None, _q(cpu="2500m", memory="8704Mi")),
        ("gpu-workers", 4, None, _q(cpu="8", memory="32Gi", gpu="1")),
        ("cpu", 1, None, _q(cpu="4", memory="16Gi")),
        ("submitter", 1, None, _q(cpu="500m", memory="200Mi")),
    ]


def test_raycluster_with_gcs_fault_tolerance_raises_the_head_to_the_cleanup_floor() -> None:
    conv = _convert("raycluster.yaml")
    assert _pod_sets(conv, "vision/raycluster-notebook-cluster-<uid>") == [
        ("head", 1, None, _q(cpu="200m", memory="1Gi")),
        ("gpu", 3, None, _q(cpu="4", memory="16Gi", gpu="1")),
    ]


def test_pod_group_is_one_workload_named_after_the_group_with_a_pod_set_per_role() -> None:
    conv = _convert("pod-group.yaml")
    assert [j.workload.key for j in conv.jobs] == ["infra/physics-sim"]
    shapes = sorted(((c, r) for _, c, _, r in _pod_sets(conv, "infra/physics-sim")), key=lambda s: s[0])
    assert shapes == [(1, _q(cpu="2", memory="4Gi")), (2, _q(cpu="8", memory="32Gi", gpu="2"))]


def test_plain_pod_is_a_one_pod_workload() -> None:
    conv = _convert("pod.yaml")
    assert _pod_sets(conv, "infra/pod-cuda-smoke-79a6e") == [("main", 1, None, _q(gpu="1"))]


def test_deployment_each_pod_is_a_workload() -> None:
    conv = _convert("deployment.yaml")
    assert len(conv.jobs) == 2
    for job in conv.jobs:
        assert [(p.name, p.count) for p in job.workload.pod_sets] == [("main", 1)]
        assert job.workload.queue_name == "search"


def test_statefulset_is_one_group_workload_of_replicas_pods() -> None:
    conv = _convert("statefulset.yaml")
    assert _pod_sets(conv, "search/statefulset-vector-db-8c396") == [
        ("main", 3, None, _q(cpu="2", memory="8Gi", gpu="1"))
    ]


def test_leaderworkerset_one_workload_per_group_leader_and_workers() -> None:
    conv = _convert("leaderworkerset.yaml")
    per_pod = _q(cpu="8", memory="64Gi", gpu="8")
    for key in ("search/leaderworkerset-llama-70b-0-60abb", "search/leaderworkerset-llama-70b-1-b6047"):
        assert _pod_sets(conv, key) == [("leader", 1, None, per_pod), ("worker", 3, None, per_pod)]


def test_cronjob_queue_label_comes_from_its_job_template() -> None:
    conv = _convert("cronjob.yaml")
    assert len(conv.jobs) == 1
    job = conv.jobs[0]
    assert (job.workload.queue_name, [(p.name, p.count) for p in job.workload.pod_sets]) == (
        "vision",
        [("main", 2)],
    )


def test_unknown_gpu_kind_is_reported_as_not_understood() -> None:
    conv = _convert("unknown-gpu-kind.yaml")
    assert conv.jobs == []
    assert any("ModelServer qwen-chat" in n and "not understood" in n for n in conv.notes), conv.notes


def test_llm_inference_service_is_a_serving_kind_kueue_does_not_manage() -> None:
    conv = _convert("llminferenceservice.yaml")
    assert conv.jobs == [] and conv.notes == []
    assert conv.unmanaged == [
        ("LLMInferenceService search/qwen-chat", "Kueue has no integration for this kind")
    ]


def test_schema_check_rejects_a_misspelt_field() -> None:
    # Guards the guard: a field the JobSet CRD does not define must fail.
    doc = yaml.safe_load((FIXTURES / "jobset.yaml").read_text())
    doc["spec"]["replicatedJob"] = doc["spec"].pop("replicatedJobs")
    with pytest.raises(Exception, match="replicatedJob"):
        validate(doc)


def test_pod_group_with_missing_pods_gets_no_workload_yet(tmp_path: Path) -> None:
    docs = list(yaml.safe_load_all((FIXTURES / "pod-group.yaml").read_text()))
    two = tmp_path / "two-of-three.yaml"
    two.write_text(yaml.safe_dump_all(docs[:2]))
    conv = convert_jobs(load_paths([str(two)]))
    assert conv.jobs == [] and any("has 2 of 3 pods" in n for n in conv.notes)
    for d in docs[:2]:
        d["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-fast-admission"] = "true"
    two.write_text(yaml.safe_dump_all(docs[:2]))
    conv = convert_jobs(load_paths([str(two)]))  # fast admission: the first pod's shape, x3
    assert [(p.count, p.per_pod) for p in conv.jobs[0].workload.pod_sets] == [(3, _q(cpu="2", memory="4Gi"))]
