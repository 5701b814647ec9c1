"""Benchmark: time to audit 10,000 objects from files (`make bench`)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

OBJECTS = 10_000
PER_FILE = 100

_TEMPLATES = [
    """apiVersion: apps/v1
kind: Deployment
metadata: {{name: serve-{i}, namespace: team-{t}, labels: {{gpuplane.io/team: team-{t}}}}}
spec:
  selector: {{matchLabels: {{app: serve-{i}}}}}
  template:
    metadata: {{labels: {{app: serve-{i}}}}}
    spec:
      nodeSelector: {{gpuplane.io/pool: pool-{p}}}
      containers:
        - name: server
          image: vllm/vllm-openai:{tag}
          resources: {{limits: {{nvidia.com/gpu: {g}, cpu: "8", memory: 64Gi}}}}
""",
    """apiVersion: batch/v1
kind: Job
metadata: {{name: train-{i}, namespace: team-{t}}}
spec:
  template:
    spec:
      restartPolicy: Never
      nodeSelector: {{eks.amazonaws.com/capacityType: SPOT}}
      tolerations: [{{key: nvidia.com/gpu, operator: Exists}}]
      containers:
        - name: t
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources: {{requests: {{nvidia.com/gpu: {g}}}, limits: {{nvidia.com/gpu: {g}}}}}
""",
    """apiVersion: v1
kind: Service
metadata: {{name: svc-{i}, namespace: team-{t}}}
spec: {{ports: [{{port: 80}}], selector: {{app: serve-{i}}}}}
""",
    """apiVersion: v1
kind: ConfigMap
metadata: {{name: cm-{i}, namespace: team-{t}}}
data: {{key: value-{i}}}
""",
]


def _write_corpus(folder: Path) -> None:
    docs = []
    for i in range(OBJECTS):
        tmpl = _TEMPLATES[i % len(_TEMPLATES)]
        docs.append(
            tmpl.format(i=i, t=i % 20, p=i % 4, g=1 + i % 8, tag="latest" if i % 7 == 0 else "v0.6.3")
        )
    for start in range(0, OBJECTS, PER_FILE):
        (folder / f"objects-{start // PER_FILE:04d}.yaml").write_text(
            "---\n".join(docs[start : start + PER_FILE])
        )


def run() -> list[tuple[str, str]]:
    """Audit 10,000 objects (100 files) and report read, rule and total times."""
    from gpuplane.audit import AuditConfig, audit, read_inputs

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _write_corpus(folder)
        t0 = time.perf_counter()
        inputs = read_inputs([str(folder)])
        t1 = time.perf_counter()
        findings = audit(inputs, AuditConfig())
        t2 = time.perf_counter()
    return [
        ("audit: objects read", f"{len(inputs.objects)}"),
        ("audit: read + parse 10,000 objects", f"{t1 - t0:.2f} s"),
        ("audit: run 26 rules", f"{t2 - t1:.2f} s"),
        ("audit: total for 10,000 objects", f"{t2 - t0:.2f} s ({len(findings)} findings)"),
    ]


if __name__ == "__main__":
    for label, figure in run():
        print(f"{label:40s} {figure}")
