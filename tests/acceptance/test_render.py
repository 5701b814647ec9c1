"""`acceptance render` for every example pool: valid objects, placed exactly as render places work."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml
from typer.testing import CliRunner

from gpuplane.acceptance.workloads import helper_source
from gpuplane.cli import app
from gpuplane.render import render_all
from gpuplane.spec import load_spec
from gpuplane.vocab import FABRIC_RESOURCES, QUEUE_NAME_LABEL
from tests.acceptance.helpers import EXAMPLES, IMAGE, example_pools, suite_for
from tests.support.crds import validate_crd_object

POOLS = example_pools()
CRDS = {
    "LocalQueue": "kueue/kueue.x-k8s.io_localqueues.yaml",
    "JobSet": "jobset/jobset.x-k8s.io_jobsets.yaml",
    "MPIJob": "mpi-operator/kubeflow.org_mpijobs.yaml",
    "PyTorchJob": "kubeflow-training-operator-v1/kubeflow.org_pytorchjobs.yaml",
}
MULTI_NODE = [
    (e, p)
    for e, p in POOLS
    if (pool := load_spec(e).pool(p)) and pool.max_nodes >= 2 and pool.sharing.mode == "exclusive"
]


def _objects(files: dict[str, str]) -> list[dict[str, Any]]:
    return [
        d for path in sorted(files) if path.endswith(".yaml") for d in yaml.safe_load_all(files[path]) if d
    ]


def _validate(obj: dict[str, Any], version: str, shared: Path) -> None:
    if obj["kind"] in CRDS:
        validate_crd_object(obj, shared / "crds" / CRDS[obj["kind"]])
    else:
        kubernetes_validate.validate(obj, version, strict=True)


def test_every_example_has_pools_to_accept() -> None:
    assert len(POOLS) == 11 and len(MULTI_NODE) >= 4


def test_a_dra_pool_is_refused_with_the_reason(tmp_path: Path) -> None:
    args = ["acceptance", "render", str(EXAMPLES[0].parent / "eks-dra.yaml"), "--pool", "h100-train"]
    args += ["--image", IMAGE, "--command", "python train.py", "-o", str(tmp_path / "suite")]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 2
    assert "DRA claims" in done.output and "--pool" in done.output


@pytest.mark.parametrize(("example", "pool"), POOLS, ids=[f"{e.stem}-{p}" for e, p in POOLS])
def test_single_node_suite_objects_validate(example: Path, pool: str, shared_dir: Path) -> None:
    spec, suite = suite_for(example, pool)
    objects = _objects(suite.files)
    assert [o["kind"] for o in objects] == [
        "Namespace",
        "NetworkPolicy",
        "NetworkPolicy",
        "NetworkPolicy",
        "LocalQueue",
        "ConfigMap",
        "PersistentVolumeClaim",
        "Job",
    ]
    for obj in objects:
        _validate(obj, f"{spec.cluster.kubernetes_version}.0", shared_dir)


@pytest.mark.parametrize(("example", "pool"), MULTI_NODE, ids=[f"{e.stem}-{p}" for e, p in MULTI_NODE])
def test_multi_node_suite_objects_validate(example: Path, pool: str, shared_dir: Path) -> None:
    spec, suite = suite_for(example, pool, nodes=2, nccl_min_busbw=100.0)
    objects = _objects(suite.files)
    assert [o["kind"] for o in objects] == [
        "Namespace",
        "NetworkPolicy",
        "NetworkPolicy",
        "NetworkPolicy",
        "LocalQueue",
        "ConfigMap",
        "PersistentVolumeClaim",
        "MPIJob",
        "JobSet",
    ]
    for obj in objects:
        _validate(obj, f"{spec.cluster.kubernetes_version}.0", shared_dir)
    mpi = next(o for o in objects if o["kind"] == "MPIJob")
    launcher = mpi["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]
    gpus = mpi["spec"]["slotsPerWorker"]
    assert launcher["command"][launcher["command"].index("-np") + 1] == str(2 * gpus)
    assert "all_reduce_perf" in launcher["command"] and launcher["image"] == IMAGE


@pytest.mark.parametrize(("example", "pool"), MULTI_NODE, ids=[f"{e.stem}-{p}" for e, p in MULTI_NODE])
def test_multi_node_suite_as_a_pytorchjob_validates(example: Path, pool: str, shared_dir: Path) -> None:
    spec, suite = suite_for(example, pool, nodes=3, nccl_min_busbw=100.0, multi_node_kind="pytorchjob")
    objects = _objects(suite.files)
    job = objects[-1]
    assert job["kind"] == "PyTorchJob"
    _validate(job, f"{spec.cluster.kubernetes_version}.0", shared_dir)
    replicas = job["spec"]["pytorchReplicaSpecs"]
    assert (replicas["Master"]["replicas"], replicas["Worker"]["replicas"]) == (1, 2)
    container = replicas["Worker"]["template"]["spec"]["containers"][0]
    assert container["name"] == "pytorch" and "/checkpoints/rank-$(RANK)" in container["command"]
    assert suite.info["train_container"] == "pytorch"


def test_the_crd_check_rejects_a_field_the_crd_does_not_have(shared_dir: Path) -> None:
    _, suite = suite_for(EXAMPLES[0], "a100-spot", nodes=2, nccl_min_busbw=100.0)
    jobset = next(o for o in _objects(suite.files) if o["kind"] == "JobSet")
    jobset["spec"]["replicatedJobs"][0]["parallelism"] = 2  # belongs in the Job template, not here
    with pytest.raises(jsonschema.ValidationError):
        validate_crd_object(jobset, shared_dir / "crds" / CRDS["JobSet"])


def _pod_specs(obj: dict[str, Any]) -> list[dict[str, Any]]:
    if obj["kind"] == "Job":
        return [obj["spec"]["template"]["spec"]]
    if obj["kind"] == "JobSet":
        return [r["template"]["spec"]["template"]["spec"] for r in obj["spec"]["replicatedJobs"]]
    if obj["kind"] == "PyTorchJob":
        return [r["template"]["spec"] for r in obj["spec"]["pytorchReplicaSpecs"].values()]
    return [r["template"]["spec"] for r in obj["spec"]["mpiReplicaSpecs"].values()]


@pytest.mark.parametrize(("example", "pool"), MULTI_NODE, ids=[f"{e.stem}-{p}" for e, p in MULTI_NODE])
@pytest.mark.parametrize("kind", ["jobset", "pytorchjob"])
def test_suite_lands_on_the_pool_flavor_through_the_team_queue(example: Path, pool: str, kind: str) -> None:
    spec, suite = suite_for(example, pool, nodes=2, nccl_min_busbw=100.0, multi_node_kind=kind)
    rendered = [d for p in render_all(spec).objects.values() for d in p]
    flavor = next(o for o in rendered if o["kind"] == "ResourceFlavor" and o["metadata"]["name"] == pool)
    objects = _objects(suite.files)
    namespace = next(o for o in objects if o["kind"] == "Namespace")
    queue = next(o for o in objects if o["kind"] == "LocalQueue")
    cq = next(
        o
        for o in rendered
        if o["kind"] == "ClusterQueue" and o["metadata"]["name"] == queue["spec"]["clusterQueue"]
    )
    selector = cq["spec"]["namespaceSelector"]["matchLabels"]
    assert selector.items() <= namespace["metadata"]["labels"].items()
    group = cq["spec"]["resourceGroups"][0]
    assert pool in [f["name"] for f in group["flavors"]]
    for obj in objects:
        if obj["kind"] not in ("Job", "JobSet", "PyTorchJob", "MPIJob"):
            continue
        assert obj["metadata"]["labels"][QUEUE_NAME_LABEL] == queue["metadata"]["name"]
        for pod in _pod_specs(obj):
            assert pod["nodeSelector"].items() <= flavor["spec"]["nodeLabels"].items()
            assert pod.get("tolerations", []) == flavor["spec"].get("tolerations", [])
            for container in pod["containers"]:
                limits = set(container.get("resources", {}).get("limits", {}))
                # fabric devices are not quota: Kueue must be told to ignore them (the suite's note)
                assert limits - set(FABRIC_RESOURCES.values()) <= set(group["coveredResources"])
                if limits & set(FABRIC_RESOURCES.values()):
                    assert any("excludeResourcePrefixes" in n for n in suite.notes)


def test_render_is_deterministic() -> None:
    _, first = suite_for(EXAMPLES[0], "a100-mig")
    _, second = suite_for(EXAMPLES[0], "a100-mig")
    assert first.files == second.files


def test_the_helper_is_standard_library_only() -> None:
    tree = ast.parse(helper_source())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported - {"__future__"} <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)


def test_configmap_carries_the_helper_and_the_pod_runs_the_users_command() -> None:
    _, suite = suite_for(EXAMPLES[0], "a100-spot")
    objects = _objects(suite.files)
    config = next(o for o in objects if o["kind"] == "ConfigMap")
    assert config["data"]["helper.py"] == helper_source()
    job = next(o for o in objects if o["kind"] == "Job")
    train = job["spec"]["template"]["spec"]["containers"][0]
    assert train["image"] == IMAGE
    assert train["command"][-6:] == [
        "--",
        "torchrun",
        "--nproc-per-node=8",
        "train.py",
        "--config",
        "prod.yaml",
    ]
    fetch = job["spec"]["template"]["spec"]["initContainers"][0]
    assert "dataset=s3://datasets/sample/" in fetch["command"]


def test_cli_render_writes_the_suite_and_bad_options_are_usage_errors(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    args = ["acceptance", "render", str(EXAMPLES[0]), "--pool", "a100-spot", "--image", IMAGE, "-o", str(out)]
    result = CliRunner().invoke(app, [*args, "--command", "python3 train.py"])
    assert result.exit_code == 0, result.output
    assert (out / "suite.json").is_file() and (out / "manifests" / "20-step1-train.yaml").is_file()
    bad = CliRunner().invoke(app, [*args[:4], "nope", *args[5:], "--command", "x"])
    assert bad.exit_code == 2
    assert "--pool: the spec has no pool 'nope'; GPU pools: a100-spot, a100-mig, t4-dev" in bad.output
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep")
    refused = CliRunner().invoke(app, [*args[:-1], str(foreign), "--command", "x"])
    assert refused.exit_code == 2 and "refusing to replace it" in refused.output
    assert (foreign / "notes.txt").read_text() == "keep"


@pytest.mark.parametrize("command", ["render", "run", "score"])
def test_help_of_every_acceptance_command(command: str) -> None:
    result = CliRunner().invoke(app, ["acceptance", command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage: gpuplane acceptance " + command in result.output
