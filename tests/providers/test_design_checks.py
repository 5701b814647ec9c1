"""`spec validate` rejects designs the provider cannot run, at the offending line, naming the
fact's source; and the designs it accepts render what the provider takes."""

from __future__ import annotations

import shlex

import pytest

from gpuplane.catalog import load_catalog
from gpuplane.errors import InputError, Problem
from gpuplane.render.nodepools import nodepool_file
from gpuplane.spec import parse_spec


def _spec(cluster: str, pools: str, teams: str = "") -> str:
    """A spec; a `#!` at the end of `cluster` marks the cluster line."""
    marker = "   #!" if cluster.endswith("#!") else ""
    cluster = cluster.removesuffix("#!").strip()
    return f"""\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {{{cluster}}}{marker}
nodePools:
{pools}
{teams}"""


def _errors(text: str) -> list[Problem]:
    with pytest.raises(InputError) as caught:
        parse_spec(text, "p.yaml")
    return caught.value.problems


def _line(text: str, marker: str = "#!") -> int:
    [line] = [i for i, row in enumerate(text.splitlines(), start=1) if marker in row]
    return line


def _warnings(text: str) -> list[Problem]:
    return parse_spec(text, "p.yaml")[1]


AKS_MIG = """\
  - name: mig
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    maxNodes: 2
    workloadClasses: [inference]
    sharing: {LAYOUT}   #!
"""


def test_aks_own_stack_rejects_a_mig_layout_no_instance_profile_gives() -> None:
    text = _spec(
        "name: c, provider: aks, gpuStack: provider",
        AKS_MIG.replace(
            "{LAYOUT}", "{mode: mig, strategy: mixed, layout: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]}"
        ),
    )
    [problem] = _errors(text)
    assert (problem.path, problem.line) == ("nodePools[0].sharing", _line(text))
    assert "--gpu-instance-profile" in problem.message and "AZ-CLI" in problem.message
    assert "MIG3g: 2 x 3g.40gb" in problem.message  # what the GPU would get instead


@pytest.mark.parametrize(
    ("layout", "profile"),
    [
        ("[1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb]", "MIG1g"),
        ("[3g.40gb, 3g.40gb]", "MIG3g"),
    ],
)
def test_aks_own_stack_renders_the_instance_profile_and_keeps_aks_driver(layout: str, profile: str) -> None:
    text = _spec(
        "name: c, provider: aks, gpuStack: provider",
        AKS_MIG.replace("{LAYOUT}", f"{{mode: mig, layout: {layout}}}"),
    )
    spec, _ = parse_spec(text, "p.yaml")
    words = shlex.split(nodepool_file(spec).text.replace("\\\n", " "))
    assert words[words.index("--gpu-instance-profile") + 1] == profile
    assert words[words.index("--gpu-driver") + 1] == "Install"


def test_aks_instance_profiles_are_the_full_uniform_layouts_of_each_gpu() -> None:
    # Hand-made from NVIDIA's MIG user guide profile tables: max instances per profile on an A100-80GB.
    from gpuplane.providers.aks import instance_profile_layouts

    acc = load_catalog().accelerator("A100-80GB")
    assert acc is not None
    layouts = instance_profile_layouts(acc, ["MIG1g", "MIG2g", "MIG3g", "MIG4g", "MIG7g"])
    assert {k: (v[0], len(v)) for k, v in layouts.items()} == {
        "MIG1g": ("1g.10gb", 7),
        "MIG2g": ("2g.20gb", 3),
        "MIG3g": ("3g.40gb", 2),
        "MIG4g": ("4g.40gb", 1),
        "MIG7g": ("7g.80gb", 1),
    }


GKE_MIG = """\
  - name: mig
    accelerator: H100-80GB
    vmSize: a3-highgpu-8g
    maxNodes: 2
    workloadClasses: [inference]
    sharing: {SHARING}
"""


def test_gke_own_stack_rejects_two_partition_sizes_and_the_mixed_strategy() -> None:
    text = _spec(
        "name: c, provider: gke, region: us-central1, gpuStack: provider",
        GKE_MIG.replace("{SHARING}", "{mode: mig, strategy: mixed, layout: [3g.40gb, 2g.20gb]}   #!"),
    )
    problems = {p.path: p for p in _errors(text)}
    assert "one gpu-partition-size" in problems["nodePools[0].sharing"].message
    assert "GCLOUD" in problems["nodePools[0].sharing"].message
    assert "one nvidia.com/gpu" in problems["nodePools[0].sharing.strategy"].message
    assert problems["nodePools[0].sharing"].line == _line(text)


def test_gke_own_stack_rejects_renamed_shared_gpus() -> None:
    text = _spec(
        "name: c, provider: gke, region: us-central1, gpuStack: provider",
        GKE_MIG.replace("{SHARING}", "{mode: time-slicing, replicas: 4, renameShared: true}"),
    )
    [problem] = _errors(text)
    assert (
        problem.path == "nodePools[0].sharing.renameShared"
        and "keep the name nvidia.com/gpu" in problem.message
    )


def test_gke_operator_stack_runs_a_mixed_layout_through_mig_manager() -> None:
    text = _spec(
        "name: c, provider: gke, region: us-central1",
        GKE_MIG.replace(
            "{SHARING}", "{mode: mig, strategy: mixed, layout: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]}"
        ),
    )
    spec, _ = parse_spec(text, "p.yaml")
    assert "nvidia.com/mig.config=gpuplane-mig" in nodepool_file(spec).text


@pytest.mark.parametrize("provider", ["eks", "generic"])
def test_providers_without_an_own_gpu_stack_reject_gpu_stack_provider(provider: str) -> None:
    text = _spec(
        f"name: c, provider: {provider}, gpuStack: provider   #!",
        "  - {name: p, accelerator: L4, gpusPerNode: 1}",
    )
    [problem] = _errors(text)
    assert (problem.path, problem.line) == ("cluster.gpuStack", _line(text))
    assert "no provider GPU stack" in problem.message and ", read 2026-12-01)" in problem.message


def test_spot_on_nodes_you_bring_is_a_warning() -> None:
    text = _spec("name: c, provider: generic", "  - {name: p, accelerator: L4, gpusPerNode: 1, spot: true}")
    [warning] = _warnings(text)
    assert warning.path == "nodePools[0].spot.enabled" and "cannot create spot capacity" in warning.message


DRA_POOL = "  - {name: p, accelerator: H100-80GB, gpusPerNode: 8, deviceApi: dra}   #!"


def test_dra_on_a_provider_that_documents_none_is_a_warning_naming_the_source() -> None:
    text = _spec('name: c, provider: aks, kubernetesVersion: "1.34"', DRA_POOL)
    [warning] = _warnings(text)
    assert warning.path == "nodePools[0].deviceApi" and warning.line == _line(text)
    assert "No DRA support found in the AKS documentation" in warning.message


def test_dra_needs_the_operator_stack_and_kubernetes_132() -> None:
    stack = _errors(_spec('name: c, provider: gke, kubernetesVersion: "1.34", gpuStack: provider', DRA_POOL))
    assert [p.path for p in stack] == ["nodePools[0].deviceApi"] and "gpuStack: operator" in stack[0].message
    old = _errors(_spec('name: c, provider: generic, kubernetesVersion: "1.31"', DRA_POOL))
    assert any("no structured-parameters DRA" in p.message for p in old)


def test_dra_below_134_warns_that_kueue_cannot_account_claims() -> None:
    warnings = _warnings(
        _spec(
            'name: c, provider: generic, kubernetesVersion: "1.33", deviceApi: dra   #!',
            DRA_POOL.replace(", deviceApi: dra", ""),
        )
    )
    assert [w.path for w in warnings] == ["cluster.deviceApi"]
    assert "Kueue accounts DRA claims only on Kubernetes 1.34" in warnings[0].message


@pytest.mark.parametrize(
    ("sharing", "field"),
    [
        ("{mode: time-slicing, replicas: 4}", "replicas"),
        ("{mode: mps, renameShared: true}", "renameShared"),
        ("{mode: mig, strategy: mixed, layout: [3g.40gb, 3g.40gb]}", "strategy"),
    ],
)
def test_device_plugin_settings_on_a_dra_pool_are_errors(sharing: str, field: str) -> None:
    pool = f"  - {{name: p, accelerator: H100-80GB, gpusPerNode: 8, deviceApi: dra, sharing: {sharing}}}"
    problems = _errors(
        _spec(
            'name: c, provider: generic, kubernetes_version: "1.34"'.replace(
                "kubernetes_version", "kubernetesVersion"
            ),
            pool,
        )
    )
    assert [p.path for p in problems] == [f"nodePools[0].sharing.{field}"]


def test_a_dra_pool_quota_must_name_its_mapped_resource() -> None:
    teams = (
        "teams:\n  - {name: t, namespaces: [t], quotas: [{pool: p, resource: nvidia.com/gpu, nominal: 4}]}\n"
    )
    problems = _errors(_spec('name: c, provider: generic, kubernetesVersion: "1.34"', DRA_POOL, teams))
    assert "offers no nvidia.com/gpu (offers: dra.gpuplane.io/gpu)" in problems[0].message


def test_more_dra_device_kinds_than_kueue_maps_is_an_error() -> None:
    # Kueue's Configuration accepts at most 16 deviceClassMappings (pkg/config/validation.go).
    catalog = load_catalog()
    profiles = sorted(
        {
            (acc.name, p)
            for acc in catalog.accelerators()
            if acc.mig_capable
            for p in acc.mig_profiles
            if "+" not in p
        },
        key=lambda x: x[1],
    )
    pools = []
    seen: set[str] = set()
    for i, (acc, profile) in enumerate(profiles):
        if profile in seen:
            continue
        seen.add(profile)
        pools.append(
            f"  - {{name: p{i}, accelerator: {acc}, gpusPerNode: 1, sharing: {{mode: mig, layout: [{profile}]}}}}"
        )
    assert len(pools) > 16
    problems = _errors(
        _spec('name: c, provider: generic, kubernetesVersion: "1.34", deviceApi: dra', "\n".join(pools))
    )
    assert any("at most 16" in p.message and p.path == "cluster.deviceApi" for p in problems)
