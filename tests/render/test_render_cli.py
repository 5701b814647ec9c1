"""`gpuplane render` on the command line: atomic output directory, the YAML stream, `--check`
drift detection for GitOps, the Kueue API switch, byte-identical re-renders, and bad input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gpuplane.outputs import write_tree_atomic
from gpuplane.render import render_all
from gpuplane.render.command import TREE_MARKER, diff_tree
from gpuplane.spec import load_spec
from tests.render.render_helpers import REPO, rendered

GPUPLANE = [sys.executable, "-c", "from gpuplane.cli import main; main()"]
AKS = REPO / "examples" / "aks-platform.yaml"


def run(*args: str | Path, hash_seed: str = "random") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    return subprocess.run(
        [*GPUPLANE, *map(str, args)], capture_output=True, text=True, cwd=REPO, check=False, env=env
    )


def snapshot(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def test_render_writes_every_file_and_an_index_listing_them(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = run("render", AKS, "-o", out)
    assert proc.returncode == 0, proc.stderr
    files = snapshot(out)
    index = yaml.safe_load(files["index.yaml"])
    listed = {entry["path"] for entry in index["files"]}
    assert listed == set(files)
    assert all(entry["why"] for entry in index["files"])
    readme = files["README.md"].decode()
    assert all(f"`{path}`" in readme for path in listed)


def test_rendering_twice_gives_byte_identical_output(example: Path) -> None:
    first = render_all(load_spec(example)).files
    second = render_all(load_spec(example)).files
    assert first == second


def test_processes_with_different_hash_seeds_write_identical_bytes(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    assert run("render", AKS, "-o", first, hash_seed="1").returncode == 0
    assert run("render", AKS, "-o", second, hash_seed="2").returncode == 0
    assert snapshot(first) == snapshot(second)


def test_check_passes_on_fresh_output_and_detects_a_one_line_drift(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run("render", AKS, "-o", out).returncode == 0
    clean = run("render", AKS, "--check", out)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    target = out / "kueue" / "cluster-queues.yaml"
    lines = target.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if "nominalQuota: 6" in line)
    lines[at] = lines[at].replace("nominalQuota: 6", "nominalQuota: 7")
    target.write_text("".join(lines))
    drift = run("render", AKS, "--check", out)
    assert drift.returncode == 1
    assert drift.stdout.strip() == "changed: kueue/cluster-queues.yaml"


def test_check_reports_missing_and_extra_files(tmp_path: Path) -> None:
    _, result = rendered(AKS)
    out = tmp_path / "out"
    write_tree_atomic(out, result.files, TREE_MARKER)
    assert diff_tree(result.files, out) == []
    (out / "tenancy" / "limit-ranges.yaml").unlink()
    (out / "stray.yaml").write_text("x: 1\n")
    assert diff_tree(result.files, out) == ["extra: stray.yaml", "missing: tenancy/limit-ranges.yaml"]


def test_output_dash_streams_every_kubernetes_object_as_yaml() -> None:
    proc = run("render", AKS, "-o", "-")
    assert proc.returncode == 0, proc.stderr
    docs = [d for d in yaml.safe_load_all(proc.stdout) if d]
    _, result = rendered(AKS)
    expected = sum(len(objs) for objs in result.objects.values())
    assert len(docs) == expected
    assert all("apiVersion" in d and "kind" in d and "metadata" in d for d in docs)


def test_kueue_api_v1beta1_uses_the_old_cohort_field(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run("render", AKS, "-o", out, "--kueue-api", "v1beta1").returncode == 0
    queues = list(yaml.safe_load_all((out / "kueue" / "cluster-queues.yaml").read_text()))
    cqs = [q for q in queues if q]
    assert all(q["apiVersion"] == "kueue.x-k8s.io/v1beta1" for q in cqs)
    assert all("cohort" in q["spec"] and "cohortName" not in q["spec"] for q in cqs)


def test_unknown_kueue_api_is_a_usage_error(tmp_path: Path) -> None:
    proc = run("render", AKS, "-o", tmp_path / "out", "--kueue-api", "v1alpha1")
    assert proc.returncode == 2
    assert "--kueue-api" in proc.stderr
    assert not (tmp_path / "out").exists()


BAD_SPEC = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: bad, provider: aks, region: eastus}
nodePools:
  - name: a100
    accelerator: A100-80GB
    vmSize: Standard_NC24ads_A100_v4
    minNodes: 5
    maxNodes: 2
"""


@pytest.mark.parametrize("mode", ["-o", "--check"])
def test_bad_spec_exits_2_with_a_located_message_and_leaves_the_directory_untouched(
    tmp_path: Path, mode: str
) -> None:
    out = tmp_path / "out"
    assert run("render", AKS, "-o", out).returncode == 0
    before = snapshot(out)
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD_SPEC)
    proc = run("render", bad, mode, out)
    assert proc.returncode == 2
    assert f"{bad}:" in proc.stderr and "nodePools[0]" in proc.stderr
    assert snapshot(out) == before


def test_in_process_render_matches_the_cli_output(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run("render", AKS, "-o", out).returncode == 0
    spec, _ = rendered(AKS)
    files = render_all(spec).files
    assert {k: v.encode() for k, v in files.items()} == snapshot(out)
