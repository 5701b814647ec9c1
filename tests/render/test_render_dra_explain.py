"""DRA end to end through explain: the rendered Kueue Configuration (deviceClassMappings), queues and
claim templates plus Workloads whose pods claim devices admit into the DRA pool's flavor, charged to
the mapped quota name, exactly as Kueue's ResourceClaimTemplate path counts them; a direct
ResourceClaim, an unmapped class or a `firstAvailable` request makes the workload inadmissible."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from gpuplane.cli import app

REPO = Path(__file__).resolve().parents[2]


def _workload(name: str, ns: str, count: int, claims: str, extra: str = "") -> str:
    return f"""\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: {ns}, creationTimestamp: "2026-01-01T00:00:0{count}Z"}}
spec:
  queueName: {ns}
  podSets:
    - name: main
      count: {count}
      template:
        spec:
          containers:
            - name: c
              resources: {{requests: {{cpu: "8", memory: 64Gi}}, claims: [{{name: gpu}}]}}
          resourceClaims:
{claims}
{extra}"""


TRAIN = _workload("train", "research", 4, "            - {name: gpu, resourceClaimTemplateName: dra-gpu}")
SERVE = _workload(
    "serve", "serving", 2, "            - {name: gpu, resourceClaimTemplateName: dra-mig-3g.40gb}"
)
DIRECT = _workload("direct", "research", 1, "            - {name: gpu, resourceClaimName: shared-gpu}")
UNMAPPED = _workload(
    "unmapped", "research", 1, "            - {name: gpu, resourceClaimTemplateName: any-gpu}"
)
ANY_GPU = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: any-gpu, namespace: research}
spec:
  spec:
    devices:
      requests:
        - {name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}
"""


def _explain(out: Path, workloads: Path) -> dict[str, Any]:
    args = ["explain", "-o", "json", "-f", str(out / "kueue"), "-f", str(out / "dra"), "-f", str(workloads)]
    args += ["-f", str(out / "tenancy" / "namespaces.yaml")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_dra_claims_admit_into_the_dra_pool_charged_to_their_mapped_quota(tmp_path: Path) -> None:
    out = tmp_path / "out"
    rendered = CliRunner().invoke(app, ["render", str(REPO / "examples" / "eks-dra.yaml"), "-o", str(out)])
    assert rendered.exit_code == 0, rendered.output
    workloads = tmp_path / "workloads.yaml"
    workloads.write_text("---\n".join([TRAIN, SERVE, DIRECT, UNMAPPED, ANY_GPU]))
    report = _explain(out, workloads)
    cycle = report["cycles"][0]
    admitted = {a["workload"]: a for a in cycle["admitted"]}
    assert set(admitted) == {"research/train", "serving/serve"}, cycle
    train = admitted["research/train"]["podSets"][0]
    assert train["flavors"]["dra.gpuplane.io/gpu"] == "h100-train"
    assert admitted["serving/serve"]["podSets"][0]["flavors"]["dra.gpuplane.io/mig-3g.40gb"] == "a100-mig"
    text = json.dumps(report)
    # Kueue's own words for what it cannot count (workload_controller.go handleDRA, claims.go).
    assert "DRA resource claims not supported" in text
    assert "DeviceClass gpu.nvidia.com is not mapped in DRA configuration" in text


def test_a_claim_count_above_the_quota_waits_with_the_mapped_name_in_the_reason(tmp_path: Path) -> None:
    # research holds 16 whole-GPU DRA devices nominal (+16 borrowable, but nobody lends): 40 pods
    # of one claim each exceed what the cohort can ever give, so the workload waits on that name.
    out = tmp_path / "out"
    assert (
        CliRunner().invoke(app, ["render", str(REPO / "examples" / "eks-dra.yaml"), "-o", str(out)]).exit_code
        == 0
    )
    workloads = tmp_path / "workloads.yaml"
    workloads.write_text(
        _workload("huge", "research", 40, "            - {name: gpu, resourceClaimTemplateName: dra-gpu}")
    )
    report = _explain(out, workloads)
    cycle = report["cycles"][0]
    assert not cycle["admitted"], cycle
    assert "dra.gpuplane.io/gpu" in json.dumps(cycle)
