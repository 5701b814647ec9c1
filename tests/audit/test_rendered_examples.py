"""Every example platform and the built-in one, rendered, pass the audit with no HIGH finding; the
rules that need the spec's knowledge read it from render's output alone (GPU008 from the Kueue
flavors' sharing label and the ClusterQueues' team label); provider-aware rules skip what a
provider cannot do (generic fixed pools: no GPU016/GPU018)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplane.audit import Finding
from gpuplane.audit.model import severity_rank
from gpuplane.cli import app
from tests.audit.helpers import audit_files

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = [
    *sorted((REPO / "examples").glob("*.yaml")),
    REPO / "src" / "gpuplane" / "sim" / "data" / "builtin-platform.yaml",
]
runner = CliRunner()


def _render(spec: Path, out: Path) -> Path:
    result = runner.invoke(app, ["render", str(spec), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _high(findings: list[Finding]) -> list[str]:
    return [
        f"{f.rule} {f.kind} {f.name}: {f.message}"
        for f in findings
        if severity_rank(f.severity) >= severity_rank("high")
    ]


@pytest.mark.parametrize("spec", EXAMPLES, ids=lambda p: p.name)
def test_example_render_passes_the_audit_without_high(spec: Path, tmp_path: Path) -> None:
    out = _render(spec, tmp_path / "out")
    assert _high(audit_files(out)) == []
    assert _high(audit_files(out, spec=spec)) == []
    assert _high(audit_files(spec=spec)) == []


SHARED = """apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {{name: c, provider: aks, region: eastus, kubernetesVersion: "1.31"}}
nodePools:
  - name: t4
    accelerator: T4
    vmSize: Standard_NC4as_T4_v3
    minNodes: 0
    maxNodes: 4
    zones: ["1", "2"]
    workloadClasses: [batch]
    sharing: {{mode: time-slicing, replicas: 4}}
teams:
  - name: team-a
    namespaces: [team-a]
    quotas: [{{pool: t4, nominal: 8}}]
  - name: team-b
    namespaces: [team-b]
    quotas: [{quota_b}]
"""


def test_time_sliced_pool_shared_by_teams_is_found_on_the_render_alone(tmp_path: Path) -> None:
    spec = tmp_path / "shared.yaml"
    spec.write_text(SHARED.format(quota_b="{pool: t4, nominal: 8}"))
    out = _render(spec, tmp_path / "out")
    hits = [f for f in audit_files(out) if f.rule == "GPU008"]
    assert [(f.kind, f.name) for f in hits] == [("ResourceFlavor", "t4")]
    assert "teams team-a, team-b" in hits[0].message
    # the spec says the same
    assert [f.rule for f in audit_files(spec=spec) if f.rule == "GPU008"] == ["GPU008"]


def test_borrowing_alone_counts_as_using_the_flavor(tmp_path: Path) -> None:
    spec = tmp_path / "borrow.yaml"
    spec.write_text(SHARED.format(quota_b="{pool: t4, nominal: 0, borrowingLimit: 4}"))
    out = _render(spec, tmp_path / "out")
    assert [f.rule for f in audit_files(out) if f.rule == "GPU008"] == ["GPU008"]


def test_one_team_per_time_sliced_pool_is_clean(tmp_path: Path) -> None:
    spec = tmp_path / "single.yaml"
    text = SHARED.format(quota_b="{pool: t4, nominal: 0}")
    spec.write_text(text)
    out = _render(spec, tmp_path / "out")
    assert [f for f in audit_files(out) if f.rule == "GPU008"] == []


GENERIC = """apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {{name: onprem, provider: {provider}, kubernetesVersion: "1.31"}}
nodePools:
  - name: dgx
    accelerator: H100-80GB
    gpusPerNode: 8
    minNodes: 2
    maxNodes: 2
    workloadClasses: [training]
"""


def test_generic_fixed_pools_are_not_asked_to_scale_to_zero_or_spread_zones(tmp_path: Path) -> None:
    spec = tmp_path / "generic.yaml"
    spec.write_text(GENERIC.format(provider="generic"))
    ids = {f.rule for f in audit_files(spec=spec)}
    assert not ids & {"GPU016", "GPU018"}
    spec.write_text(GENERIC.format(provider="aks"))  # a provider whose pools scale: both apply
    assert {"GPU016", "GPU018"} <= {f.rule for f in audit_files(spec=spec)}


def test_rendered_node_group_selecting_a_layout_its_gpu_cannot_hold(tmp_path: Path) -> None:
    # eks-dra's a100-mig node group (p4de, A100 80GB) selects gpuplane-a100-mig; written for an
    # A100 40GB (1g.5gb profiles) the layout is one the A100 80GB does not have.
    out = _render(REPO / "examples" / "eks-dra.yaml", tmp_path / "out")
    assert [f for f in audit_files(out) if f.rule == "GPU041"] == []
    config = out / "devices" / "mig-parted-config.yaml"
    text = config.read_text()
    assert "1g.10gb: 2\n" in text
    config.write_text(text.replace("1g.10gb: 2\n", "1g.5gb: 2\n"))
    hits = [f for f in audit_files(out) if f.rule == "GPU041"]
    assert [(f.name, f.file.endswith("eks-nodegroups.yaml")) for f in hits] == [("a100-mig", True)]
    assert "1g.5gb" in hits[0].message
