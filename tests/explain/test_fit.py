"""Admitted but unschedulable (kueue #2665): Kueue admits on quota, no node of the flavor holds a pod."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from gpuplane.cli import app

GPU = "nvidia.com/gpu"
MIG_3G = "nvidia.com/mig-3g.40gb"


def _node(name: str, pool: str, allocatable: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"pool": pool}},
        "status": {"allocatable": {"cpu": "94", "memory": "880Gi", **allocatable}},
    }


def _setup(resource: str, quota: int) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "ResourceFlavor",
            "metadata": {"name": "a100"},
            "spec": {"nodeLabels": {"pool": "a100"}},
        },
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "ClusterQueue",
            "metadata": {"name": "cq"},
            "spec": {
                "namespaceSelector": {},
                "resourceGroups": [
                    {
                        "coveredResources": [resource],
                        "flavors": [
                            {"name": "a100", "resources": [{"name": resource, "nominalQuota": quota}]}
                        ],
                    }
                ],
            },
        },
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "LocalQueue",
            "metadata": {"name": "q", "namespace": "ml"},
            "spec": {"clusterQueue": "cq"},
        },
    ]


def _job(resource: str, per_pod: int, pods: int = 1) -> dict[str, Any]:
    pod = {
        "containers": [{"name": "c", "resources": {"limits": {resource: per_pod}}}],
        "restartPolicy": "Never",
    }
    meta = {"name": "train", "namespace": "ml", "labels": {"kueue.x-k8s.io/queue-name": "q"}}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta,
        "spec": {"parallelism": pods, "template": {"spec": pod}},
    }


def _explain(tmp_path: Path, *docs: dict[str, Any], spec: Path | None = None) -> dict[str, Any]:
    f = tmp_path / "in.yaml"
    f.write_text(yaml.safe_dump_all(docs))
    args = ["explain", "-f", str(f), "-o", "json"] + (["--spec", str(spec)] if spec else [])
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def test_a_pod_of_eight_gpus_on_one_gpu_nodes_is_unschedulable(tmp_path: Path) -> None:
    nodes = [_node(f"n{i}", "a100", {GPU: "1"}) for i in range(8)]
    out = _explain(tmp_path, *_setup(GPU, 8), *nodes, _job(GPU, 8))
    answer = out["whatIf"][0]
    assert answer["status"] == "unschedulable"
    assert "one pod asks for 8 nvidia.com/gpu; nodes of flavor a100 hold at most 1" in answer["answer"]
    assert out["cycles"][0]["admitted"][0]["unschedulable"].startswith("pod set main")


def test_eight_pods_of_one_gpu_fit_the_same_nodes(tmp_path: Path) -> None:
    nodes = [_node(f"n{i}", "a100", {GPU: "1"}) for i in range(8)]
    out = _explain(tmp_path, *_setup(GPU, 8), *nodes, _job(GPU, 1, pods=8))
    assert out["whatIf"][0]["status"] == "admitted" and out["unschedulable"] == []


def test_a_mig_profile_the_nodes_do_not_offer(tmp_path: Path) -> None:
    nodes = [_node("n0", "a100", {"nvidia.com/mig-1g.10gb": "7"})]
    out = _explain(tmp_path, *_setup(MIG_3G, 2), *nodes, _job(MIG_3G, 1))
    assert (
        "one pod asks for 1 nvidia.com/mig-3g.40gb; nodes of flavor a100 hold at most 0"
        in out["whatIf"][0]["answer"]
    )


def test_no_node_of_the_flavor_at_all(tmp_path: Path) -> None:
    nodes = [_node("n0", "t4", {GPU: "4"})]
    out = _explain(tmp_path, *_setup(GPU, 8), *nodes, _job(GPU, 1))
    assert "no node in the input carries the labels of flavor a100" in out["whatIf"][0]["answer"]


def test_without_node_shapes_nothing_is_claimed(tmp_path: Path) -> None:
    out = _explain(tmp_path, *_setup(GPU, 8), _job(GPU, 8))
    assert out["whatIf"][0]["status"] == "admitted" and "unschedulable" not in out


def test_platform_spec_pools_are_node_shapes(tmp_path: Path, repo_dir: Path) -> None:
    # examples/aks-platform.yaml: pool a100-spot is Standard_NC24ads_A100_v4 (1 GPU per node) and
    # team vision may use 6 of its GPUs; a100-mig offers 3g.40gb, 2g.20gb and 1g.10gb slices.
    spec = repo_dir / "examples" / "aks-platform.yaml"
    rendered = CliRunner().invoke(app, ["render", str(spec), "-o", "-"])
    assert rendered.exit_code == 0, rendered.output
    kueue = [
        d for d in yaml.safe_load_all(rendered.stdout) if d and "kueue.x-k8s.io" in d.get("apiVersion", "")
    ]
    big = _job(GPU, 4)
    big["metadata"]["namespace"] = big["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] = "vision"
    out = _explain(tmp_path, *kueue, big, spec=spec)
    answer = out["whatIf"][0]
    assert answer["status"] == "unschedulable"
    assert "one pod asks for 4 nvidia.com/gpu; nodes of flavor a100-spot hold at most 1" in answer["answer"]
