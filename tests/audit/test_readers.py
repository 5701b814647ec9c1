"""Reading inputs: multi-document files, Lists, directories, stdin, node pool formats, bad input."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpuplane.audit import read_path, read_text
from gpuplane.audit.readers.split import chunks
from gpuplane.errors import InputError
from gpuplane.limits import limits
from tests.audit.helpers import RULE_FIXTURES, audit_yaml, line_at, rule_ids


def test_multi_document_text_yields_every_object() -> None:
    text = "kind: Namespace\nmetadata: {name: a}\n---\n---\nkind: Namespace\nmetadata: {name: b}\n...\n"
    assert [o.name for o in read_text(text, "x.yaml").objects] == ["a", "b"]


def test_kind_list_items_become_objects_and_inherit_the_item_kind() -> None:
    text = "apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: p, namespace: n}\n  spec: {containers: []}\n"
    objs = read_text(text, "x.yaml").objects
    assert [(o.kind, o.name, o.namespace) for o in objs] == [("Pod", "p", "n")]


def test_malformed_document_is_a_finding_and_the_rest_is_still_read() -> None:
    inputs = read_text((RULE_FIXTURES / "GPU000" / "fail.yaml").read_text(), "f.yaml")
    assert [o.name for o in inputs.objects] == ["team-a", "team-b"]
    assert [f.rule for f in inputs.findings] == ["GPU000"]
    assert inputs.findings[0].line is not None and inputs.findings[0].line >= 15


def test_chunks_split_on_markers_and_keep_line_numbers() -> None:
    text = "a: 1\n---\nb: 2\n...\nc: 3\n"
    assert [n for n, _ in chunks(text)] == [0, 1, 4]


def test_directory_is_read_recursively_in_sorted_order(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.yaml").write_text("kind: Namespace\nmetadata: {name: b}\n")
    (tmp_path / "a.yml").write_text("kind: Namespace\nmetadata: {name: a}\n")
    (tmp_path / "notes.txt").write_text("kind: Namespace\nmetadata: {name: ignored}\n")
    assert [o.name for o in read_path(str(tmp_path)).objects] == ["a", "b"]


def test_stdin_is_read_as_one_input() -> None:
    inputs = read_path("-", "kind: Namespace\nmetadata: {name: s}\n")
    assert inputs.objects[0].file == "<stdin>"


def test_missing_path_is_an_input_error() -> None:
    with pytest.raises(InputError):
        read_path("/nonexistent/file.yaml")


def test_non_utf8_file_is_a_finding(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"kind: \xff\xfe\n")
    assert [f.rule for f in read_path(str(bad)).findings] == ["GPU000"]


def test_file_over_the_size_limit_is_a_finding_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("kind: Namespace\nmetadata: {name: big}\n" + "# pad\n" * 100)
    small = dataclasses.replace(limits(), input_bytes=50)
    monkeypatch.setattr("gpuplane.audit.readers.files.limits", lambda: small)
    found = read_path(str(big)).findings
    assert found and "too large" in found[0].message
    assert limits().input_bytes > 1024 * 1024


@pytest.mark.parametrize(
    ("name", "source", "count"),
    [("GPU016/fail.json", "aks", 1), ("GPU017/fail-gke.json", "gke", 2), ("GPU007/fail.yaml", "eksctl", 2)],
)
def test_node_pool_formats_are_recognised_by_content(name: str, source: str, count: int) -> None:
    pools = read_path(str(RULE_FIXTURES / name)).pools
    assert [p.source for p in pools] == [source] * count


def test_gke_gpu_pool_is_tainted_by_gke_when_the_cluster_has_cpu_pools() -> None:
    pools = read_path(str(RULE_FIXTURES / "GPU017" / "fail-gke.json")).pools
    gpu = next(p for p in pools if p.gpu)
    assert ("nvidia.com/gpu", "present", "NoSchedule") in gpu.taints


def test_eksctl_default_minimum_applies_when_sizes_are_omitted() -> None:
    text = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c}\nnodeGroups:\n  - name: train\n    instanceType: p4d.24xlarge\n"
    pool = read_text(text, "c.yaml").pools[0]
    assert (pool.gpu, pool.gpus_per_node, pool.min_nodes, pool.classes) == (True, 8, 2, {"training"})


def test_unknown_kinds_are_read_as_objects_and_do_not_break_the_audit() -> None:
    text = "apiVersion: example.com/v1\nkind: Widget\nspec: {size: 3}\n---\nkind: Pod\n"
    assert [o.kind for o in read_text(text, "w.yaml").objects] == ["Widget", "Pod"]
    assert rule_ids(audit_yaml(text)) <= {"GPU000"}


def test_documents_no_reader_recognises_are_located_errors_not_skipped() -> None:
    text = "just a string\n---\n- 1\n- 2\n---\nkind: Namespace\nmetadata: {name: a}\n---\nname: x\n"
    with pytest.raises(InputError) as caught:
        read_text(text, "mixed.yaml")
    problems = caught.value.problems
    assert [(p.file, p.line, p.column, p.severity) for p in problems] == [
        ("mixed.yaml", 1, 1, "error"),
        ("mixed.yaml", 3, 1, "error"),
        ("mixed.yaml", 9, 1, "error"),
    ]
    assert "a str value" in problems[0].message and "a list" in problems[1].message
    assert "a mapping without `kind` (keys: name)" in problems[2].message
    assert all("not an audit input" in p.message and "readers: aks" in p.message for p in problems)


def test_invalid_platform_spec_in_a_manifest_stream_is_a_finding() -> None:
    text = "apiVersion: gpuplane.io/v1alpha1\nkind: Platform\ncluster: {name: x}\n"
    found = read_text(text, "p.yaml").findings
    assert found and found[0].rule == "GPU000"


def test_cluster_describe_outputs_carry_their_pools(tmp_path: Path) -> None:
    import json

    aks = json.loads((RULE_FIXTURES / "GPU018" / "fail.json").read_text())
    gke = json.loads((RULE_FIXTURES / "GPU017" / "fail-gke.json").read_text())
    (tmp_path / "aks-show.json").write_text(json.dumps({"name": "c", "agentPoolProfiles": aks}, indent=2))
    (tmp_path / "gke-describe.json").write_text(json.dumps({"name": "c", "nodePools": gke}, indent=2))
    pools = read_path(str(tmp_path)).pools
    assert sorted((p.source, p.name) for p in pools) == [
        ("aks", "a100"),
        ("aks", "h100"),
        ("gke", "default-pool"),
        ("gke", "l4-serving"),
    ]
    h100 = next(p for p in pools if p.name == "h100")
    text = (tmp_path / "aks-show.json").read_text().splitlines()
    assert '"availabilityZones"' in line_at(text, h100.pos("zones")[0])
