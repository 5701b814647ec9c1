"""CPU pools get a ResourceFlavor of their own, first in every ClusterQueue with cpu and memory
only, so Kueue admits CPU-only pod sets (Ray heads and submitters, MPI launchers, CPU Jobs) to CPU
nodes and GPU pod sets to the GPU flavors (Kueue's flavorassigner.go `findFlavorForPodSets`: the
first flavor of the group whose quota covers every requested resource wins).

Expected values are worked out by hand from the spec below: cpu-general has 8 vCPUs and 32 GiB per
node, maxNodes 4, split between 2 teams -> 16 cpu and 64Gi nominal each; the A100 pool's
Standard_NC24ads_A100_v4 has 24 vCPUs and 220 GiB per GPU, so 2 GPUs carry 48 cpu and 440Gi.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gpuplane.cli import app
from gpuplane.render import render_all
from gpuplane.render.kueue import kueue_objects
from tests.render.render_helpers import EXAMPLES, objects_of, rendered, spec_from
from tests.support.crds import validate

REPO = Path(__file__).resolve().parents[2]

CPU_SPEC = """
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: mixed, provider: aks, region: eastus, kubernetesVersion: "1.30", resourceGroup: rg}
nodePools:
  - name: a100-spot
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    maxNodes: 4
    spot: true
  - name: cpu-general
    vmSize: Standard_D8s_v5
    cpuPerNode: 8
    memoryGiBPerNode: 32
    minNodes: 1
    maxNodes: 4
teams:
  - name: vision
    namespaces: [vision]
    quotas: [{pool: a100-spot, nominal: 2}]
  - name: nlp
    namespaces: [nlp]
    quotas: [{pool: a100-spot, nominal: 2}]
"""

# A RayJob (head, one GPU worker group, the K8sJobMode submitter) and an MPIJob (launcher, workers),
# modelled on Kueue's site examples ray-job-sample.yaml and sample-mpijob.yaml.
JOBS = """\
apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: infer
  namespace: vision
  labels: {kueue.x-k8s.io/queue-name: vision}
spec:
  entrypoint: python infer.py
  suspend: true
  rayClusterSpec:
    headGroupSpec:
      template:
        spec:
          containers:
          - {name: head, image: ray, resources: {requests: {cpu: "2", memory: 8Gi}}}
    workerGroupSpecs:
    - groupName: gpu
      replicas: 2
      template:
        spec:
          containers:
          - {name: w, image: ray, resources: {requests: {cpu: "8", memory: 32Gi, nvidia.com/gpu: "1"}}}
---
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: allreduce
  namespace: nlp
  labels: {kueue.x-k8s.io/queue-name: nlp}
spec:
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - {name: l, image: x, resources: {requests: {cpu: "1", memory: 2Gi}}}
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - {name: w, image: x, resources: {requests: {cpu: "8", memory: 64Gi, nvidia.com/gpu: "1"}}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: preprocess
  namespace: vision
  labels: {kueue.x-k8s.io/queue-name: vision}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: p, image: x, resources: {requests: {cpu: "4", memory: 16Gi}}}
"""


def _by_name(objs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objs}


def _quota(cq: dict[str, Any]) -> dict[str, dict[str, Any]]:
    group = cq["spec"]["resourceGroups"][0]
    return {f["name"]: {r["name"]: r["nominalQuota"] for r in f["resources"]} for f in group["flavors"]}


def test_a_cpu_pool_gets_a_flavor_with_its_labels_and_no_gpu_toleration() -> None:
    objs = kueue_objects(spec_from(CPU_SPEC))
    flavors = _by_name([o for o in objs if o["kind"] == "ResourceFlavor"])
    assert list(flavors) == ["cpu-general", "a100-spot"]
    cpu = flavors["cpu-general"]["spec"]
    assert cpu["nodeLabels"] == {"gpuplane.io/capacity": "on-demand", "gpuplane.io/pool": "cpu-general"}
    assert "nodeTaints" not in cpu and "tolerations" not in cpu


def test_the_cpu_flavor_comes_first_with_cpu_and_memory_only() -> None:
    objs = kueue_objects(spec_from(CPU_SPEC))
    for cq in (o for o in objs if o["kind"] == "ClusterQueue"):
        quota = _quota(cq)
        assert list(quota) == ["cpu-general", "a100-spot"], cq["metadata"]["name"]
        assert quota["cpu-general"] == {"cpu": 16, "memory": "64Gi", "nvidia.com/gpu": 0}
        assert quota["a100-spot"] == {"cpu": 48, "memory": "440Gi", "nvidia.com/gpu": 2}


@pytest.mark.parametrize("api", ["v1beta1", "v1beta2"])
def test_cpu_flavor_and_queues_validate_against_the_kueue_crds(api: str) -> None:
    for obj in kueue_objects(spec_from(CPU_SPEC), api):
        validate(obj)


def test_a_cpu_pool_without_cpu_or_memory_per_node_gets_zero_quota_and_a_note() -> None:
    text = CPU_SPEC.replace("    cpuPerNode: 8\n", "")
    spec = spec_from(text)
    result = render_all(spec)
    cq = objects_of(result, "ClusterQueue")[0]
    assert _quota(cq)["cpu-general"] == {"cpu": 0, "memory": "64Gi", "nvidia.com/gpu": 0}
    assert any("pool cpu-general: vCPUs or memory per node unknown" in n for n in result.notes)


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_without_cpu_pools_keep_one_flavor_per_gpu_pool(example: Path) -> None:
    spec, result = rendered(example)
    names = [o["metadata"]["name"] for o in objects_of(result, "ResourceFlavor")]
    assert names == [p.name for p in spec.node_pools if p.is_gpu]


def _explain(tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "out"
    spec = tmp_path / "spec.yaml"
    spec.write_text(CPU_SPEC)
    runner = CliRunner()
    result = runner.invoke(app, ["render", str(spec), "-o", str(out)])
    assert result.exit_code == 0, result.output
    jobs = tmp_path / "jobs.yaml"
    jobs.write_text(JOBS)
    args = ["explain", "-o", "json", "-f", str(out / "kueue"), "-f", str(out / "tenancy" / "namespaces.yaml")]
    result = runner.invoke(app, [*args, "-f", str(jobs)])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_explain_puts_ray_heads_submitters_mpi_launchers_and_cpu_jobs_on_the_cpu_flavor(
    tmp_path: Path,
) -> None:
    report = _explain(tmp_path)
    flavors = {a["job"]: a["flavors"] for a in report["whatIf"]}
    assert {a["job"]: a["status"] for a in report["whatIf"]} == {
        "RayJob vision/infer": "admitted",
        "MPIJob nlp/allreduce": "admitted",
        "Job vision/preprocess": "admitted",
    }
    cpu_only = {"cpu": "cpu-general", "memory": "cpu-general"}
    gpu = {"cpu": "a100-spot", "memory": "a100-spot", "nvidia.com/gpu": "a100-spot"}
    assert flavors["RayJob vision/infer"] == {"head": cpu_only, "gpu": gpu, "submitter": cpu_only}
    assert flavors["MPIJob nlp/allreduce"] == {"launcher": cpu_only, "worker": gpu}
    assert flavors["Job vision/preprocess"] == {"main": cpu_only}


def test_a_system_pool_without_workload_classes_gets_no_flavor() -> None:
    text = CPU_SPEC.replace(
        "    maxNodes: 4\nteams:",
        "    maxNodes: 4\n  - {name: system, vmSize: x, cpuPerNode: 4, memoryGiBPerNode: 16, workloadClasses: []}\nteams:",
    )
    objs = kueue_objects(spec_from(text))
    assert [o["metadata"]["name"] for o in objs if o["kind"] == "ResourceFlavor"] == [
        "cpu-general",
        "a100-spot",
    ]


def test_a_team_without_spot_skips_a_spot_cpu_pool() -> None:
    text = CPU_SPEC.replace(
        "    minNodes: 1\n    maxNodes: 4\nteams:", "    minNodes: 1\n    maxNodes: 4\n    spot: true\nteams:"
    )
    text = text.replace(
        "  - name: nlp\n    namespaces: [nlp]\n    quotas: [{pool: a100-spot, nominal: 2}]",
        "  - name: nlp\n    namespaces: [nlp]\n    spotAllowed: false",
    )
    cqs = {o["metadata"]["name"]: o for o in kueue_objects(spec_from(text)) if o["kind"] == "ClusterQueue"}
    assert list(_quota(cqs["vision"])) == ["cpu-general", "a100-spot"]
    assert "resourceGroups" not in cqs["nlp"]["spec"]


# -- the space: every example with CPU pools added, every kind of GPU resource ----------------------

CPU_POOLS = """
  - {name: cpu-a, vmSize: d8, cpuPerNode: 8, memoryGiBPerNode: 32, maxNodes: MAXA}
  - {name: cpu-b, vmSize: d16, cpuPerNode: 16, memoryGiBPerNode: 64, maxNodes: 2}
"""


def _with_cpu_pools(example: Path, max_a: int) -> str:
    text = example.read_text(encoding="utf-8")
    head, sep, rest = text.partition("nodePools:\n")
    assert sep, example
    return head + sep + CPU_POOLS.replace("MAXA", str(max_a)).lstrip("\n") + rest


@given(max_a=st.integers(min_value=0, max_value=50))
@settings(max_examples=10, suppress_health_check=[HealthCheck.function_scoped_fixture])
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_with_cpu_pools_puts_them_first_at_zero_gpu_within_capacity(
    example: Path, max_a: int
) -> None:
    spec = spec_from(_with_cpu_pools(example, max_a))
    objs = kueue_objects(spec)
    for obj in objs:
        validate(obj)
    cqs = [o for o in objs if o["kind"] == "ClusterQueue" and "resourceGroups" in o["spec"]]
    assert cqs, example.name
    totals = {"cpu-a": 0.0, "cpu-b": 0.0}
    for cq in cqs:
        team = spec.team(cq["metadata"]["name"])
        assert team is not None
        (group,) = cq["spec"]["resourceGroups"]
        names = [f["name"] for f in group["flavors"]]
        gpu = [n for n in names if n not in totals]
        assert names == ["cpu-a", "cpu-b", *gpu]
        for flavor in group["flavors"][:2]:
            quota = {r["name"]: r["nominalQuota"] for r in flavor["resources"]}
            assert set(quota) == set(group["coveredResources"])
            assert all(v == 0 for k, v in quota.items() if k not in ("cpu", "memory")), quota
            cpu = quota["cpu"]
            totals[flavor["name"]] += float(cpu[:-1]) / 1000 if isinstance(cpu, str) else cpu
    # hand rule: each of the spec's teams gets floor(pool cpu / teams) (to the millicore)
    assert totals["cpu-a"] <= 8 * max_a and totals["cpu-b"] <= 16 * 2
    assert totals["cpu-b"] == pytest.approx(32 / len(spec.teams) * len(cqs), abs=0.001 * len(cqs))


MORE_JOBS = """\
apiVersion: batch/v1
kind: Job
metadata: {name: mig-infer, namespace: vision, labels: {kueue.x-k8s.io/queue-name: vision}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: x, resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/mig-3g.40gb: "1"}}}
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train, namespace: nlp, labels: {kueue.x-k8s.io/queue-name: nlp}}
spec:
  suspend: true
  replicatedJobs:
  - name: driver
    replicas: 1
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: d, image: x, resources: {requests: {cpu: "1", memory: 1Gi}}}]
  - name: workers
    replicas: 2
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: w, image: x, resources: {requests: {cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}}}]
"""


def test_explain_on_an_example_with_cpu_pools_keeps_mig_and_gpu_pod_sets_on_their_gpu_flavors(
    tmp_path: Path,
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(_with_cpu_pools(REPO / "examples" / "aks-platform.yaml", 4))
    out = tmp_path / "out"
    runner = CliRunner()
    assert runner.invoke(app, ["render", str(spec), "-o", str(out)]).exit_code == 0
    jobs = tmp_path / "jobs.yaml"
    jobs.write_text(MORE_JOBS)
    args = ["explain", "-o", "json", "-f", str(out / "kueue"), "-f", str(out / "tenancy" / "namespaces.yaml")]
    result = runner.invoke(app, [*args, "-f", str(jobs)])
    assert result.exit_code == 0, result.output
    flavors = {a["job"]: a["flavors"] for a in json.loads(result.stdout)["whatIf"]}
    assert flavors["Job vision/mig-infer"] == {
        "main": {"cpu": "a100-mig", "memory": "a100-mig", "nvidia.com/mig-3g.40gb": "a100-mig"}
    }
    assert flavors["JobSet nlp/train"] == {
        "driver": {"cpu": "cpu-a", "memory": "cpu-a"},
        "workers": {"cpu": "a100-spot", "memory": "a100-spot", "nvidia.com/gpu": "a100-spot"},
    }
