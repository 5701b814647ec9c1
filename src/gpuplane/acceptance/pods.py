"""The pod template of the training suite (steps 1, 2, 4 and 5), placed exactly as render places work.

The pod carries the label schema (team, workload class, pool), selects the pool's nodes with
the pool label and tolerates the pool's taints (the same `effective_taints`/`toleration_for` the
pool's ResourceFlavor uses), requests the pool's GPU resource, and runs the production image:
an init container copies the dataset sample and weights (step 2), the main container runs the
user's command for the window under the helper (steps 4 and 5). The helper comes from a
ConfigMap; the only thing asked of the image is python3, and the pod says so when it is missing.
"""

from __future__ import annotations

import json
import shlex
from typing import Any
from urllib.parse import urlsplit

from gpuplane.acceptance.helper import PROTOCOL
from gpuplane.acceptance.options import ResolvedSuite
from gpuplane.render.common import effective_taints, toleration_for
from gpuplane.vocab import LABEL_ACCEPTANCE, LABEL_ACCEPTANCE_STEP, LABEL_CLASS, LABEL_POOL, LABEL_TEAM

__all__ = [
    "CHECKPOINT_CLAIM",
    "HELPER_CONFIGMAP",
    "NO_PYTHON_EXIT",
    "gpu_request",
    "gpu_resources",
    "pod_labels",
    "python_guard",
    "train_container",
    "train_kind",
    "train_pod_template",
]

HELPER_CONFIGMAP = "gpuplane-acceptance-helper"
HELPER_MOUNT = "/gpuplane"
HELPER_PATH = f"{HELPER_MOUNT}/helper.py"
DATA_MOUNT = "/data"
CHECKPOINT_MOUNT = "/checkpoints"
CHECKPOINT_CLAIM = "checkpoints"
PVC_SOURCE_MOUNT = "/mnt/source"
#: Exit status of a suite container whose image has no python3 (not a status python itself uses).
NO_PYTHON_EXIT = 97
# Where a restarted pod finds its own rank: Indexed Jobs (Job, JobSet) set JOB_COMPLETION_INDEX;
# the Training Operator sets RANK on PyTorchJob pods (kubeflow/training-operator
# pkg/controller.v1/pytorch/envvar.go setPodEnv: master 0, worker index + 1) and requires the
# container to be called "pytorch" (pytorchv1.DefaultContainerName).
RANK_ENV = {"job": "JOB_COMPLETION_INDEX", "jobset": "JOB_COMPLETION_INDEX", "pytorchjob": "RANK"}
CONTAINER = {"job": "train", "jobset": "train", "pytorchjob": "pytorch"}


def train_kind(suite: ResolvedSuite) -> str:
    """The workload kind step 1 uses: a Job on one node, else the chosen multi-node kind."""
    return "job" if suite.options.nodes == 1 else suite.options.multi_node_kind


def train_container(suite: ResolvedSuite) -> str:
    """Name of the training container (the runner reads its log)."""
    return CONTAINER[train_kind(suite)]


def python_guard(step: str) -> str:
    """A POSIX sh prologue: without python3, print one JSON line and a plain sentence, exit 97."""
    record = json.dumps({"gpuplane": PROTOCOL, "event": "no_python", "step": step}, sort_keys=True)
    return (
        "command -v python3 >/dev/null 2>&1 || { "
        f"echo {shlex.quote(record)}; "
        "echo 'gpuplane acceptance: this image has no python3; the acceptance helper needs it "
        "(add python3 to the production image)' >&2; "
        f'exit {NO_PYTHON_EXIT}; }}; exec "$@"'
    )


def pod_labels(suite: ResolvedSuite, step: str) -> dict[str, str]:
    """The label schema every suite pod carries (checked again in step 6)."""
    return {
        LABEL_ACCEPTANCE: suite.namespace,
        LABEL_ACCEPTANCE_STEP: step,
        LABEL_CLASS: "training",
        LABEL_POOL: suite.pool.name,
        LABEL_TEAM: suite.team.name,
    }


def gpu_request(suite: ResolvedSuite) -> int:
    """Units of the pool's resource one pod requests: a whole node, or one share on shared pools."""
    return suite.units_per_node if suite.pool.sharing.mode == "exclusive" else 1


def _helper_source(url: str) -> tuple[str, dict[str, str] | None]:
    """The URL the helper reads, and the volume to mount for a pvc:// source."""
    parts = urlsplit(url)
    if parts.scheme != "pvc":
        return url, None
    mount = f"{PVC_SOURCE_MOUNT}/{parts.netloc}"
    return f"file://{mount}{parts.path}", {"claim": parts.netloc, "mount": mount}


def _sources(suite: ResolvedSuite) -> tuple[list[str], list[dict[str, str]]]:
    args: list[str] = []
    pvcs: list[dict[str, str]] = []
    for what, url in (("dataset", suite.options.dataset), ("weights", suite.options.weights)):
        if url is None:
            continue
        shown, pvc = _helper_source(url)
        args += ["--source", f"{what}={shown}"]
        if pvc is not None and pvc not in pvcs:
            pvcs.append(pvc)
    return args, pvcs


def gpu_resources(suite: ResolvedSuite) -> dict[str, Any]:
    """The container's GPU (and, across nodes, fabric device) requests and limits. Quantities are
    strings, as the API server writes them: the kubernetes client 37 validates bodies against
    `V1ResourceRequirements` (`Dict[str, StrictStr]`) and refuses an integer before sending (see
    `acceptance.cluster`)."""
    wanted = {suite.resource: str(gpu_request(suite)), **suite.fabric_needs.devices}
    return {"limits": dict(wanted), "requests": dict(wanted)}


def _guarded(step: str, argv: list[str]) -> list[str]:
    return ["sh", "-c", python_guard(step), "sh", *argv]


def _env_from(suite: ResolvedSuite) -> list[dict[str, Any]] | None:
    if suite.options.s3_secret is None:
        return None
    return [{"secretRef": {"name": suite.options.s3_secret}}]


def _fetch_container(
    suite: ResolvedSuite, source_args: list[str], mounts: list[dict[str, Any]]
) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": "fetch",
        "image": suite.options.image,
        "command": _guarded("fetch", ["python3", HELPER_PATH, "fetch", "--to", DATA_MOUNT, *source_args]),
        "volumeMounts": mounts,
    }
    env_from = _env_from(suite)
    if env_from:
        container["envFrom"] = env_from
    return container


def _env(pairs: dict[str, str]) -> list[dict[str, Any]]:
    return [{"name": k, "value": v} for k, v in pairs.items()]


def _train_container(
    suite: ResolvedSuite, mounts: list[dict[str, Any]], env: list[dict[str, Any]]
) -> dict[str, Any]:
    run = [
        "python3",
        HELPER_PATH,
        "run",
        "--window",
        f"{suite.options.window_s:g}",
        "--checkpoint-dir",
        f"{CHECKPOINT_MOUNT}/rank-$({RANK_ENV[train_kind(suite)]})",
    ]
    if suite.options.progress_regex:
        run += ["--progress-regex", suite.options.progress_regex]
    return {
        "name": train_container(suite),
        "image": suite.options.image,
        "command": _guarded("train", [*run, "--", *suite.options.command]),
        "env": [{"name": "GPUPLANE_DATA_DIR", "value": DATA_MOUNT}, *_env(suite.fabric_needs.env), *env],
        "resources": gpu_resources(suite),
        "volumeMounts": mounts,
    }


def train_pod_template(
    suite: ResolvedSuite, restart_policy: str = "Never", env: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The pod template of the training workload (steps 1, 2, 4, 5); `env` is added to the training
    container (the rendezvous of a multi-node workload)."""
    source_args, pvcs = _sources(suite)
    helper: dict[str, Any] = {"name": "helper", "mountPath": HELPER_MOUNT, "readOnly": True}
    data: dict[str, Any] = {"name": "data", "mountPath": DATA_MOUNT}
    fetch_mounts = [helper, data] + [
        {"name": f"source-{p['claim']}", "mountPath": p["mount"], "readOnly": True} for p in pvcs
    ]
    train_mounts = [helper, data, {"name": "checkpoints", "mountPath": CHECKPOINT_MOUNT}]
    volumes: list[dict[str, Any]] = [
        {"name": "helper", "configMap": {"name": HELPER_CONFIGMAP, "defaultMode": 0o555}},
        {"name": "data", "emptyDir": {}},
        {"name": "checkpoints", "persistentVolumeClaim": {"claimName": CHECKPOINT_CLAIM}},
    ]
    volumes += [
        {"name": f"source-{p['claim']}", "persistentVolumeClaim": {"claimName": p["claim"], "readOnly": True}}
        for p in pvcs
    ]
    spec: dict[str, Any] = {
        "restartPolicy": restart_policy,
        "nodeSelector": {LABEL_POOL: suite.pool.name},
    }
    tolerations = [toleration_for(t) for t in effective_taints(suite.spec, suite.pool)]
    if tolerations:
        spec["tolerations"] = tolerations
    if source_args:
        spec["initContainers"] = [_fetch_container(suite, source_args, fetch_mounts)]
    spec["containers"] = [_train_container(suite, train_mounts, env or [])]
    spec["volumes"] = volumes
    return {"metadata": {"labels": pod_labels(suite, "train")}, "spec": spec}
