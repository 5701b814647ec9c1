"""Findings point at the offending field (line and column), not the top of the document."""

from __future__ import annotations

from tests.audit.helpers import RULE_FIXTURES, audit_files, audit_yaml, line_at


def _line_col(text: str, needle: str, occurrence: int = 0) -> tuple[int, int]:
    hits = [(i + 1, line.index(needle) + 1) for i, line in enumerate(text.splitlines()) if needle in line]
    return hits[occurrence]


def test_gpu001_points_at_the_gpu_key_in_requests() -> None:
    path = RULE_FIXTURES / "GPU001" / "fail.yaml"
    f = next(f for f in audit_files(path) if f.rule == "GPU001")
    assert (f.line, f.column) == _line_col(path.read_text(), "nvidia.com/gpu")
    assert (f.kind, f.namespace, f.name) == ("Job", "team-a", "finetune")


def test_gpu003_points_at_the_host_path_value() -> None:
    path = RULE_FIXTURES / "GPU003" / "fail.yaml"
    found = sorted((f.line, f.column) for f in audit_files(path) if f.rule == "GPU003")
    text = path.read_text()
    assert found[0] == _line_col(text, "/dev/nvidia0, type")
    assert found[1] == _line_col(text, "/var/lib/kubelet/device-plugins")


def test_position_in_second_document_counts_lines_from_the_file_start() -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n"
        + (RULE_FIXTURES / "GPU010" / "fail.yaml").read_text()
    )
    f = next(f for f in audit_yaml(text) if f.rule == "GPU010")
    assert (f.line, f.column) == _line_col(text, "ghcr.io/huggingface/text-generation-inference")
    assert f.column is not None and line_at(text.splitlines(), f.line)[f.column - 1 :].startswith("ghcr.io")


def test_pool_finding_points_at_the_json_field() -> None:
    path = RULE_FIXTURES / "GPU016" / "fail.json"
    f = next(f for f in audit_files(path) if f.rule == "GPU016")
    assert (f.line, f.column) == _line_col(path.read_text(), '"minCount"')
    assert (f.kind, f.name) == ("AgentPool", "a100train")


def test_position_survives_a_malformed_neighbour_document() -> None:
    text = "kind: [oops\n---\n" + (RULE_FIXTURES / "GPU001" / "fail.yaml").read_text()
    found = audit_yaml(text)
    gpu001 = next(f for f in found if f.rule == "GPU001")
    assert gpu001.line == _line_col(text, "nvidia.com/gpu")[0]
    assert any(f.rule == "GPU000" and f.line is not None and f.line <= 2 for f in found)
