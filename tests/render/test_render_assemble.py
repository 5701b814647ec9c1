"""render_all: the file layout, the index, the notes, and the optional exporter manifests."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpuplane.render import render_all, stream_yaml
from tests.render.render_helpers import SMALL_SPEC, rendered, small_spec, spec_from


def test_every_family_has_its_files() -> None:
    files = set(render_all(spec_from(SMALL_SPEC)).files)
    assert {
        "kueue/resource-flavors.yaml",
        "kueue/cohorts.yaml",
        "kueue/cluster-queues.yaml",
        "kueue/local-queues.yaml",
        "kueue/workload-priority-classes.yaml",
        "tenancy/namespaces.yaml",
        "tenancy/resource-quotas.yaml",
        "tenancy/limit-ranges.yaml",
        "tenancy/role-bindings.yaml",
        "tenancy/network-policies.yaml",
        "tenancy/priority-classes.yaml",
        "devices/gpu-operator-values.yaml",
        "devices/mig-parted-config.yaml",
        "devices/device-plugin-config.yaml",
        "nodepools/aks-node-pools.sh",
        "monitoring/prometheus-rules.yaml",
        "monitoring/grafana-dashboard.json",
        "monitoring/grafana-dashboard-configmap.yaml",
        "index.yaml",
        "README.md",
    } <= files


@pytest.mark.parametrize(
    "provider, path",
    [
        ("aks", "nodepools/aks-node-pools.sh"),
        ("gke", "nodepools/gke-node-pools.sh"),
        ("eks", "nodepools/eks-nodegroups.yaml"),
        ("generic", "nodepools/label-nodes.sh"),
    ],
)
def test_node_pool_file_follows_the_provider(provider: str, path: str) -> None:
    files = render_all(small_spec(provider)).files
    assert path in files
    assert not [f for f in files if f.startswith("nodepools/") and f != path]


def test_index_lists_each_object_of_each_file() -> None:
    result = render_all(spec_from(SMALL_SPEC))
    index = yaml.safe_load(result.files["index.yaml"])
    by_path = {entry["path"]: entry for entry in index["files"]}
    queues = by_path["kueue/cluster-queues.yaml"]["objects"]
    assert queues == ["ClusterQueue alpha", "ClusterQueue beta"]
    assert by_path["tenancy/resource-quotas.yaml"]["objects"][0] == "ResourceQuota alpha/gpu-quota"


def test_unknown_cpu_and_memory_is_a_note_not_a_silent_zero() -> None:
    result = render_all(small_spec("generic"))
    assert any("cpuPerNode" in note and "a100-spot" in note for note in result.notes)
    assert any("cpuPerNode" in note for note in yaml.safe_load(result.files["index.yaml"])["notes"])


def test_exporter_and_kube_state_metrics_settings_are_rendered() -> None:
    result = render_all(spec_from(SMALL_SPEC))
    docs = [d for d in yaml.safe_load_all(result.files["monitoring/gpuplane-exporter.yaml"]) if d]
    kinds = {d["kind"] for d in docs}
    assert {"Deployment", "Service", "ServiceMonitor", "ServiceAccount"} <= kinds
    assert all(d["metadata"]["namespace"] == "gpu-monitoring" for d in docs if d["kind"] != "ClusterRole")
    ksm = yaml.safe_load(result.files["monitoring/kube-state-metrics-values.yaml"])
    assert any(entry.startswith("nodes=[gpuplane.io/pool") for entry in ksm["metricLabelsAllowlist"])


def test_stream_has_only_kubernetes_objects_and_names_the_other_files() -> None:
    result = render_all(spec_from(SMALL_SPEC))
    stream = stream_yaml(result)
    docs = [d for d in yaml.safe_load_all(stream) if d]
    assert all({"apiVersion", "kind", "metadata"} <= set(d) for d in docs)
    header = stream.splitlines()[1]
    assert "nodepools/aks-node-pools.sh" in header and "devices/gpu-operator-values.yaml" in header


def test_stream_puts_namespaces_first_and_cluster_scoped_objects_before_namespaced_ones() -> None:
    docs = [d for d in yaml.safe_load_all(stream_yaml(render_all(spec_from(SMALL_SPEC)))) if d]
    kinds = [d["kind"] for d in docs]
    last_namespace = max(i for i, k in enumerate(kinds) if k == "Namespace")
    first_namespaced = min(i for i, d in enumerate(docs) if "namespace" in d["metadata"])
    assert kinds[: last_namespace + 1] == ["Namespace"] * (last_namespace + 1)
    assert all("namespace" not in d["metadata"] for d in docs[:first_namespaced])
    namespaces = {d["metadata"]["name"] for d in docs if d["kind"] == "Namespace"}
    assert {d["metadata"]["namespace"] for d in docs if "namespace" in d["metadata"]} <= namespaces


def _pool_sections(path: str, text: str) -> dict[str, str]:
    """Provisioning text per pool: eksctl groups as YAML, script commands split at the pool comments."""
    if path.endswith(".yaml"):
        config = yaml.safe_load(text)
        return {g["name"]: yaml.safe_dump(g["labels"]) for g in config["managedNodeGroups"]}
    sections: dict[str, str] = {}
    for chunk in text.split("# pool ")[1:]:
        name = chunk.split(":", 1)[0]
        sections[name] = chunk
    return sections


def test_flavor_node_labels_are_the_labels_the_node_pools_put_on_their_nodes(example: Path) -> None:
    _, result = rendered(example)
    path = next(p for p in result.files if p.startswith("nodepools/"))
    sections = _pool_sections(path, result.files[path])
    flavors = [d for d in yaml.safe_load_all(result.files["kueue/resource-flavors.yaml"]) if d]
    assert flavors
    for flavor in flavors:
        pool_text = sections[flavor["metadata"]["name"]]
        for key, value in flavor["spec"]["nodeLabels"].items():
            assert f"{key}={value}" in pool_text or f"{key}: {value}" in pool_text, (
                flavor["metadata"]["name"],
                key,
            )


def _quota_resource(key: str) -> str:
    """The Kueue resource a ResourceQuota item caps: `requests.X` -> X; a DRA device-class item
    (`<kind>.gpuplane.io.deviceclass.resource.k8s.io/devices`, Kubernetes' DRA quota form) -> the
    quota name gpuplane maps that class to (`dra.gpuplane.io/<kind>`)."""
    suffix = ".gpuplane.io.deviceclass.resource.k8s.io/devices"
    if key.endswith(suffix):
        return "dra.gpuplane.io/" + key.removesuffix(suffix)
    return key.removeprefix("requests.")


def test_resource_quota_names_only_resources_the_teams_queue_covers(example: Path) -> None:
    _, result = rendered(example)
    covered = {}
    for cq in yaml.safe_load_all(result.files["kueue/cluster-queues.yaml"]):
        if cq:
            groups = cq["spec"].get("resourceGroups", [])
            covered[cq["metadata"]["name"]] = {r for g in groups for r in g["coveredResources"]}
    for quota in yaml.safe_load_all(result.files["tenancy/resource-quotas.yaml"]):
        if quota:
            team = quota["metadata"]["labels"]["gpuplane.io/team"]
            names = {_quota_resource(k) for k in quota["spec"]["hard"]}
            assert names <= covered[team]
