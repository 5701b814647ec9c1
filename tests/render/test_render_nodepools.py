"""Node-pool provisioning: scripts that bash accepts, with quoted values and the flags each
provider needs; the eksctl config parses and carries every pool."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from gpuplane import providers
from gpuplane.providers import aks, eks, gke
from gpuplane.render.common import cost_tags
from gpuplane.render.device_configs import provisioning_labels
from gpuplane.render.nodepools import nodepool_file, pool_setup
from tests.render.render_helpers import SMALL_SPEC, rendered, small_spec, spec_from


def _commands(script: str, program: str) -> list[list[str]]:
    """Each `program ...` command of a script, split into words as bash would."""
    joined = script.replace("\\\n", " ")
    return [shlex.split(line) for line in joined.splitlines() if line.startswith(program)]


def _option(words: list[str], flag: str) -> str:
    return words[words.index(flag) + 1]


def _values(words: list[str], flag: str) -> list[str]:
    """Every word after `flag` up to the next option."""
    start = words.index(flag) + 1
    end = next((i for i in range(start, len(words)) if words[i].startswith("--")), len(words))
    return words[start:end]


@pytest.mark.parametrize("provider", ["aks", "gke", "generic"])
def test_scripts_pass_bash_syntax_check_and_use_strict_mode(tmp_path: Path, provider: str) -> None:
    spec = small_spec(provider)
    file = nodepool_file(spec)
    path, text = file.path, file.text
    assert path.endswith(".sh")
    assert text.startswith("#!/usr/bin/env bash\n") and "set -euo pipefail\n" in text
    script = tmp_path / "s.sh"
    script.write_text(text)
    proc = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_example_scripts_pass_bash_syntax_check(tmp_path: Path, example: Path) -> None:
    _, result = rendered(example)
    for path, text in result.files.items():
        if path.endswith(".sh"):
            script = tmp_path / "s.sh"
            script.write_text(text)
            assert subprocess.run(["bash", "-n", str(script)], check=False).returncode == 0, path


def test_aks_pool_flags_cover_autoscaling_spot_taints_labels_and_zones() -> None:
    spec = spec_from(SMALL_SPEC)
    commands = {_option(c, "--name"): c for c in _commands(nodepool_file(spec).text, "az aks nodepool add")}
    spot = commands["a100spot"]
    assert (_option(spot, "--min-count"), _option(spot, "--max-count")) == ("0", "2")
    assert "--enable-cluster-autoscaler" in spot
    assert (
        _option(spot, "--priority"),
        _option(spot, "--eviction-policy"),
        _option(spot, "--spot-max-price"),
    ) == ("Spot", "Delete", "-1")
    assert _option(spot, "--node-taints") == "nvidia.com/gpu=present:NoSchedule"
    # The Azure CLI's enum spelling (acs/_params.py gpu_driver_install_modes: Install, None).
    assert _option(spot, "--gpu-driver") == "None"
    assert "--gpu-instance-profile" not in commands["a100mig"]  # MIG Manager partitions instead
    pool = spec.pool("a100-spot")
    assert pool is not None
    labels = dict(word.split("=", 1) for word in _values(spot, "--labels"))
    assert labels == provisioning_labels(spec, pool)
    assert "--priority" not in commands["a100mig"]


def test_aks_pool_names_are_valid_and_unique() -> None:
    spec = spec_from(
        SMALL_SPEC.replace("name: t4\n", "name: a100-spot-extra-long\n").replace(
            "pool: t4,", "pool: a100-spot-extra-long,"
        )
    )
    names = aks.aks_pool_names(spec)
    assert providers.get("aks") is aks.PROVIDER
    assert len(set(names.values())) == len(names)
    for name in names.values():
        assert name.isalnum() and name.islower() and name[0].isalpha() and len(name) <= 12


def test_gke_provider_stack_accelerator_flag_has_partition_size_or_sharing_strategy() -> None:
    spec = small_spec(
        "gke",
        SMALL_SPEC.replace(
            "strategy: mixed, layout: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]",
            "strategy: single, config: all-1g.10gb",
        )
        .replace("resource: nvidia.com/mig-3g.40gb, ", "")
        .replace("resourceGroup: rg-small}", "resourceGroup: rg-small, gpuStack: provider}"),
    )
    commands = {c[4]: c for c in _commands(nodepool_file(spec).text, "gcloud container node-pools create")}
    assert (
        _option(commands["a100-mig"], "--accelerator")
        == "type=nvidia-a100-80gb,count=1,gpu-driver-version=latest,gpu-partition-size=1g.10gb"
    )
    assert _option(commands["t4"], "--accelerator").endswith(
        "gpu-sharing-strategy=time-sharing,max-shared-clients-per-gpu=4"
    )
    spot = commands["a100-spot"]
    assert "--spot" in spot and "--enable-autoscaling" in spot
    assert (_option(spot, "--total-min-nodes"), _option(spot, "--total-max-nodes")) == ("0", "2")


def test_gke_operator_stack_follows_nvidias_gke_guide() -> None:
    # NVIDIA's GKE guide: GKE's device plugin off (label), its driver install off, COS nodes.
    spec = small_spec("gke")
    text = nodepool_file(spec).text
    commands = {c[4]: c for c in _commands(text, "gcloud container node-pools create")}
    for name in ("a100-spot", "a100-mig", "t4"):
        accel = _option(commands[name], "--accelerator")
        assert accel.endswith("gpu-driver-version=disabled")
        assert "gpu-partition-size" not in accel and "gpu-sharing-strategy" not in accel
        assert "gke-no-default-nvidia-gpu-device-plugin=true" in _option(commands[name], "--node-labels")
        assert _option(commands[name], "--image-type") == "COS_CONTAINERD"
    assert (
        "kubectl apply -f https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators/"
        in text
    )


def test_gke_provider_stack_mixed_mig_layout_is_reported_not_guessed() -> None:
    spec = small_spec("gke").model_copy(deep=True)
    spec.cluster.gpu_stack = "provider"
    pool = spec.pool("a100-mig")
    assert pool is not None
    flag, notes = gke.accelerator_flag(spec, pool)
    assert flag is not None and "gpu-partition-size" not in flag
    assert notes and "one size" in notes[0]


def test_eksctl_config_has_one_managed_group_per_pool() -> None:
    spec = small_spec("eks", SMALL_SPEC.replace("region: eastus", "region: us-east-1"))
    file = nodepool_file(spec)
    assert file.path == "nodepools/eks-nodegroups.yaml"
    config = yaml.safe_load(file.text)
    assert (config["apiVersion"], config["kind"]) == ("eksctl.io/v1alpha5", "ClusterConfig")
    groups = {g["name"]: g for g in config["managedNodeGroups"]}
    assert set(groups) == {p.name for p in spec.node_pools}
    spot = groups["a100-spot"]
    assert spot["spot"] is True and (spot["minSize"], spot["maxSize"]) == (0, 2)
    assert spot["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    assert spot["tags"]["k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu"] == "4"
    assert eks.cluster_config(spec, [pool_setup(spec, p) for p in spec.node_pools]) == config


def test_generic_script_labels_and_taints_named_nodes() -> None:
    spec = small_spec("generic")
    text = nodepool_file(spec).text
    assert 'kubectl label nodes --overwrite "$@"' in text
    assert 'kubectl taint nodes --overwrite "$@" nvidia.com/gpu=present:NoSchedule' in text


@pytest.mark.parametrize("provider", ["aks", "gke", "eks"])
def test_cloud_resources_carry_the_pool_cost_tags(provider: str) -> None:
    spec = small_spec(provider)
    text = nodepool_file(spec).text
    for pool in spec.node_pools:
        tags = cost_tags(spec, pool)
        assert tags["gpuplane-pool"] == pool.name and tags["gpuplane-cluster"] == "small"
        for key, value in tags.items():
            assert f"{key}={value}" in text or f"{key}: {value}" in text
