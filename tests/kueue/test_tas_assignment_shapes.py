"""`topologyAssignment` in both API shapes: what gpuplane writes validates against Kueue's Workload
CRD (../shared/crds), reads back to the same assignment, and an admitted v1beta2 Workload's
domains are charged like a v1beta1 one's."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
import yaml

from gpuplane.kueue.tas.model import DomainCount, TopologyAssignment, from_v1beta1, from_v1beta2
from gpuplane.vocab import HOSTNAME_LABEL
from tests.support.crds import CRD_DIR, strict

RACK = "example.com/rack"
CASES = [
    TopologyAssignment((HOSTNAME_LABEL,), (DomainCount(("x1",), 4), DomainCount(("x2",), 2))),
    TopologyAssignment((HOSTNAME_LABEL,), (DomainCount(("x1",), 1), DomainCount(("x2",), 1))),
    TopologyAssignment((RACK, HOSTNAME_LABEL), (DomainCount(("r1", "x1"), 3), DomainCount(("r2", "x9"), 1))),
    TopologyAssignment((RACK, HOSTNAME_LABEL), (DomainCount(("r1", "x1"), 2),)),
]


def _schema(version: str) -> dict[str, Any]:
    crd = yaml.safe_load((CRD_DIR / "kueue" / "kueue.x-k8s.io_workloads.yaml").read_text(encoding="utf-8"))
    for v in crd["spec"]["versions"]:
        if v["name"] == version:
            props = v["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]["admission"]
            ta: dict[str, Any] = props["properties"]["podSetAssignments"]["items"]["properties"][
                "topologyAssignment"
            ]
            return strict(ta)  # type: ignore[no-any-return]
    raise AssertionError(version)


@pytest.mark.parametrize("ta", CASES)
def test_both_shapes_validate_and_read_back(ta: TopologyAssignment) -> None:
    jsonschema.validate(ta.to_v1beta1(), _schema("v1beta1"))
    jsonschema.validate(ta.to_v1beta2(), _schema("v1beta2"))
    assert from_v1beta1(ta.to_v1beta1()) == ta
    assert from_v1beta2(ta.to_v1beta2()) == ta


def test_a_v1beta2_prefix_and_universal_count_are_expanded() -> None:
    data = {
        "levels": [HOSTNAME_LABEL],
        "slices": [
            {
                "domainCount": 3,
                "valuesPerLevel": [{"individual": {"prefix": "node-", "roots": ["1", "2", "3"]}}],
                "podCounts": {"universal": 2},
            }
        ],
    }
    jsonschema.validate(data, _schema("v1beta2"))
    got = from_v1beta2(data)
    assert got.domains == tuple(DomainCount((f"node-{i}",), 2) for i in (1, 2, 3))


def test_an_admitted_v1beta2_workload_holds_its_domains(tmp_path: Any) -> None:
    import json
    from pathlib import Path

    from typer.testing import CliRunner

    from gpuplane.cli import app

    scenario = (
        Path(__file__).resolve().parents[1] / "kueue_upstream" / "tas_scenarios" / "node_used_by_tas_workload"
    )
    docs = list(yaml.safe_load_all((scenario / "objects.yaml").read_text(encoding="utf-8")))
    for doc in docs:
        if doc["kind"] == "Workload" and "status" in doc:
            doc["apiVersion"] = "kueue.x-k8s.io/v1beta2"
            psa = doc["status"]["admission"]["podSetAssignments"][0]
            psa["topologyAssignment"] = from_v1beta1(psa["topologyAssignment"]).to_v1beta2()
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    result = CliRunner().invoke(app, ["explain", "-f", str(path), "-o", "json"])
    assert result.exit_code == 0, result.stderr
    pending = json.loads(result.stdout)["cycles"][0]["pending"]
    assert [p["workload"] for p in pending] == ["default/foo"]
    assert "doesn't allow to fit any of 1 pod(s)" in pending[0]["reason"]
