"""Kueue objects: one flavor per pool with the pool's labels and taints; one ClusterQueue per team
covering every resource its pools offer plus cpu and memory in proportion to the GPU quota."""

from __future__ import annotations

from typing import Any

import pytest

from gpuplane.catalog import load_catalog
from gpuplane.render.kueue import cluster_queue, kueue_objects, local_queues, resource_flavor
from gpuplane.spec import derived
from gpuplane.vocab import LABEL_POOL
from tests.render.render_helpers import SMALL_SPEC, spec_from


def _flavor(cq: dict[str, Any], name: str) -> dict[str, Any]:
    group = cq["spec"]["resourceGroups"][0]
    flavor = next(f for f in group["flavors"] if f["name"] == name)
    return {r["name"]: r for r in flavor["resources"]}


def test_resource_flavor_carries_the_pools_node_labels_taints_and_tolerations() -> None:
    spec = spec_from(SMALL_SPEC)
    pool = spec.pool("t4")
    assert pool is not None
    flavor = resource_flavor(spec, pool)
    assert flavor["spec"]["nodeLabels"] == derived.node_labels(pool)
    assert flavor["spec"]["nodeTaints"] == [
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    ]
    assert flavor["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    ]


def test_aks_spot_flavor_also_carries_the_taint_aks_puts_on_spot_nodes() -> None:
    spec = spec_from(SMALL_SPEC)
    pool = spec.pool("a100-spot")
    assert pool is not None
    keys = [t["key"] for t in resource_flavor(spec, pool)["spec"]["nodeTaints"]]
    assert keys == ["nvidia.com/gpu", "kubernetes.azure.com/scalesetpriority"]


def test_flavor_keeps_gpuplane_labels_when_a_pool_has_more_than_eight() -> None:
    many = SMALL_SPEC.replace(
        "labels: {tier: dev}", "labels: {" + ", ".join(f"l{i}: v" for i in range(9)) + "}"
    )
    spec = spec_from(many)
    pool = spec.pool("t4")
    assert pool is not None
    labels = resource_flavor(spec, pool)["spec"]["nodeLabels"]
    assert len(labels) == 8
    assert labels[LABEL_POOL] == "t4"


def test_one_flavor_per_gpu_pool_and_one_cluster_queue_per_team() -> None:
    spec = spec_from(SMALL_SPEC)
    objs = kueue_objects(spec)
    assert [o["metadata"]["name"] for o in objs if o["kind"] == "ResourceFlavor"] == [
        "a100-spot",
        "a100-mig",
        "t4",
    ]
    assert [o["metadata"]["name"] for o in objs if o["kind"] == "ClusterQueue"] == ["alpha", "beta"]
    assert [
        (o["metadata"]["namespace"], o["spec"]["clusterQueue"]) for o in objs if o["kind"] == "LocalQueue"
    ] == [("alpha", "alpha"), ("alpha-dev", "alpha"), ("beta", "beta")]


def test_cohorts_keep_their_hierarchy() -> None:
    objs = kueue_objects(spec_from(SMALL_SPEC))
    cohorts = {o["metadata"]["name"]: o["spec"].get("parentName") for o in objs if o["kind"] == "Cohort"}
    assert cohorts == {"shared": "org", "org": None}


def test_a_cohort_named_only_by_a_team_gets_an_object() -> None:
    spec = spec_from(SMALL_SPEC)
    spec.teams[1].cohort = "other"
    objs = kueue_objects(spec)
    cohorts = [(o["metadata"]["name"], o["spec"].get("parentName")) for o in objs if o["kind"] == "Cohort"]
    assert cohorts == [("shared", "org"), ("org", None), ("other", None)]


def test_local_queue_records_the_teams_default_priority_class() -> None:
    spec = spec_from(SMALL_SPEC)
    team = spec.team("alpha")
    assert team is not None
    for queue in local_queues(team):
        assert queue["metadata"]["annotations"] == {"gpuplane.io/default-priority-class": "normal"}


def test_cluster_queue_covers_every_resource_of_every_flavor_in_quota_order() -> None:
    spec = spec_from(SMALL_SPEC)
    team = spec.team("alpha")
    assert team is not None
    group = cluster_queue(spec, team)["spec"]["resourceGroups"][0]
    assert group["coveredResources"] == [
        "cpu",
        "memory",
        "nvidia.com/gpu",
        "nvidia.com/mig-1g.10gb",
        "nvidia.com/mig-2g.20gb",
        "nvidia.com/mig-3g.40gb",
    ]
    assert [f["name"] for f in group["flavors"]] == ["a100-spot", "a100-mig", "t4"]


def test_gpu_quota_limits_come_from_the_spec() -> None:
    spec = spec_from(SMALL_SPEC)
    team = spec.team("alpha")
    assert team is not None
    cq = cluster_queue(spec, team)
    spot = _flavor(cq, "a100-spot")["nvidia.com/gpu"]
    assert (spot["nominalQuota"], spot["borrowingLimit"]) == (4, 2)
    assert "lendingLimit" not in spot
    mig = _flavor(cq, "a100-mig")["nvidia.com/mig-3g.40gb"]
    assert (mig["nominalQuota"], mig["lendingLimit"]) == (1, 0)
    assert _flavor(cq, "a100-mig")["nvidia.com/mig-1g.10gb"]["nominalQuota"] == 0


def test_cpu_and_memory_quota_follow_the_gpu_share_of_the_pool() -> None:
    spec = spec_from(SMALL_SPEC)
    team = spec.team("alpha")
    assert team is not None
    cq = cluster_queue(spec, team)
    sku = load_catalog().vm_sku("aks", "Standard_NC96ads_A100_v4")
    assert sku is not None and sku.vcpus
    # exclusive: 4 of the node's GPUs -> 4/gpus of its vCPUs, borrowing 2 -> 2/gpus.
    spot = _flavor(cq, "a100-spot")
    assert spot["cpu"]["nominalQuota"] == sku.vcpus * 4 // sku.gpus
    assert spot["cpu"]["borrowingLimit"] == sku.vcpus * 2 // sku.gpus
    # mixed MIG: one 3g instance is 3/7 of a GPU of a 1-GPU, 24-vCPU node.
    mig_cpu = _flavor(cq, "a100-mig")["cpu"]["nominalQuota"]
    assert mig_cpu == f"{int(24 * 3 / 7 * 1000)}m"
    # time-slicing x4 on a 4-vCPU T4 node: 8 replicas are 2 GPUs' worth.
    assert _flavor(cq, "t4")["cpu"]["nominalQuota"] == 8


def test_team_without_spot_gets_no_spot_flavor_even_with_a_spot_quota() -> None:
    # The spec check rejects such a quota; render still never lists a spot pool for the team.
    spec = spec_from(SMALL_SPEC)
    team = spec.team("alpha")
    assert team is not None
    team.spot_allowed = False
    flavors = [f["name"] for f in cluster_queue(spec, team)["spec"]["resourceGroups"][0]["flavors"]]
    assert flavors == ["a100-mig", "t4"]


def test_queue_without_cohort_has_no_borrowing_or_lending_limits() -> None:
    spec = spec_from(
        SMALL_SPEC.replace("defaultCohort: shared", "defaultCohort: null")
        .replace("cohorts: [{name: shared, parent: org}, {name: org}]", "cohorts: []")
        .replace(", borrowingLimit: 2", "")
        .replace(", lendingLimit: 0", "")
    )
    team = spec.team("alpha")
    assert team is not None
    team.quotas[0].borrowing_limit = 2  # the spec check forbids this; render must drop it anyway
    team.quotas[1].lending_limit = 0
    cq = cluster_queue(spec, team)
    assert "cohortName" not in cq["spec"]
    for flavor in cq["spec"]["resourceGroups"][0]["flavors"]:
        assert all("borrowingLimit" not in r and "lendingLimit" not in r for r in flavor["resources"])


def test_preemption_and_fair_sharing_follow_the_queueing_policy() -> None:
    spec = spec_from(SMALL_SPEC)
    team = spec.team("alpha")
    assert team is not None
    classical = cluster_queue(spec, team)["spec"]
    assert classical["preemption"]["borrowWithinCohort"] == {"policy": "Never"}
    assert "fairSharing" not in classical
    fair = spec_from(
        SMALL_SPEC.replace(
            "  priorityClasses:", "  fairSharing: {enabled: true}\n  priorityClasses:"
        ).replace(
            "    priorityClass: normal\n  - name: beta",
            "    priorityClass: normal\n    fairSharingWeight: 2.5\n  - name: beta",
        )
    )
    alpha = fair.team("alpha")
    assert alpha is not None
    fair_cq = cluster_queue(fair, alpha)["spec"]
    assert fair_cq["fairSharing"] == {"weight": "2.5"}
    assert "borrowWithinCohort" not in fair_cq["preemption"]


@pytest.mark.parametrize("api, field", [("v1beta2", "cohortName"), ("v1beta1", "cohort")])
def test_cohort_field_name_follows_the_api_version(api: str, field: str) -> None:
    spec = spec_from(SMALL_SPEC)
    team = spec.team("alpha")
    assert team is not None
    cq = cluster_queue(spec, team, api)
    assert cq["apiVersion"] == f"kueue.x-k8s.io/{api}"
    assert cq["spec"][field] == "shared"
    assert all(q["apiVersion"] == f"kueue.x-k8s.io/{api}" for q in local_queues(team, api))


def test_unknown_api_version_is_rejected() -> None:
    with pytest.raises(ValueError, match="v1alpha1"):
        kueue_objects(spec_from(SMALL_SPEC), "v1alpha1")
