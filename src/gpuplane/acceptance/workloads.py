"""The suite's Kubernetes objects: its namespace set, the helper ConfigMap, the checkpoint PVC, the
training workload (a Job, or a JobSet across nodes) and the NCCL MPIJob (step 3).

Namespaces and LocalQueues come from `render.tenancy` and `render.kueue` for a copy of the team
whose only namespace is the suite's, so the suite is admitted by the team's ClusterQueue through
a LocalQueue named as render names it.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from gpuplane.acceptance.options import ResolvedSuite
from gpuplane.acceptance.placement import placement
from gpuplane.acceptance.pods import (
    CHECKPOINT_CLAIM,
    HELPER_CONFIGMAP,
    gpu_request,
    gpu_resources,
    pod_labels,
    train_pod_template,
)
from gpuplane.acceptance.thresholds import nccl_config
from gpuplane.render import kueue, tenancy
from gpuplane.render.common import effective_taints, k8s_object, metadata, toleration_for
from gpuplane.spec import derived
from gpuplane.vocab import (
    JOB_COMPLETION_INDEX_ANNOTATION,
    LABEL_ACCEPTANCE,
    LABEL_ACCEPTANCE_STEP,
    LABEL_POOL,
    LABEL_TEAM,
    PRIORITY_CLASS_LABEL,
    QUEUE_NAME_LABEL,
    TAS_PODSET_GROUP_ANNOTATION,
)

__all__ = ["NCCL_NAME", "TRAIN_NAME", "base_objects", "helper_source", "nccl_mpijob", "train_workload"]

TRAIN_NAME = "train"
NCCL_NAME = "nccl-allreduce"
REPLICATED_JOB = "trainer"
#: torchrun's default --master-port (torch/distributed/run.py, `--master-port` default 29500).
RENDEZVOUS_PORT = "29500"
# Retries after the runner deletes a pod in step 5 (the deleted pod counts as one failure).
BACKOFF_LIMIT = 3


def helper_source() -> str:
    """The in-pod helper's source text (what the ConfigMap carries)."""
    return resources.files("gpuplane.acceptance").joinpath("helper.py").read_text(encoding="utf-8")


def _suite_labels(suite: ResolvedSuite) -> dict[str, str]:
    return {LABEL_ACCEPTANCE: suite.namespace, LABEL_TEAM: suite.team.name}


def base_objects(suite: ResolvedSuite) -> list[dict[str, Any]]:
    """Namespace, its NetworkPolicies, LocalQueue, helper ConfigMap and checkpoint PVC, in apply order.

    The NetworkPolicies are those of the teams with quota on the pool (`tenancy.pool_network_policies`:
    default deny, DNS, the namespace's own pods, the egress the spec opens), so the data and egress
    step meets the policy production jobs meet (issue 21)."""
    team = suite.team.model_copy(update={"namespaces": [suite.namespace]})
    ns = tenancy.namespace(suite.spec, team, suite.namespace)
    ns["metadata"]["labels"] = dict(
        sorted({**ns["metadata"]["labels"], LABEL_ACCEPTANCE: suite.namespace}.items())
    )
    queues = kueue.local_queues(team, suite.options.kueue_api)
    for queue in queues:
        queue["metadata"]["labels"] = dict(
            sorted({**queue["metadata"]["labels"], **_suite_labels(suite)}.items())
        )
    config = k8s_object(
        "v1",
        "ConfigMap",
        metadata(HELPER_CONFIGMAP, namespace=suite.namespace, labels=_suite_labels(suite)),
        data={"helper.py": helper_source()},
    )
    access = "ReadWriteOnce" if suite.options.nodes == 1 else "ReadWriteMany"
    pvc_spec: dict[str, Any] = {
        "accessModes": [access],
        "resources": {"requests": {"storage": suite.options.checkpoint_size}},
    }
    if suite.options.storage_class:
        pvc_spec["storageClassName"] = suite.options.storage_class
    pvc = k8s_object(
        "v1",
        "PersistentVolumeClaim",
        metadata(CHECKPOINT_CLAIM, namespace=suite.namespace, labels=_suite_labels(suite)),
        spec=pvc_spec,
    )
    policies = tenancy.pool_network_policies(
        suite.spec, suite.namespace, suite.pool.name, _suite_labels(suite)
    )
    return [ns, *policies, *queues, config, pvc]


def _kueue_labels(suite: ResolvedSuite, step: str) -> dict[str, str]:
    labels = {**_suite_labels(suite), QUEUE_NAME_LABEL: derived.local_queue_name(suite.team)}
    labels[LABEL_ACCEPTANCE_STEP] = step
    if suite.team.priority_class:
        labels[PRIORITY_CLASS_LABEL] = suite.team.priority_class
    return labels


def _job_spec(suite: ResolvedSuite, pods: int) -> dict[str, Any]:
    return {
        "parallelism": pods,
        "completions": pods,
        "completionMode": "Indexed",
        "backoffLimit": BACKOFF_LIMIT,
        "suspend": True,
        "template": train_pod_template(suite),
    }


def train_workload(suite: ResolvedSuite) -> dict[str, Any]:
    """Step 1's queued training workload: a Job on one node, a JobSet across several."""
    meta = metadata(TRAIN_NAME, namespace=suite.namespace, labels=_kueue_labels(suite, "train"))
    if suite.options.nodes == 1:
        return k8s_object("batch/v1", "Job", meta, spec=_job_spec(suite, 1))
    if suite.options.multi_node_kind == "pytorchjob":
        return _pytorchjob(suite, meta)
    job = _job_spec(suite, suite.options.nodes)
    job["template"] = _placed(suite, train_pod_template(suite, env=_jobset_rendezvous(suite)))
    job.pop("suspend")
    spec = {
        "suspend": True,
        # DNS hostnames (JobSet's default, written out): pod N is `train-trainer-0-N.train`
        "network": {"enableDNSHostnames": True, "subdomain": TRAIN_NAME},
        "replicatedJobs": [{"name": REPLICATED_JOB, "replicas": 1, "template": {"spec": job}}],
    }
    return k8s_object("jobset.x-k8s.io/v1alpha2", "JobSet", meta, spec=spec)


def _jobset_rendezvous(suite: ResolvedSuite) -> list[dict[str, Any]]:
    """torchrun's static rendezvous through its `PET_*` environment (torch/distributed/argparse_util.py
    `env` action: an option's value comes from PET_<OPTION> when not given on the command line):
    the node count, this pod's node rank (its Job completion index) and the coordinator, pod 0 by
    the hostname JobSet gives it (jobset pkg/webhooks/jobset_webhook.go: DNS hostnames on by default,
    subdomain the JobSet's name; pod hostname `<jobset>-<replicatedJob>-<jobIndex>-<podIndex>`)."""
    return [
        {"name": "PET_NNODES", "value": str(suite.options.nodes)},
        {
            "name": "PET_NODE_RANK",
            "valueFrom": {
                "fieldRef": {"fieldPath": f"metadata.annotations['{JOB_COMPLETION_INDEX_ANNOTATION}']"}
            },
        },
        {"name": "PET_MASTER_ADDR", "value": f"{TRAIN_NAME}-{REPLICATED_JOB}-0-0.{TRAIN_NAME}"},
        {"name": "PET_MASTER_PORT", "value": RENDEZVOUS_PORT},
    ]


def _pytorchjob(suite: ResolvedSuite, meta: dict[str, Any]) -> dict[str, Any]:
    """A Kubeflow Training Operator PyTorchJob: one Master and N-1 Workers (RANK set per pod)."""
    replicas = {"Master": 1, "Worker": suite.options.nodes - 1}
    specs = {
        role: {
            "replicas": count,
            "restartPolicy": "OnFailure",
            "template": _placed(suite, train_pod_template(suite, "OnFailure"), group=TRAIN_NAME),
        }
        for role, count in replicas.items()
    }
    # nprocPerNode makes the Training Operator set PET_NPROC_PER_NODE, PET_NODE_RANK and PET_NNODES
    # beside MASTER_ADDR/MASTER_PORT (pkg/controller.v1/pytorch/envvar.go setPodEnv); the helper
    # passes MASTER_ADDR/PORT on as PET_MASTER_ADDR/PORT for torchrun.
    spec = {
        "nprocPerNode": str(gpu_request(suite)),
        "pytorchReplicaSpecs": specs,
        "runPolicy": {"suspend": True, "backoffLimit": BACKOFF_LIMIT},
    }
    return k8s_object("kubeflow.org/v1", "PyTorchJob", meta, spec=spec)


def _placed(suite: ResolvedSuite, template: dict[str, Any], group: str | None = None) -> dict[str, Any]:
    """The pod template with the placement level the pool promises (`acceptance.placement`): the
    Kueue TAS annotation, and a pod-set group when several pod sets must share the domain."""
    place = placement(suite)
    if place is None:
        return template
    annotations = place.annotations()
    if group is not None:
        annotations[TAS_PODSET_GROUP_ANNOTATION] = group
    template["metadata"]["annotations"] = dict(sorted(annotations.items()))
    return template


def _fill(args: list[str], values: dict[str, str]) -> list[str]:
    return [a.format(**values) for a in args]


def _nccl_pod(suite: ResolvedSuite, role: str, container: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {"nodeSelector": {LABEL_POOL: suite.pool.name}}
    tolerations = [toleration_for(t) for t in effective_taints(suite.spec, suite.pool)]
    if tolerations:
        spec["tolerations"] = tolerations
    spec["containers"] = [container]
    return {"metadata": {"labels": pod_labels(suite, f"nccl-{role}")}, "spec": spec}


def nccl_mpijob(suite: ResolvedSuite) -> dict[str, Any]:
    """Step 3: all_reduce_perf over every GPU of every node, one MPI rank per GPU (mpi-operator v2beta1)."""
    cfg = nccl_config()
    gpus = gpu_request(suite)
    ranks = str(gpus * suite.options.nodes)
    values = {"ranks": ranks, "max_bytes": suite.nccl_max_bytes}
    fabric_env = [arg for k, v in suite.fabric_needs.env.items() for arg in ("-x", f"{k}={v}")]
    launcher_cmd = [*_fill(cfg["mpirun"], values), *fabric_env, cfg["binary"], *_fill(cfg["flags"], values)]
    launcher = {"name": "launcher", "image": suite.options.image, "command": launcher_cmd}
    worker = {
        "name": "worker",
        "image": suite.options.image,
        "command": list(cfg["worker_command"]),
        "resources": gpu_resources(suite),
    }
    spec = {
        "slotsPerWorker": gpus,
        "runPolicy": {"cleanPodPolicy": "Running", "backoffLimit": 0, "suspend": True},
        "mpiImplementation": "OpenMPI",
        "sshAuthMountPath": cfg["ssh_auth_mount_path"],
        "mpiReplicaSpecs": {
            "Launcher": {"replicas": 1, "template": _nccl_pod(suite, "launcher", launcher)},
            "Worker": {
                "replicas": suite.options.nodes,
                "template": _placed(suite, _nccl_pod(suite, "worker", worker)),
            },
        },
    }
    meta = metadata(NCCL_NAME, namespace=suite.namespace, labels=_kueue_labels(suite, "nccl"))
    return k8s_object("kubeflow.org/v2beta1", "MPIJob", meta, spec=spec)
