"""A well-run GPU platform bundle audits clean; each single mistake raises exactly its rule."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.audit.helpers import FIXTURES, audit_files, rule_ids

GOLDEN = FIXTURES / "golden"

# (file, [(text, replacement), ...], the rule the mistake must raise, other rules it may also raise)
MISTAKES: list[tuple[str, list[tuple[str, str]], str, set[str]]] = [
    (
        "team-a.yaml",
        [
            (
                "limits: {nvidia.com/gpu: 4, cpu",
                "requests: {nvidia.com/gpu: 4}\n            limits: {nvidia.com/gpu: 2, cpu",
            )
        ],
        "GPU001",
        set(),
    ),
    (
        "team-a.yaml",
        [("image: nvcr.io/nvidia/pytorch:24.05-py3", "image: nvcr.io/nvidia/pytorch:latest")],
        "GPU010",
        set(),
    ),
    ("team-a.yaml", [("          priorityClassName: training-default\n", "")], "GPU014", set()),
    ("team-a.yaml", [("kueue.x-k8s.io/queue-name: team-a, ", "")], "GPU020", set()),
    (
        "team-a.yaml",
        [
            ("priorityClassName: inference-critical", "priorityClassName: training-default"),
            ("nodeSelector: {gpuplane.io/pool: h100-train}", "nodeSelector: {gpuplane.io/pool: l4-serving}"),
            ("limits: {nvidia.com/gpu: 8,", "limits: {nvidia.com/gpu: 4,"),
        ],
        "GPU023",
        set(),
    ),
    (
        "team-a.yaml",
        [("gpuplane.io/team: team-a, gpuplane.io/workload-class: inference", "app: chat")],
        "GPU024",
        set(),
    ),
    (
        "team-a.yaml",
        [('hard: {requests.nvidia.com/gpu: "16"}', 'hard: {requests.cpu: "64"}')],
        "GPU006",
        set(),
    ),
    ("team-a.yaml", [("podSelector: {}", "podSelector: {matchLabels: {app: db}}")], "GPU011", set()),
    (
        "team-a.yaml",
        [("pod-security.kubernetes.io/enforce: baseline", "pod-security.kubernetes.io/warn: baseline")],
        "GPU012",
        set(),
    ),
    (
        "team-a.yaml",
        [("{name: team-a-edit, namespace: team-a}", "{name: team-a-edit, namespace: gpu-operator}")],
        "GPU015",
        set(),
    ),
    ("team-a.yaml", [("persistentVolumeClaim: {claimName: pretrain-ckpt}", "emptyDir: {}")], "GPU019", set()),
    (
        "team-a.yaml",
        [("nodeSelector: {gpuplane.io/pool: l4-serving}", "nodeSelector: {gpuplane.io/pool: h100-train}")],
        "GPU017",
        {"GPU023"},
    ),
    ("team-a.yaml", [("limits: {nvidia.com/gpu: 8,", "limits: {nvidia.com/gpu: 16,")], "GPU025", set()),
    (
        "team-a.yaml",
        [("limits: {nvidia.com/gpu: 4,", "limits: {nvidia.com/mig-3g.40gb: 1,")],
        "GPU022",
        {"GPU006"},
    ),
    ("team-a.yaml", [("cuda>=12.4", "cuda>=12.9")], "GPU021", set()),
    ("cluster.yaml", [("    minSize: 0\n", "    minSize: 1\n")], "GPU016", set()),
    (
        "cluster.yaml",
        [("availabilityZones: [us-east-1a, us-east-1b, us-east-1c]", "availabilityZones: [us-east-1a]")],
        "GPU018",
        set(),
    ),
    (
        "cluster.yaml",
        [("    taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]\n", "")],
        "GPU007",
        set(),
    ),
    ("operator.yaml", [("v1.17.8-ubuntu22.04", "v1.17.7-ubuntu22.04")], "GPU013", set()),
]


def _bundle(tmp_path: Path, file: str = "", edits: list[tuple[str, str]] | None = None) -> Path:
    target = tmp_path / "bundle"
    shutil.copytree(GOLDEN, target)
    if file:
        text = (target / file).read_text()
        for old, new in edits or []:
            assert old in text, f"mistake text not found in {file}: {old!r}"
            text = text.replace(old, new, 1)
        (target / file).write_text(text)
    return target


def test_golden_bundle_is_clean(tmp_path: Path) -> None:
    assert audit_files(_bundle(tmp_path)) == []


@pytest.mark.parametrize(("file", "edits", "rule", "also"), MISTAKES, ids=[m[2] for m in MISTAKES])
def test_one_mistake_raises_its_rule(
    tmp_path: Path, file: str, edits: list[tuple[str, str]], rule: str, also: set[str]
) -> None:
    found = rule_ids(audit_files(_bundle(tmp_path, file, edits)))
    assert rule in found
    # precision: the mistake does not drag in unrelated rules
    assert found - {rule} <= also, sorted(found)
