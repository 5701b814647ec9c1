"""Bad platform specs: each error names file, line, column and field path, exit code 2, and the
render output directory is left untouched. The line each case must point at carries `#!`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gpuplane.errors import InputError
from gpuplane.spec import parse_spec

HEAD = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: c1, provider: aks, region: eastus}
"""

POOL_A100 = """\
  - name: a100
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    maxNodes: 4
"""

CASES: dict[str, tuple[str, str, str]] = {
    # name: (yaml, expected field path, expected message fragment)
    "mig_layout_does_not_fit": (
        HEAD
        + """\
nodePools:
  - name: mig
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    workloadClasses: [inference]
    sharing:
      mode: mig
      strategy: mixed
      layout: [4g.40gb, 4g.40gb]   #!
""",
        "nodePools[0].sharing.layout",
        "does not fit",
    ),
    "mig_layout_does_not_fit_with_quota_on_it": (
        HEAD
        + """\
nodePools:
  - name: mig
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    workloadClasses: [inference]
    sharing: {mode: mig, strategy: mixed, layout: [7g.80gb, 1g.10gb]}   #!
teams:
  - name: t
    namespaces: [t]
    quotas: [{pool: mig, resource: nvidia.com/mig-7g.80gb, nominal: 1}]
""",
        "nodePools[0].sharing.layout",
        "does not fit",
    ),
    "mig_on_gpu_without_mig": (
        HEAD
        + """\
nodePools:
  - name: t4
    accelerator: T4
    vmSize: Standard_NC4as_T4_v3
    sharing:
      mode: mig   #!
      config: all-1g.5gb
""",
        "nodePools[0].sharing.mode",
        "does not support MIG",
    ),
    "quota_names_unknown_pool": (
        HEAD
        + "nodePools:\n"
        + POOL_A100
        + """\
teams:
  - name: t
    namespaces: [t]
    quotas:
      - pool: a10   #!
        nominal: 2
""",
        "teams[0].quotas[0].pool",
        "unknown pool 'a10'",
    ),
    "min_nodes_above_max_nodes": (
        HEAD
        + """\
nodePools:
  - name: a100
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    minNodes: 5   #!
    maxNodes: 4
""",
        "nodePools[0].minNodes",
        "minNodes (5) > maxNodes (4)",
    ),
    "inference_pool_on_spot": (
        HEAD
        + """\
nodePools:
  - name: a100
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    workloadClasses: [inference]
    spot:
      enabled: true   #!
""",
        "nodePools[0].spot.enabled",
        "inference-on-spot",
    ),
    "time_slicing_replicas_below_two": (
        HEAD
        + """\
nodePools:
  - name: a100
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    sharing:
      mode: time-slicing
      replicas: 1   #!
""",
        "nodePools[0].sharing.replicas",
        "replicas >= 2",
    ),
    "misspelled_field": (
        HEAD
        + """\
nodePools:
  - name: a100
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    maxNode: 4   #!
""",
        "nodePools[0].maxNode",
        "unknown field",
    ),
    "unknown_accelerator": (
        HEAD
        + """\
nodePools:
  - name: x
    accelerator: V100-99GB   #!
    gpusPerNode: 8
""",
        "nodePools[0].accelerator",
        "unknown accelerator",
    ),
    "unknown_provider": (
        """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster:
  name: c1
  provider: azure   #!
nodePools:
"""
        + POOL_A100,
        "cluster.provider",
        "unknown provider 'azure'; expected one of aks, gke, eks, generic",
    ),
    "duplicate_pool_name": (
        HEAD
        + "nodePools:\n"
        + POOL_A100
        + """\
  - name: a100   #!
    accelerator: T4
    vmSize: Standard_NC4as_T4_v3
""",
        "nodePools[1].name",
        "duplicate pool name",
    ),
    "gpu_pool_with_empty_taints": (
        HEAD
        + """\
nodePools:
  - name: a100
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    taints: []   #!
""",
        "nodePools[0].taints",
        "no-taints",
    ),
    "unknown_priority_class": (
        HEAD
        + "nodePools:\n"
        + POOL_A100
        + """\
teams:
  - name: t
    namespaces: [t]
    priorityClass: urgent   #!
""",
        "teams[0].priorityClass",
        "unknown priority class",
    ),
    "missing_cluster_name": (
        """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster:
  provider: aks   #!
nodePools:
"""
        + POOL_A100,
        "cluster.name",
        "required field is missing",
    ),
    "mig_single_strategy_with_mixed_layout": (
        HEAD
        + """\
nodePools:
  - name: mig
    accelerator: H100-80GB
    gpusPerNode: 8
    sharing:
      mode: mig
      strategy: single   #!
      layout: [3g.40gb, 2g.20gb, 1g.10gb]
""",
        "nodePools[0].sharing.strategy",
        "mixed",
    ),
    "namespace_in_two_teams": (
        HEAD
        + "nodePools:\n"
        + POOL_A100
        + """\
teams:
  - name: a
    namespaces: [shared]
  - name: b
    namespaces:
      - shared   #!
""",
        "teams[1].namespaces[0]",
        "already belongs to team 'a'",
    ),
    "unknown_mig_config": (
        HEAD
        + """\
nodePools:
  - name: mig
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    sharing:
      mode: mig
      config: all-9g.99gb   #!
""",
        "nodePools[0].sharing.config",
        "unknown GPU Operator MIG config",
    ),
    "negative_nominal_quota": (
        HEAD
        + "nodePools:\n"
        + POOL_A100
        + """\
teams:
  - name: t
    namespaces: [t]
    quotas:
      - pool: a100
        nominal: -2   #!
""",
        "teams[0].quotas[0].nominal",
        "greater than or equal to 0",
    ),
    "gpus_per_node_contradicts_vm_size": (
        HEAD
        + """\
nodePools:
  - name: a100
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    gpusPerNode: 4   #!
""",
        "nodePools[0].gpusPerNode",
        "has 1 GPUs per node",
    ),
    "unknown_mig_profile": (
        HEAD
        + """\
nodePools:
  - name: mig
    accelerator: H100-80GB
    gpusPerNode: 8
    sharing:
      mode: mig
      strategy: mixed
      layout: [3g.40gb, 5g.50gb]   #!
""",
        "nodePools[0].sharing.layout",
        "no MIG profile '5g.50gb'",
    ),
    "mixed_mig_quota_without_resource": (
        HEAD
        + """\
nodePools:
  - name: mig
    accelerator: H100-80GB
    gpusPerNode: 8
    sharing: {mode: mig, strategy: mixed, layout: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]}
teams:
  - name: t
    namespaces: [t]
    quotas:
      - pool: mig   #!
        nominal: 2
""",
        "teams[0].quotas[0].resource",
        "offers several resources",
    ),
}


def _marker_line(text: str) -> int:
    lines = [i for i, line in enumerate(text.splitlines(), start=1) if "#!" in line]
    assert len(lines) == 1, "each case marks exactly one line"
    return lines[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_spec_error_names_line_and_field(name: str) -> None:
    text, path, fragment = CASES[name]
    with pytest.raises(InputError) as caught:
        parse_spec(text, f"{name}.yaml")
    problems = caught.value.problems
    matching = [p for p in problems if p.path == path]
    assert matching, f"no problem at {path}; got {[str(p) for p in problems]}"
    problem = matching[0]
    assert problem.file == f"{name}.yaml"
    assert problem.line == _marker_line(text), str(problem)
    assert problem.column is not None and problem.column >= 1
    assert fragment in problem.message, str(problem)


def test_malformed_yaml_names_line() -> None:
    text = HEAD + "nodePools:\n  - name: a\n    labels: {a: b\n"
    with pytest.raises(InputError) as caught:
        parse_spec(text, "broken.yaml")
    problem = caught.value.problems[0]
    assert problem.file == "broken.yaml"
    assert problem.line is not None and problem.line >= 5
    assert "malformed YAML" in problem.message


GPUPLANE = Path(sys.executable).parent / "gpuplane"


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("name", ["mig_layout_does_not_fit", "quota_names_unknown_pool", "misspelled_field"])
def test_bad_spec_cli_exits_2_and_leaves_output_untouched(name: str, tmp_path: Path) -> None:
    text, path, _ = CASES[name]
    spec_file = tmp_path / "platform.yaml"
    spec_file.write_text(text)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.yaml").write_text("kind: Keep\n")
    before = _snapshot(out)
    for args in (["spec", "validate", str(spec_file)], ["render", str(spec_file), "-o", str(out)]):
        result = subprocess.run([str(GPUPLANE), *args], capture_output=True, text=True, check=False)
        assert result.returncode == 2, result.stderr
        line = _marker_line(text)
        assert f"{spec_file}:{line}:" in result.stderr
        assert path in result.stderr
        assert "Traceback" not in result.stderr
    assert _snapshot(out) == before
    leftovers = [p.name for p in tmp_path.iterdir() if p.name not in {"platform.yaml", "out"}]
    assert leftovers == []
