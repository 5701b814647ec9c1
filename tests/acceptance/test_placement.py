"""Multi-node acceptance asks for the placement level the pool promises its teams (issue 22
Deliver 6): the NCCL workers and the training pods carry Kueue's TAS annotation with the team's
required (or preferred) level, names from gpuplane/vocab; objects validate against ../shared/crds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuplane.errors import UsageError
from gpuplane.vocab import TAS_PODSET_GROUP_ANNOTATION, TAS_PREFERRED_ANNOTATION, TAS_REQUIRED_ANNOTATION
from tests.acceptance.helpers import EXAMPLES, suite_for
from tests.support.crds import validate_crd_object

P5 = next(e for e in EXAMPLES if e.name == "eks-p5-tas.yaml")
A3 = next(e for e in EXAMPLES if e.name == "gke-a3mega-tas.yaml")
NO_TOPOLOGY = next(e for e in EXAMPLES if e.name == "eks-mixed.yaml")
CRDS = {
    "JobSet": "jobset/jobset.x-k8s.io_jobsets.yaml",
    "MPIJob": "mpi-operator/kubeflow.org_mpijobs.yaml",
    "PyTorchJob": "kubeflow-training-operator-v1/kubeflow.org_pytorchjobs.yaml",
}
EKS_L3 = "topology.k8s.aws/network-node-layer-3"  # the llm team's placement.required (examples)
GKE_SUBBLOCK = "cloud.google.com/gce-topology-subblock"  # the pretrain team's placement.required


def _by_kind(files: dict[str, str]) -> dict[str, dict[str, Any]]:
    docs = [d for p in sorted(files) if p.endswith(".yaml") for d in yaml.safe_load_all(files[p]) if d]
    return {d["kind"]: d for d in docs}


def _templates(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    spec = obj["spec"]
    if obj["kind"] == "MPIJob":
        return {role: r["template"] for role, r in spec["mpiReplicaSpecs"].items()}
    if obj["kind"] == "PyTorchJob":
        return {role: r["template"] for role, r in spec["pytorchReplicaSpecs"].items()}
    return {"trainer": spec["replicatedJobs"][0]["template"]["spec"]["template"]}


@pytest.mark.parametrize(
    ("example", "pool", "team", "level"),
    [(P5, "p5-train", "llm", EKS_L3), (A3, "a3mega", "pretrain", GKE_SUBBLOCK)],
)
def test_multi_node_pods_require_the_teams_level(
    example: Path, pool: str, team: str, level: str, shared_dir: Path
) -> None:
    _, suite = suite_for(example, pool, nodes=4, nccl_min_busbw=100.0, team=team)
    objects = _by_kind(suite.files)
    mpi, jobset = _templates(objects["MPIJob"]), _templates(objects["JobSet"])
    assert mpi["Worker"]["metadata"]["annotations"] == {TAS_REQUIRED_ANNOTATION: level}
    assert "annotations" not in mpi["Launcher"]["metadata"]  # the launcher joins no GPU domain
    assert jobset["trainer"]["metadata"]["annotations"] == {TAS_REQUIRED_ANNOTATION: level}
    assert suite.info["placement"] == {
        "level": level,
        "required": True,
        "annotation": TAS_REQUIRED_ANNOTATION,
        "why": f"team {team} placement.required",
    }
    for kind in ("MPIJob", "JobSet"):
        validate_crd_object(objects[kind], shared_dir / "crds" / CRDS[kind])


def test_a_pytorchjobs_master_and_workers_share_the_domain(shared_dir: Path) -> None:
    _, suite = suite_for(
        P5, "p5-train", nodes=3, nccl_min_busbw=100.0, team="llm", multi_node_kind="pytorchjob"
    )
    job = _by_kind(suite.files)["PyTorchJob"]
    for role, template in _templates(job).items():
        assert template["metadata"]["annotations"] == {
            TAS_PODSET_GROUP_ANNOTATION: "train",
            TAS_REQUIRED_ANNOTATION: EKS_L3,
        }, role
    validate_crd_object(job, shared_dir / "crds" / CRDS["PyTorchJob"])


def test_a_team_that_prefers_gets_the_preferred_annotation() -> None:
    _, suite = suite_for(P5, "p5-train", nodes=2, nccl_min_busbw=100.0, team="research")
    worker = _templates(_by_kind(suite.files)["MPIJob"])["Worker"]
    assert worker["metadata"]["annotations"] == {TAS_PREFERRED_ANNOTATION: EKS_L3}


def test_more_nodes_than_the_required_domain_holds_is_refused() -> None:
    # eks-p5-tas: network-node-layer-3 domains hold 8 nodes (topology.domainSizes)
    with pytest.raises(UsageError, match=r"hold 8 nodes.*a 9-node run could never be admitted"):
        suite_for(P5, "p5-train", nodes=9, nccl_min_busbw=100.0, team="llm")


def test_one_node_and_pools_without_topology_carry_no_annotation() -> None:
    _, single = suite_for(P5, "p5-train", team="llm")
    assert "annotations" not in _by_kind(single.files)["Job"]["spec"]["template"]["metadata"]
    assert single.info["placement"] is None
    _, flat = suite_for(NO_TOPOLOGY, "h100-train", nodes=2, nccl_min_busbw=100.0)
    worker = _templates(_by_kind(flat.files)["MPIJob"])["Worker"]
    assert "annotations" not in worker["metadata"] and flat.info["placement"] is None


@pytest.mark.parametrize(
    ("nodes", "level"),
    [
        (2, EKS_L3),
        (8, EKS_L3),
        (9, "topology.k8s.aws/network-node-layer-2"),
        (16, "topology.k8s.aws/network-node-layer-2"),
    ],
)
def test_without_a_declaration_the_finest_level_that_holds_the_nodes_is_preferred(
    nodes: int, level: str
) -> None:
    # layer-3 domains hold 8 nodes, layer-2 16, layer-1 the whole pool (no domain size)
    from gpuplane.acceptance.suite import render_suite
    from tests.acceptance.helpers import options_for
    from tests.render.render_helpers import spec_from

    text = P5.read_text()
    undeclared = text.replace("    placement: {required: topology.k8s.aws/network-node-layer-3}\n", "")
    assert undeclared != text
    spec = spec_from(undeclared)
    suite = render_suite(spec, options_for(spec, "p5-train", nodes=nodes, nccl_min_busbw=100.0, team="llm"))
    worker = _templates(_by_kind(suite.files)["MPIJob"])["Worker"]
    assert worker["metadata"]["annotations"] == {TAS_PREFERRED_ANNOTATION: level}
    assert suite.info["placement"]["required"] is False
