"""GPU022 on nodes that show their MIG layout only through GPU Feature Discovery's labels."""

from __future__ import annotations

import pytest

from tests.audit.helpers import audit_yaml

# A mixed-strategy node as GFD labels it: one `<resource>.count` label per MIG resource
# (k8s-device-plugin internal/lm, nvidia.md section 4), and no status.capacity in the input.
NODE = """apiVersion: v1
kind: Node
metadata:
  name: h100-0
  labels:
    nvidia.com/gpu.present: "true"
    nvidia.com/mig.strategy: mixed
    nvidia.com/mig-1g.10gb.count: "7"
    nvidia.com/mig-1g.10gb.memory: "9984"
"""
POD = """---
apiVersion: v1
kind: Pod
metadata: {{name: infer, namespace: team-a}}
spec:
  containers:
    - name: main
      image: vllm/vllm-openai:v0.6.4
      resources: {{limits: {{{resource}: 1}}}}
"""


@pytest.mark.parametrize(
    ("resource", "raised"),
    [("nvidia.com/mig-1g.10gb", False), ("nvidia.com/mig-3g.40gb", True)],
)
def test_mig_profile_offered_through_gfd_count_labels(resource: str, raised: bool) -> None:
    findings = [f for f in audit_yaml(NODE + POD.format(resource=resource)) if f.rule == "GPU022"]
    assert bool(findings) is raised, findings
    if raised:
        assert "MIG resources offered: nvidia.com/mig-1g.10gb" in findings[0].message
