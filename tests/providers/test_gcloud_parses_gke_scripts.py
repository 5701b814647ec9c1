"""The rendered GKE scripts as gcloud itself parses them: every `gcloud container node-pools create`
of the script runs through the real Google Cloud SDK (offline, with an empty configuration), which
validates flags and `--accelerator` keys before it needs credentials. A command gcloud accepts stops
at "no active account"; a bad flag or key stops earlier with an argument error."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from gpuplane.render.nodepools import nodepool_file
from tests.render.render_helpers import SMALL_SPEC, small_spec

GCLOUD = shutil.which("gcloud")
pytestmark = pytest.mark.skipif(GCLOUD is None, reason="the Google Cloud SDK (gcloud) is not installed")
ACCEPTED = "You do not currently have an active account selected"

# A `gcloud` first on PATH that runs the real one and turns "parsed, then needs an account" into
# success, and a `kubectl` that only records what the script applies (nothing reaches a cluster).
GCLOUD_SHIM = """#!/usr/bin/env bash
out="$("{gcloud}" "$@" --project=gpuplane-test 2>&1)"
if grep -q "{accepted}" <<<"$out"; then echo "parsed: $*" >>"{log}"; exit 0; fi
echo "$out" >&2
exit 1
"""
KUBECTL_SHIM = """#!/usr/bin/env bash
echo "kubectl $*" >>"{log}"
"""


def _shim(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def _run(script_text: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.log"
    bin_dir.mkdir()
    _shim(bin_dir / "gcloud", GCLOUD_SHIM.format(gcloud=GCLOUD, accepted=ACCEPTED, log=log))
    _shim(bin_dir / "kubectl", KUBECTL_SHIM.format(log=log))
    script = tmp_path / "gke-node-pools.sh"
    script.write_text(script_text)
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "CLOUDSDK_CONFIG": str(tmp_path / "gcloud-config"),
        "CLOUDSDK_CORE_DISABLE_PROMPTS": "1",
        "CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK": "1",
    }
    done = subprocess.run(
        ["bash", str(script)], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    calls = log.read_text().splitlines() if log.exists() else []
    return done, calls


@pytest.mark.parametrize("stack", ["operator", "provider"])
def test_gcloud_accepts_every_rendered_node_pool_command(stack: str, tmp_path: Path) -> None:
    text = SMALL_SPEC.replace(
        "strategy: mixed, layout: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]",
        "strategy: single, config: all-1g.10gb",
    ).replace("resource: nvidia.com/mig-3g.40gb, ", "")
    if stack == "provider":
        text = text.replace("resourceGroup: rg-small}", "resourceGroup: rg-small, gpuStack: provider}")
    spec = small_spec("gke", text)
    done, calls = _run(nodepool_file(spec).text, tmp_path)
    assert done.returncode == 0, done.stderr
    parsed = [c for c in calls if c.startswith("parsed: container node-pools create")]
    assert len(parsed) == len(spec.node_pools)
    installer = [c for c in calls if c.startswith("kubectl apply")]
    assert bool(installer) == (stack == "operator")  # Google's driver installer, NVIDIA's GKE guide


def test_gcloud_rejects_an_accelerator_key_it_does_not_know(tmp_path: Path) -> None:
    # Guards the guard: the shim must not turn an argument error into success.
    script = nodepool_file(small_spec("gke")).text.replace("gpu-driver-version=", "gpu-driver-flavour=")
    done, calls = _run(script, tmp_path)
    assert done.returncode != 0 and "valid keys are" in done.stderr
    assert not [c for c in calls if c.startswith("parsed:")]


def test_gcloud_accepts_the_purchase_flags(tmp_path: Path) -> None:
    # A named reservation (reserved) on one pool, flex-start on another: the real SDK parses both.
    text = (
        SMALL_SPEC.replace(
            "strategy: mixed, layout: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]",
            "strategy: single, config: all-1g.10gb",
        )
        .replace("resource: nvidia.com/mig-3g.40gb, ", "")
        .replace(
            "    labels: {tier: dev}\n",
            "    labels: {tier: dev}\n    purchase:\n"
            "      - {option: reserved, count: 2, term: 1y, hourly: 1.0, reservation: t4-res}\n"
            "      - {option: on-demand}\n",
        )
        .replace(
            "    workloadClasses: [inference]\n",
            "    workloadClasses: [inference]\n    purchase:\n"
            "      - {option: flex-start, max: 3, provisioningDelay: 1h, hourly: 1.0}\n",
        )
    )
    spec = small_spec("gke", text)
    script = nodepool_file(spec).text
    assert "--reservation-affinity specific \\\n  --reservation t4-res" in script
    assert script.count("--flex-start") == 1
    done, calls = _run(script, tmp_path)
    assert done.returncode == 0, done.stderr
    parsed = [c for c in calls if c.startswith("parsed: container node-pools create")]
    assert len(parsed) == len(spec.node_pools)
    assert any("--flex-start" in c for c in parsed) and any("--reservation t4-res" in c for c in parsed)
