"""mig-parted configs (the file and the MIG manager's ConfigMap) through GPU040/GPU041: NVIDIA's own
configs pass, impossible layouts and layouts the pool's GPU does not take are found. The layouts'
verdicts follow the MIG placement rules (`gpuplane mig check`; nvidia.md section 1.4) by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplane.audit import Finding
from gpuplane.audit.readers.mig_parted import recognises
from tests.audit.helpers import FIXTURES, audit_files, audit_yaml, line_at

NVIDIA_DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "reference" / "nvidia-data"
RULES = FIXTURES / "rules"


def _mig(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.rule in ("GPU040", "GPU041")]


@pytest.mark.parametrize(
    "name",
    [
        "gpu-operator-default-mig-parted-config.yaml",  # the operator's default ConfigMap, verbatim
        "mig-parted-examples-config.yaml",  # mig-parted's examples/config.yaml, verbatim
        "gpu-operator-docs-custom-mig-config.yaml",
    ],
)
def test_nvidias_own_configs_pass(name: str) -> None:
    path = NVIDIA_DATA / name
    if not path.is_file():
        pytest.skip("the shared NVIDIA reference copy is not here")
    assert _mig(audit_files(path)) == []


def test_the_bare_file_is_an_audit_input_not_an_error() -> None:
    assert recognises({"version": "v1", "mig-configs": {"all-disabled": []}})
    assert not recognises({"kind": "ConfigMap", "mig-configs": {}})


def test_impossible_layouts_in_the_file() -> None:
    path = RULES / "GPU040" / "fail.yaml"
    found = [f for f in audit_files(path) if f.rule == "GPU040"]
    lines = path.read_text().splitlines()
    # 8 x 1g.10gb: at most 7 on any GPU; 3g.20gb x2 + 2g.10gb on A100 40GB: 8 of 7 compute slices;
    # MIG off with devices listed: spec.go rejects it.
    assert [f.message.split(":")[0] for f in found] == [
        "mig-parted config 'eight-small' entry 0",
        "mig-parted config 'a100-40gb-too-big' entry 0 (0x20B010DE, A100-40GB)",
        "mig-parted config 'off-with-devices' entry 0",
    ]
    assert all(
        "- devices" in line_at(lines, f.line) or "device-filter" in line_at(lines, f.line) for f in found
    )


def test_impossible_layout_inside_the_configmap_points_into_its_value() -> None:
    path = RULES / "GPU040" / "fail-configmap.yaml"
    (hit,) = [f for f in audit_files(path) if f.rule == "GPU040"]
    assert "four-3g" in hit.message and "3g.40gb: 4" in hit.message
    assert "- devices: all" in line_at(path.read_text().splitlines(), hit.line)
    assert line_at(path.read_text().splitlines(), (hit.line or 0) - 1).strip() == "four-3g:"


def test_a_filter_names_a_gpu_the_layout_fits_elsewhere() -> None:
    # 1g.10gb x7 fits an H100 80GB but not an A100 40GB (whose 1g.10gb maximum is 4).
    text = """version: v1
mig-configs:
  small:
    - device-filter: ["0x233010DE", "0x20B010DE"]
      devices: all
      mig-enabled: true
      mig-devices: {"1g.10gb": 7}
"""
    (hit,) = [f for f in audit_yaml(text) if f.rule == "GPU040"]
    assert "0x20B010DE, A100-40GB" in hit.message


def test_node_selecting_a_config_without_an_entry_for_its_gpu() -> None:
    (hit,) = [f for f in audit_files(RULES / "GPU041" / "fail.yaml") if f.rule == "GPU041"]
    assert "has no entry for A100-40GB" in hit.message


def test_node_selecting_a_config_the_input_does_not_define() -> None:
    text = (
        (RULES / "GPU041" / "fail.yaml")
        .read_text()
        .replace("nvidia.com/mig.config: h100-only", "nvidia.com/mig.config: typo")
    )
    (hit,) = [f for f in audit_yaml(text) if f.rule == "GPU041"]
    assert "no mig-parted config in the input defines 'typo'" in hit.message


def test_default_config_that_does_not_apply_to_the_gpu() -> None:
    # all-1g.5gb has no filter but only the A100 40GB has a 1g.5gb profile.
    text = (RULES / "GPU041" / "pass.yaml").read_text()
    text = text.replace("NVIDIA-A100-SXM4-40GB", "NVIDIA-H100-80GB-HBM3").replace(
        "all-balanced", "all-1g.5gb"
    )
    (hit,) = [f for f in audit_yaml(text) if f.rule == "GPU041"]
    assert "default config 'all-1g.5gb' does not apply to H100-80GB" in hit.message


def test_spec_pool_selects_a_config_that_has_no_entry_for_its_gpu(tmp_path: Path) -> None:
    spec = Path(__file__).resolve().parents[2] / "src" / "gpuplane" / "sim" / "data" / "builtin-platform.yaml"
    assert _mig(audit_files(spec=spec)) == []  # the spec alone: its configs are not in the input
    wrong = tmp_path / "mig-parted.yaml"  # the config the a100-mig pool selects, filtered to H100 80GB
    wrong.write_text(
        "version: v1\nmig-configs:\n  gpuplane-a100-mig:\n    - device-filter: ['0x233010DE']\n"
        "      devices: all\n      mig-enabled: true\n      mig-devices: {'3g.40gb': 2}\n"
    )
    (hit,) = _mig(audit_files(wrong, spec=spec))
    assert hit.rule == "GPU041" and hit.name == "a100-mig" and "no entry for A100-80GB" in hit.message


def _entry(pci: str, layout: list[str]) -> str:
    counts: dict[str, int] = {}
    for name in layout:
        counts[name] = counts.get(name, 0) + 1
    devices = ", ".join(f'"{k}": {v}' for k, v in counts.items())
    return (
        f'version: v1\nmig-configs:\n  c:\n    - device-filter: "{pci}"\n      devices: all\n'
        f"      mig-enabled: true\n      mig-devices: {{{devices}}}\n"
    )


def test_every_catalog_mig_gpu_maximal_layouts_pass_and_one_more_profile_fails() -> None:
    # Theory: a maximal layout fits (by definition), and no profile can be added to it.
    from gpuplane.catalog import load_catalog
    from gpuplane.sharing.mig import maximal_layouts

    checked = 0
    for acc in load_catalog().accelerators():
        if not acc.mig_capable or not acc.pci_device_ids:
            continue
        pci = acc.pci_device_ids[0]
        for layout in maximal_layouts(acc)[:6]:
            assert [f.message for f in audit_yaml(_entry(pci, layout)) if f.rule == "GPU040"] == []
            for extra in sorted(acc.mig_profiles)[:3]:
                hits = [f for f in audit_yaml(_entry(pci, [*layout, extra])) if f.rule == "GPU040"]
                assert len(hits) == 1 and acc.name in hits[0].message, (acc.name, layout, extra)
            checked += 1
    assert checked >= 10  # every MIG GPU of the catalog with a PCI id contributes
