"""`gpuplane providers`: the matrix as a table and JSON (every fact with its source and date), and
what one spec uses of it; a bad spec exits 2 with its location."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gpuplane.cli import app

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()


def test_matrix_lists_every_provider_with_sourced_facts() -> None:
    table = runner.invoke(app, ["providers"])
    assert table.exit_code == 0, table.output
    for name in ("aks", "gke", "eks", "generic", "coreweave"):
        assert name in table.output
    data = json.loads(runner.invoke(app, ["providers", "-o", "json"]).output)
    rows = {p["name"]: p for p in data["providers"]}
    assert rows["aks"]["facts"]["mig"]["value"] == "instance-profile"
    assert rows["eks"]["facts"]["fabric"]["value"] == "EFA"
    assert all(f["source"] and f["date"] for p in rows.values() for f in p["facts"].values())
    assert "p5 (H100-80GB)" in rows["eks"]["vm_families"]  # from the VM catalog, not repeated
    assert "NV-GKE" in data["sources"]


def test_spec_usage_shows_each_pools_device_api_and_what_it_offers() -> None:
    done = runner.invoke(app, ["providers", "--spec", str(REPO / "examples" / "eks-dra.yaml"), "-o", "json"])
    assert done.exit_code == 0, done.output
    usage = json.loads(done.output)
    assert (usage["provider"], usage["gpuStack"]) == ("eks", "operator")
    pools = {p["pool"]: p for p in usage["pools"]}
    assert pools["h100-train"]["deviceApi"] == "dra" and pools["h100-train"]["offers"] == {
        "dra.gpuplane.io/gpu": 8
    }
    assert pools["l4-plugin"]["offers"] == {"nvidia.com/gpu": 1}
    assert pools["a100-mig"]["mig"]["by"] == "mig-parted"
    table = runner.invoke(app, ["providers", "--spec", str(REPO / "examples" / "aks-platform.yaml")])
    assert table.exit_code == 0 and "--gpu-driver None" in table.output


def test_a_bad_spec_exits_2_with_its_location(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("cluster: {name: c, provider: openstack}\nnodePools: [{name: p}]\n")
    done = runner.invoke(app, ["providers", "--spec", str(bad)])
    assert done.exit_code == 2
    assert f"{bad}:1:" in done.output and "unknown provider 'openstack'" in done.output
