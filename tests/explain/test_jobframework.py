"""Which jobs Kueue manages, with which queue and priority, and what explain makes of the rest.

Rules from kubernetes-sigs/kueue @ff69552e: pkg/controller/jobframework/reconciler.go (queue
name, manageJobsWithoutQueueName and managedJobsNamespaceSelector), defaults.go (the namespace's
LocalQueue `default`; the WorkloadPriorityClass `default`), pkg/util/priority/priority.go
(WorkloadPriorityClass label, else the pod's PriorityClass, else the globalDefault one, else 0).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from gpuplane.cli import app
from gpuplane.explain.jobframework import convert_jobs
from gpuplane.explain.load import parse_objects

LQ = "kueue.x-k8s.io/queue-name"


def _job(
    name: str = "train", ns: str | None = "team", labels: dict[str, str] | None = None, **spec: Any
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": labels if labels is not None else {LQ: "q"}}
    if ns:
        meta["namespace"] = ns
    pod = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}], "restartPolicy": "Never"}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta,
        "spec": {"template": {"spec": pod}, **spec},
    }


def _lq(name: str, ns: str = "team") -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"clusterQueue": "cq"},
    }


def _convert(*objects: dict[str, Any]) -> Any:
    return convert_jobs(parse_objects(list(objects), "in.yaml"))


def test_the_queue_name_label_names_the_local_queue() -> None:
    conv = _convert(_job())
    assert [(j.workload.key, j.workload.queue_name) for j in conv.jobs] == [("team/job-train-<uid>", "q")]


def test_without_a_label_the_namespaces_default_local_queue_is_used() -> None:
    conv = _convert(_job(labels={}), _lq("default"))
    assert conv.jobs[0].workload.queue_name == "default"
    assert "LocalQueue default" in conv.jobs[0].queue_note


def test_without_a_label_or_default_queue_the_job_is_not_managed() -> None:
    conv = _convert(_job(labels={}))
    assert conv.jobs == []
    assert conv.unmanaged == [
        (
            "Job team/train",
            "not managed by Kueue: no kueue.x-k8s.io/queue-name label and manageJobsWithoutQueueName is off",
        )
    ]


def test_manage_jobs_without_queue_name_takes_them_but_never_admits_them() -> None:
    config = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "manageJobsWithoutQueueName": True,
    }
    conv = _convert(_job(labels={}), config)
    assert conv.unmanaged == []
    assert "no spec.queueName" in (conv.jobs[0].workload.problem or "")


def test_manage_jobs_without_queue_name_still_skips_kube_system() -> None:
    # managedJobsNamespaceSelector defaults to every namespace but kube-system and kueue-system.
    config = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "manageJobsWithoutQueueName": True,
    }
    conv = _convert(_job(ns="kube-system", labels={}), config)
    assert conv.jobs == [] and conv.unmanaged[0][0] == "Job kube-system/train"


def _classes() -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "WorkloadPriorityClass",
            "metadata": {"name": "urgent"},
            "value": 9000,
        },
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "prod"},
            "value": 700,
        },
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "base"},
            "value": 50,
            "globalDefault": True,
        },
    ]


def test_priority_label_then_pod_priority_class_then_global_default() -> None:
    labelled = _job("a", labels={LQ: "q", "kueue.x-k8s.io/priority-class": "urgent"})
    pod_class = _job("b")
    pod_class["spec"]["template"]["spec"]["priorityClassName"] = "prod"
    plain = _job("c")
    conv = _convert(labelled, pod_class, plain, *_classes())
    assert {j.name: j.workload.priority for j in conv.jobs} == {"a": 9000, "b": 700, "c": 50}


def test_a_workload_priority_class_named_default_applies_without_a_label() -> None:
    default = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "WorkloadPriorityClass",
        "metadata": {"name": "default"},
        "value": 3,
    }
    assert _convert(_job(), default).jobs[0].workload.priority == 3


def test_a_missing_workload_priority_class_blocks_the_workload() -> None:
    conv = _convert(_job(labels={LQ: "q", "kueue.x-k8s.io/priority-class": "nope"}))
    assert "WorkloadPriorityClass nope is not in the input" in (conv.jobs[0].workload.problem or "")


def test_finished_jobs_are_skipped_with_a_note() -> None:
    done = _job()
    done["status"] = {"conditions": [{"type": "Complete", "status": "True"}]}
    conv = _convert(done)
    assert conv.jobs == [] and any("skipped finished Job team/train" in n for n in conv.notes)


def test_a_job_whose_workload_is_in_the_input_is_not_converted_again() -> None:
    job = _job()
    job["metadata"]["uid"] = "u-1"
    wl = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": "job-train-abcde",
            "namespace": "team",
            "ownerReferences": [{"kind": "Job", "name": "train", "uid": "u-1"}],
        },
        "spec": {
            "queueName": "q",
            "podSets": [{"name": "main", "count": 1, "template": {"spec": job["spec"]["template"]["spec"]}}],
        },
    }
    assert _convert(job, wl).jobs == []


def test_a_job_without_namespace_goes_to_default_and_generate_name_is_shown() -> None:
    job = _job(ns=None)
    del job["metadata"]["name"]
    job["metadata"]["generateName"] = "sweep-"
    conv = _convert(job)
    assert conv.jobs[0].job == "Job default/sweep-<generated>"
    assert conv.jobs[0].workload.key == "default/job-sweep-<generated>-<uid>"


def test_two_jobs_of_one_generate_name_get_two_workloads() -> None:
    # Found trying explain as a user: two `generateName: sweep-` jobs shared one Workload name,
    # so the first job was answered with the second one's decision.
    first, second = _job(), _job(parallelism=4)
    for job in (first, second):
        del job["metadata"]["name"]
        job["metadata"]["generateName"] = "sweep-"
    conv = _convert(first, second)
    assert [j.workload.key for j in conv.jobs] == [
        "team/job-sweep-<generated>-<uid>",
        "team/job-sweep-<generated-2>-<uid>",
    ]
    assert [j.job for j in conv.jobs] == ["Job team/sweep-<generated>", "Job team/sweep-<generated-2>"]
    assert [j.workload.pod_sets[0].count for j in conv.jobs] == [1, 4]


def _cli(tmp_path: Path, *docs: dict[str, Any], table: bool = False) -> Any:
    f = tmp_path / "in.yaml"
    f.write_text(yaml.safe_dump_all(docs))
    args = ["explain", "-f", str(f)] + ([] if table else ["-o", "json"])
    result = CliRunner().invoke(app, args, terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.stdout if table else json.loads(result.stdout)


def _setup(ns_objects: bool = True) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "f"}},
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "ClusterQueue",
            "metadata": {"name": "cq"},
            "spec": {
                "namespaceSelector": {},
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu"],
                        "flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": 4}]}],
                    }
                ],
            },
        },
    ]
    if ns_objects:
        out.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    return out


def test_a_namespace_missing_from_the_input_is_assumed_not_refused(tmp_path: Path) -> None:
    # kubectl apply -f job.yaml puts it in `default`, which always exists; an empty
    # namespaceSelector matches every namespace.
    out = _cli(tmp_path, *_setup(), _lq("q", "default"), _job(ns=None))
    assert out["whatIf"][0]["status"] == "admitted"
    assert any("namespace(s) default not in the input" in n for n in out["notes"])


def test_a_local_queue_without_namespace_says_where_it_is_taken_to_be(tmp_path: Path) -> None:
    lq = _lq("q")
    del lq["metadata"]["namespace"]
    out = _cli(tmp_path, *_setup(), lq, _job(ns=None))
    assert out["whatIf"][0]["status"] == "admitted"
    assert any(
        "LocalQueue q has no metadata.namespace; taken to be in namespace default" in n for n in out["notes"]
    )


def test_reasons_say_next_in_line_rather_than_zero_ahead(tmp_path: Path) -> None:
    jobs = [_job(f"j{i}", parallelism=4) for i in range(3)]
    out = _cli(tmp_path, *_setup(), _lq("q"), *jobs)
    reasons = [p["reason"] for p in out["cycles"][0]["pending"]]
    assert not any("0 ahead" in r for r in reasons)
    assert any("next in line in ClusterQueue cq" in r for r in reasons)


def test_long_names_wrap_in_the_table_instead_of_being_cut(tmp_path: Path) -> None:
    name = "a-very-long-job-name-" + "x" * 70
    text = _cli(tmp_path, *_setup(), _lq("q"), _job(name), table=True)
    assert "…" not in text
    assert "x" * 40 in text.replace("\n", "").replace("│", "").replace(" ", "")


def test_empty_input_says_what_to_feed_it(tmp_path: Path) -> None:
    text = _cli(tmp_path, *_setup(), table=True)
    words = " ".join(text.split())
    assert "kubectl get" in words and "-A -o yaml" in words and "job file you plan to submit" in words


def test_dra_claims_of_a_job_are_charged_as_kueues_template_path_does() -> None:
    # kueue/dra.py (pkg/dra/claims.go): each device request's count goes to the quota name the
    # Configuration's deviceClassMappings gives its DeviceClass; unmapped is inadmissible.
    job = _job()
    pod = job["spec"]["template"]["spec"]
    pod["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "two-gpus"}]
    pod["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    rct = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "two-gpus", "namespace": "team"},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 2}}
                    ]
                }
            }
        },
    }
    config = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "resources": {
            "deviceClassMappings": [{"name": "whole-gpus", "deviceClassNames": ["gpu.nvidia.com"]}]
        },
    }
    conv = _convert(job, rct, config)
    assert conv.jobs[0].claim_templates == {"main": ["two-gpus"]}
    assert conv.jobs[0].workload.pod_sets[0].per_pod == {"cpu": 1000, "whole-gpus": 2000}
    unmapped = _convert(job, rct).jobs[0].workload
    assert unmapped.problem == "Inadmissible: DeviceClass gpu.nvidia.com is not mapped in DRA configuration"


def test_rendered_dra_platform_example_jobs_are_charged_and_admitted(tmp_path: Path, repo_dir: Path) -> None:
    # `gpuplane render examples/eks-dra.yaml` writes claim templates, mappings and example Jobs.
    out = tmp_path / "out"
    rendered = CliRunner().invoke(
        app, ["render", str(repo_dir / "examples" / "eks-dra.yaml"), "-o", str(out)]
    )
    assert rendered.exit_code == 0, rendered.output
    args = [
        "explain",
        "-f",
        str(out / "kueue"),
        "-f",
        str(out / "dra"),
        "-f",
        str(out / "tenancy"),
        "-o",
        "json",
    ]
    result = json.loads(CliRunner().invoke(app, args).stdout)
    gpu = next(j for j in result["jobs"] if j["job"] == "Job research/dra-example-gpu")
    assert gpu["podSets"][0]["requestsPerPod"]["dra.gpuplane.io/gpu"] == "1"
    assert (
        next(a for a in result["whatIf"] if a["job"] == "Job research/dra-example-gpu")["status"]
        == "admitted"
    )
