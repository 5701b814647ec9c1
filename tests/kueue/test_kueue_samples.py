"""Done means: Kueue's documented samples, given as Jobs, JobSets, PyTorchJobs and RayJobs, get the
decisions Kueue's documentation states (kubernetes-sigs/kueue @ff69552e, site/content/en/docs).

The setups are in samples/ (see samples/README.md for page and statement); the job objects are
built here with a total CPU request, one CPU per pod, in each of the four shapes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from gpuplane.cli import app
from tests.support.crds import validate

SAMPLES = Path(__file__).parent / "samples"
KINDS = ("Job", "JobSet", "PyTorchJob", "RayJob")


def _pod(cpus: str = "1") -> dict[str, Any]:
    return {
        "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": cpus}}}],
        "restartPolicy": "Never",
    }


def job(kind: str, name: str, namespace: str, queue: str, cpus: int, **labels: str) -> dict[str, Any]:
    """A job object of `kind` asking `cpus` CPUs in total, one per pod."""
    meta = {"name": name, "namespace": namespace, "labels": {"kueue.x-k8s.io/queue-name": queue, **labels}}
    if kind == "Job":
        spec: dict[str, Any] = {
            "parallelism": cpus,
            "completions": cpus,
            "suspend": True,
            "template": {"spec": _pod()},
        }
        return {"apiVersion": "batch/v1", "kind": kind, "metadata": meta, "spec": spec}
    if kind == "JobSet":
        rj = {
            "name": "workers",
            "replicas": cpus,
            "template": {"spec": {"parallelism": 1, "template": {"spec": _pod()}}},
        }
        return {
            "apiVersion": "jobset.x-k8s.io/v1alpha2",
            "kind": kind,
            "metadata": meta,
            "spec": {"replicatedJobs": [rj]},
        }
    if kind == "PyTorchJob":
        specs: dict[str, Any] = {"Master": {"replicas": 1, "template": {"spec": _pod()}}}
        if cpus > 1:
            specs["Worker"] = {"replicas": cpus - 1, "template": {"spec": _pod()}}
        return {
            "apiVersion": "kubeflow.org/v1",
            "kind": kind,
            "metadata": meta,
            "spec": {"pytorchReplicaSpecs": specs},
        }
    cluster: dict[str, Any] = {"headGroupSpec": {"rayStartParams": {}, "template": {"spec": _pod()}}}
    if cpus > 1:
        cluster["workerGroupSpecs"] = [
            {
                "groupName": "w",
                "replicas": cpus - 1,
                "minReplicas": 0,
                "maxReplicas": cpus,
                "rayStartParams": {},
                "template": {"spec": _pod()},
            }
        ]
    spec = {
        "entrypoint": "python run.py",
        "submissionMode": "HTTPMode",
        "suspend": True,
        "rayClusterSpec": cluster,
    }
    return {"apiVersion": "ray.io/v1", "kind": kind, "metadata": meta, "spec": spec}


def running(name: str, namespace: str, queue: str, cq: str, cpus: int, priority: int = 0) -> dict[str, Any]:
    """An admitted Workload as `kubectl get workloads -o yaml` shows one (it holds `cpus` CPUs)."""
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": namespace, "creationTimestamp": "2026-08-01T10:00:00Z"},
        "spec": {
            "queueName": queue,
            "priority": priority,
            "podSets": [{"name": "main", "count": cpus, "template": {"spec": _pod()}}],
        },
        "status": {
            "admission": {
                "clusterQueue": cq,
                "podSetAssignments": [
                    {
                        "name": "main",
                        "count": cpus,
                        "flavors": {"cpu": "default-flavor"},
                        "resourceUsage": {"cpu": str(cpus)},
                    }
                ],
            },
            "conditions": [
                {"type": "QuotaReserved", "status": "True", "lastTransitionTime": "2026-08-01T10:00:01Z"}
            ],
        },
    }


def explain(tmp_path: Path, setup: str | list[dict[str, Any]], *objects: dict[str, Any]) -> dict[str, Any]:
    files = [str(SAMPLES / setup)] if isinstance(setup, str) else []
    if not isinstance(setup, str):
        objects = (*setup, *objects)
    if objects:
        extra = tmp_path / "objects.yaml"
        extra.write_text(yaml.safe_dump_all(objects))
        files.append(str(extra))
    args = ["explain", *[a for f in files for a in ("-f", f)], "-o", "json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def answer(out: dict[str, Any], job_name: str) -> dict[str, Any]:
    return next(a for a in out["whatIf"] if a["job"].endswith(f"/{job_name}"))


def test_quick_start_every_kind_is_admitted_in_cluster_queue(tmp_path: Path) -> None:
    # getting-started/quick-start.md: the sample job is admitted and its pods start.
    files = ["-f", str(SAMPLES / "quick-start.yaml"), "-f", str(SAMPLES / "quick-start-jobs.yaml")]
    out = json.loads(CliRunner().invoke(app, ["explain", *files, "-o", "json"]).stdout)
    answers = {a["job"]: (a["status"], a["clusterQueue"]) for a in out["whatIf"]}
    assert answers == {
        "Job default/hello-kueue": ("admitted", "cluster-queue"),
        "JobSet default/hello-jobset": ("admitted", "cluster-queue"),
        "PyTorchJob default/hello-pytorch": ("admitted", "cluster-queue"),
        "RayJob default/hello-ray": ("admitted", "cluster-queue"),
    }
    assert all(set(f.values()) == {"default-flavor"} for a in out["whatIf"] for f in a["flavors"].values())


def test_partial_admission_with_nine_cpus_free_admits_nine_pods(tmp_path: Path) -> None:
    # tasks/run/jobs.md: "When queued in a ClusterQueue with only 9 CPUs available, it will be
    # admitted with parallelism=9."
    setup = yaml.safe_load_all((SAMPLES / "quick-start.yaml").read_text())
    job_doc = yaml.safe_load((SAMPLES / "partial-admission.yaml").read_text())
    out = explain(tmp_path, [*setup, job_doc])
    admitted = [a for c in out["cycles"] for a in c["admitted"]]
    assert [(a["job"], a["podSets"][0]["count"]) for a in admitted] == [("Job default/sweep-partial", 9)]
    assert out["jobs"][0]["podSets"][0]["count"] == 20 and out["jobs"][0]["podSets"][0]["minCount"] == 5


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("cpus", "status"), [(21, "admitted"), (22, "waits")])
def test_borrowing_team_a_may_use_both_quotas_while_team_b_is_idle(
    tmp_path: Path, kind: str, cpus: int, status: str
) -> None:
    # concepts/cluster_queue.md: "If ClusterQueue team-b-cq has no admitted Workloads, then
    # ClusterQueue team-a-cq can admit Workloads with resources adding up to 12+9=21 CPUs".
    out = explain(tmp_path, "borrowing.yaml", job(kind, "big", "team-a", "team-a", cpus))
    a = answer(out, "big")
    assert a["status"] == status
    if status == "waits":
        assert "maximum capacity 21" in a["answer"]


@pytest.mark.parametrize("kind", KINDS)
def test_borrowing_a_queue_under_nominal_goes_before_one_that_would_borrow(tmp_path: Path, kind: str) -> None:
    # concepts/cluster_queue.md: "If ClusterQueue team-b-cq has pending Workloads and the
    # ClusterQueue team-a-cq has all its nominalQuota quota used, Kueue will admit Workloads in
    # ClusterQueue team-b-cq before admitting any new Workloads in team-a-cq." team-a's job is
    # older and only one of the two fits.
    out = explain(
        tmp_path,
        "borrowing.yaml",
        running("team-a-running", "team-a", "team-a", "team-a-cq", 9),
        job(kind, "a-more", "team-a", "team-a", 4),
        job(kind, "b-own", "team-b", "team-b", 12),
    )
    assert answer(out, "b-own")["status"] == "admitted"
    assert answer(out, "a-more")["status"] == "waits"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("cpus", "status"), [(10, "admitted"), (11, "waits")])
def test_borrowing_limit_caps_team_a_at_nominal_plus_one(
    tmp_path: Path, kind: str, cpus: int, status: str
) -> None:
    # concepts/cluster_queue.md, BorrowingLimit: "team-a-cq can admit Workloads with resources
    # adding up to 9+1=10 CPUs".
    setup = list(yaml.safe_load_all((SAMPLES / "borrowing.yaml").read_text()))
    team_a = next(d for d in setup if d["metadata"]["name"] == "team-a-cq")
    team_a["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["borrowingLimit"] = 1
    out = explain(tmp_path, [*setup, job(kind, "big", "team-a", "team-a", cpus)])
    assert answer(out, "big")["status"] == status


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("cpus", "status"), [(10, "admitted"), (11, "waits")])
def test_lending_limit_team_b_lends_at_most_one_cpu(
    tmp_path: Path, kind: str, cpus: int, status: str
) -> None:
    # concepts/cluster_queue.md, LendingLimit: "then ClusterQueue team-a-cq can admit Workloads
    # with resources adding up to 9+1=10 CPUs".
    out = explain(tmp_path, "lending-limit.yaml", job(kind, "big", "team-a", "team-a", cpus))
    a = answer(out, "big")
    assert a["status"] == status
    if status == "waits":
        assert "maximum capacity 10" in a["answer"]


@pytest.mark.parametrize("kind", KINDS)
def test_priority_label_sets_the_workload_priority(tmp_path: Path, kind: str) -> None:
    # concepts/workload_priority_class.md: the Workload gets `priority: 10000` from sample-priority.
    out = explain(
        tmp_path,
        "priority.yaml",
        job(
            kind, "urgent", "default", "user-queue", 2, **{"kueue.x-k8s.io/priority-class": "sample-priority"}
        ),
    )
    assert [j["priority"] for j in out["jobs"]] == [10000]


@pytest.mark.parametrize("kind", KINDS)
def test_priority_higher_is_admitted_first(tmp_path: Path, kind: str) -> None:
    # concepts/workload_priority_class.md: priority sorts the workloads in the ClusterQueue; the
    # low-priority job is older, only one fits.
    low = job(
        kind, "early-low", "default", "user-queue", 4, **{"kueue.x-k8s.io/priority-class": "low-priority"}
    )
    high = job(
        kind, "late-high", "default", "user-queue", 4, **{"kueue.x-k8s.io/priority-class": "sample-priority"}
    )
    out = explain(tmp_path, "priority.yaml", low, high)
    assert (answer(out, "late-high")["status"], answer(out, "early-low")["status"]) == ("admitted", "waits")


@pytest.mark.parametrize("kind", KINDS)
def test_priority_preempts_lower_priority_in_its_cluster_queue(tmp_path: Path, kind: str) -> None:
    # concepts/preemption.md: "The preemptee belongs to the same ClusterQueue as the preemptor and
    # the preemptee has a lower priority" (withinClusterQueue: LowerPriority).
    out = explain(
        tmp_path,
        "priority.yaml",
        running("batch-low", "default", "user-queue", "cluster-queue", 4, priority=100),
        job(
            kind, "urgent", "default", "user-queue", 4, **{"kueue.x-k8s.io/priority-class": "sample-priority"}
        ),
    )
    a = answer(out, "urgent")
    assert a["status"] == "admitted" and a["wouldPreempt"] == ["default/batch-low"]
    first = out["cycles"][0]["preempted"]
    assert [(p["workload"], p["reason"]) for p in first] == [("default/batch-low", "InClusterQueue")]


@pytest.mark.parametrize("kind", KINDS)
def test_the_job_objects_built_here_are_valid_for_their_apis(kind: str) -> None:
    validate(job(kind, "big", "team-a", "team-a", 3))
    for doc in yaml.safe_load_all((SAMPLES / "quick-start-jobs.yaml").read_text()):
        validate(doc)
