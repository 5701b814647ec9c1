"""Multi-node suites use the pool's fabric (issue 22, Deliver 6): fabric devices and NCCL environment
per fabric, a working torchrun rendezvous for JobSet and PyTorchJob, and no placeholder digest.

Expected values come from the data's sources (data/fabrics.yaml: 32 EFA interfaces on p5.48xlarge,
one rdma/shared_ib per pod), JobSet's pod hostname rule and the Training Operator's environment.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest

from gpuplane.acceptance import helper
from gpuplane.acceptance.suite import Suite
from gpuplane.errors import UsageError
from gpuplane.vocab import EFA_RESOURCE, GPU_RESOURCE, JOB_COMPLETION_INDEX_ANNOTATION, RDMA_SHARED_RESOURCE
from tests.acceptance.helpers import EXAMPLES, IMAGE, suite_for
from tests.support.crds import validate_crd_object

EKS = next(e for e in EXAMPLES if e.stem == "eks-mixed")
CRDS = {
    "LocalQueue": "kueue/kueue.x-k8s.io_localqueues.yaml",
    "JobSet": "jobset/jobset.x-k8s.io_jobsets.yaml",
    "PyTorchJob": "kubeflow-training-operator-v1/kubeflow.org_pytorchjobs.yaml",
    "MPIJob": "mpi-operator/kubeflow.org_mpijobs.yaml",
}


def _objects(suite: Suite) -> dict[str, dict[str, Any]]:
    return {o["kind"]: o for objects in suite.objects.values() for o in objects}


def _train_container(obj: dict[str, Any]) -> dict[str, Any]:
    if obj["kind"] == "JobSet":
        pod = obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    elif obj["kind"] == "PyTorchJob":
        pod = obj["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]
    else:
        pod = obj["spec"]["template"]["spec"]
    container: dict[str, Any] = pod["containers"][0]
    return container


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env", [])}


@pytest.mark.parametrize("kind", ["jobset", "pytorchjob"])
def test_an_efa_pool_requests_every_efa_interface_and_sets_the_efa_environment(kind: str) -> None:
    _, suite = suite_for(EKS, "h100-train", nodes=2, multi_node_kind=kind)
    objects = _objects(suite)
    train = _train_container(objects["JobSet" if kind == "jobset" else "PyTorchJob"])
    wanted = {GPU_RESOURCE: "8", EFA_RESOURCE: "32"}
    assert train["resources"] == {"limits": wanted, "requests": wanted}
    env = _env(train)
    assert (env["FI_PROVIDER"], env["FI_EFA_USE_DEVICE_RDMA"]) == ("efa", "1")
    mpijob = objects["MPIJob"]
    worker = mpijob["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    assert worker["resources"]["limits"] == wanted
    # mpirun starts the ranks over ssh, which drops the container environment: passed with -x
    launcher = mpijob["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]
    command = launcher["command"]
    assert "FI_PROVIDER=efa" in command and command[command.index("FI_PROVIDER=efa") - 1] == "-x"
    assert any("excludeResourcePrefixes" in n and "vpc.amazonaws.com/" in n for n in suite.notes)


def test_a_single_node_suite_requests_no_fabric_device() -> None:
    _, suite = suite_for(EKS, "h100-train", nodes=1)
    train = _train_container(_objects(suite)["Job"])
    assert train["resources"]["limits"] == {GPU_RESOURCE: "8"}
    assert "FI_PROVIDER" not in _env(train)


def test_infiniband_requests_the_shared_rdma_resource_once_per_pod() -> None:
    _, suite = suite_for(EKS, "h100-train", nodes=2, fabric="infiniband", nccl_min_busbw=100.0)
    train = _train_container(_objects(suite)["JobSet"])
    assert train["resources"]["limits"] == {GPU_RESOURCE: "8", RDMA_SHARED_RESOURCE: "1"}


def test_a_fabric_without_a_device_count_for_the_vm_is_a_usage_error() -> None:
    spec_path = next(e for e in EXAMPLES if e.stem == "gke-h100")
    from gpuplane.spec import load_spec

    spec = load_spec(spec_path)
    pool = next(p for p in spec.node_pools if p.is_gpu and p.sharing.mode == "exclusive" and p.max_nodes > 1)
    with pytest.raises(UsageError, match=rf"no {EFA_RESOURCE} device count is known for VM size"):
        suite_for(spec_path, pool.name, nodes=2, fabric="efa", nccl_min_busbw=100.0)


def test_tcpxo_says_the_suite_does_not_render_its_networking() -> None:
    _, suite = suite_for(EKS, "h100-train", nodes=2, fabric="tcpxo")
    assert any("GPUDirect-TCPXO" in n for n in suite.notes)
    train = _train_container(_objects(suite)["JobSet"])
    assert set(train["resources"]["limits"]) == {GPU_RESOURCE}


def test_the_jobset_rendezvous_points_at_pod_0_by_the_hostname_jobset_gives_it() -> None:
    _, suite = suite_for(EKS, "h100-train", nodes=3)
    jobset = _objects(suite)["JobSet"]
    env = _env(_train_container(jobset))
    network = jobset["spec"]["network"]
    assert network["enableDNSHostnames"] is True
    # jobset: pod hostname <jobset>-<replicatedJob>-<jobIndex>-<podIndex>, subdomain network.subdomain
    name, rjob = jobset["metadata"]["name"], jobset["spec"]["replicatedJobs"][0]["name"]
    assert env["PET_MASTER_ADDR"] == f"{name}-{rjob}-0-0.{network['subdomain']}"
    assert (env["PET_NNODES"], env["PET_MASTER_PORT"]) == ("3", "29500")
    field = env["PET_NODE_RANK"]["fieldRef"]["fieldPath"]
    assert field == f"metadata.annotations['{JOB_COMPLETION_INDEX_ANNOTATION}']"


def test_the_pytorchjob_asks_the_operator_for_the_rendezvous() -> None:
    _, suite = suite_for(EKS, "h100-train", nodes=2, multi_node_kind="pytorchjob")
    job = _objects(suite)["PyTorchJob"]
    assert job["spec"]["nprocPerNode"] == "8"


def test_the_helper_passes_the_operators_master_address_on_to_torchrun(tmp_path: Path) -> None:
    """The Training Operator sets MASTER_ADDR/PORT; torchrun reads PET_MASTER_ADDR/PORT."""
    probe = "import json, os; print(json.dumps({k: os.environ.get(k) for k in ('PET_MASTER_ADDR', 'PET_MASTER_PORT')}))"
    env = {"PATH": "/usr/bin:/bin", "MASTER_ADDR": "train-master-0", "MASTER_PORT": "23456"}
    done = subprocess.run(
        [sys.executable, str(Path(helper.__file__)), "run", "--window", "30", "--checkpoint-dir", str(tmp_path),
         "--", sys.executable, "-c", probe],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    line = next(x for x in done.stdout.splitlines() if x.startswith('{"PET_'))
    assert json.loads(line) == {"PET_MASTER_ADDR": "train-master-0", "PET_MASTER_PORT": "23456"}


@pytest.mark.parametrize(
    "digest",
    [
        "sha256:" + "0" * 64,
        "sha256:" + "f" * 64,
        "sha256:<digest>",
        "sha256:abc123",
        "sha256:" + "A" * 64,
        "md5:" + "5d" * 16,
    ],
)
def test_a_placeholder_or_malformed_digest_is_refused(digest: str) -> None:
    with pytest.raises(UsageError) as caught:
        suite_for(EKS, "h100-train", image=f"registry.example.com/llm/train@{digest}")
    assert caught.value.option == "--image"


def test_a_real_looking_digest_and_a_tag_render() -> None:
    suite_for(EKS, "h100-train", image=IMAGE)
    suite_for(EKS, "h100-train", image="registry.example.com/llm/train:2026-12-01")


@pytest.mark.parametrize(
    ("fabric", "kind"),
    [("efa", "jobset"), ("efa", "pytorchjob"), ("infiniband", "jobset"), ("infiniband", "pytorchjob")],
)
def test_fabric_jobs_validate_against_kubernetes_and_the_crds(
    fabric: str, kind: str, shared_dir: Path
) -> None:
    spec, suite = suite_for(
        EKS, "h100-train", nodes=2, fabric=fabric, multi_node_kind=kind, nccl_min_busbw=100.0
    )
    for obj in _objects(suite).values():
        if obj["kind"] in CRDS:
            validate_crd_object(obj, shared_dir / "crds" / CRDS[obj["kind"]])
        else:
            kubernetes_validate.validate(obj, f"{spec.cluster.kubernetes_version}.0", strict=True)
