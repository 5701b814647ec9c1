"""Benchmark: `explain` and `audit` on one 50 MB multi-document YAML (`make bench BENCH=large_inputs`).

The input is shaped like `kubectl get ... -A -o yaml` split into documents: Kueue ResourceFlavors,
ClusterQueues and LocalQueues, then thousands of Workloads (pending and admitted, with the
managedFields and status blocks real objects carry) and Jobs. Both commands run as subprocesses
of the installed CLI; the figures are wall time, CPU time (user + system: on a shared machine wall time
also counts the waiting) and peak resident memory of each (the goal in issue 9: under 30 s and
under 500 MB). Figures only, never an assertion.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_BYTES = 50 * 1024 * 1024
TEAMS = 20

HEADER = """apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: a100
spec:
  nodeLabels:
    gpuplane.io/pool: a100
"""

CLUSTER_QUEUE = """---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: team-{t}
spec:
  cohort: ml
  namespaceSelector: {{}}
  queueingStrategy: BestEffortFIFO
  preemption:
    reclaimWithinCohort: Any
    withinClusterQueue: LowerPriority
  resourceGroups:
  - coveredResources: ["cpu", "memory", "nvidia.com/gpu"]
    flavors:
    - name: a100
      resources:
      - name: cpu
        nominalQuota: "512"
      - name: memory
        nominalQuota: 4Ti
      - name: nvidia.com/gpu
        nominalQuota: "32"
        borrowingLimit: "16"
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  name: default
  namespace: team-{t}
spec:
  clusterQueue: team-{t}
"""

WORKLOAD = """---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  creationTimestamp: "2026-11-{day:02d}T{hour:02d}:{minute:02d}:00Z"
  generation: 1
  labels:
    kueue.x-k8s.io/job-uid: 6f1c{i:08d}-0000-4000-8000-00000000{t:04d}
  managedFields:
  - apiVersion: kueue.x-k8s.io/v1beta1
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:labels:
          .: {{}}
          f:kueue.x-k8s.io/job-uid: {{}}
        f:ownerReferences:
          .: {{}}
          k:{{"uid":"6f1c{i:08d}"}}: {{}}
      f:spec:
        .: {{}}
        f:active: {{}}
        f:podSets: {{}}
        f:priority: {{}}
        f:queueName: {{}}
    manager: kueue
    operation: Update
    time: "2026-11-{day:02d}T{hour:02d}:{minute:02d}:00Z"
  name: job-train-{i}-{t}
  namespace: team-{t}
  ownerReferences:
  - apiVersion: batch/v1
    blockOwnerDeletion: true
    controller: true
    kind: Job
    name: train-{i}
    uid: 6f1c{i:08d}
  resourceVersion: "{rv}"
  uid: 0a7e{i:08d}-1111-4000-8000-00000000{t:04d}
spec:
  active: true
  podSets:
  - count: {pods}
    name: main
    template:
      metadata:
        labels:
          app: train-{i}
      spec:
        containers:
        - image: nvcr.io/nvidia/pytorch:24.05-py3
          name: trainer
          args: ["--epochs", "10", "--batch-size", "256"]
          resources:
            limits:
              nvidia.com/gpu: "{gpus}"
            requests:
              cpu: "8"
              memory: 64Gi
              nvidia.com/gpu: "{gpus}"
        restartPolicy: Never
        tolerations:
        - effect: NoSchedule
          key: nvidia.com/gpu
          operator: Exists
  priority: {priority}
  queueName: default
status:
{status}"""

ADMITTED = """  admission:
    clusterQueue: team-{t}
    podSetAssignments:
    - count: {pods}
      flavors:
        cpu: a100
        memory: a100
        nvidia.com/gpu: a100
      name: main
      resourceUsage:
        cpu: "{cpu}"
        memory: {mem}Gi
        nvidia.com/gpu: "{gpu_total}"
  conditions:
  - lastTransitionTime: "2026-11-{day:02d}T{hour:02d}:{minute:02d}:05Z"
    message: Quota reserved in ClusterQueue team-{t}
    reason: QuotaReserved
    status: "True"
    type: QuotaReserved
  - lastTransitionTime: "2026-11-{day:02d}T{hour:02d}:{minute:02d}:05Z"
    message: The workload is admitted
    reason: Admitted
    status: "True"
    type: Admitted
"""

PENDING = """  conditions:
  - lastTransitionTime: "2026-11-{day:02d}T{hour:02d}:{minute:02d}:01Z"
    message: "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor a100"
    reason: Pending
    status: "False"
    type: QuotaReserved
"""


def write_input(path: Path, target: int = TARGET_BYTES) -> tuple[int, int]:
    """Write the corpus; returns (bytes, documents)."""
    size, docs, i = 0, 0, 0
    with path.open("w", encoding="utf-8") as out:
        out.write(HEADER)
        for t in range(TEAMS):
            out.write(CLUSTER_QUEUE.format(t=t))
            docs += 2
        while size < target:
            t, pods, gpus = i % TEAMS, 1 + i % 4, 1 + i % 8
            when = {"day": 1 + i % 28, "hour": i % 24, "minute": i % 60}
            admitted = i % 5 == 0
            status = (ADMITTED if admitted else PENDING).format(
                t=t, pods=pods, cpu=8 * pods, mem=64 * pods, gpu_total=gpus * pods, **when
            )
            text = WORKLOAD.format(
                i=i, t=t, pods=pods, gpus=gpus, priority=i % 3 * 100, rv=10_000 + i, status=status, **when
            )
            out.write(text)
            size += len(text)
            docs += 1
            i += 1
    return path.stat().st_size, docs + 1


MEASURE = """
import resource, subprocess, sys, time
started = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
elapsed = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = usage.ru_utime + usage.ru_stime
print(proc.returncode, f"{elapsed:.1f}", f"{cpu:.1f}", usage.ru_maxrss // 1024, proc.stderr.decode()[-300:].replace(chr(10), " "))
"""


def _measure(args: list[str]) -> str:
    """Run one CLI command in its own measuring process: exit code, seconds, peak RSS."""
    out = subprocess.run([sys.executable, "-c", MEASURE, *args], capture_output=True, text=True, check=True)
    code, seconds, cpu, peak_mib, *rest = out.stdout.split(" ", 4)
    note = f" ({rest[0].strip()})" if rest and rest[0].strip() and code not in ("0", "1") else ""
    return f"{seconds} s wall, {cpu} s CPU, peak {peak_mib} MiB, exit {code}{note}"


def run() -> list[tuple[str, str]]:
    gpuplane = str(Path(sys.executable).parent / "gpuplane")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cluster.yaml"
        started = time.perf_counter()
        size, docs = write_input(path)
        rows = [
            (
                "input",
                f"{size / 2**20:.1f} MiB, {docs} documents (written in {time.perf_counter() - started:.1f} s)",
            )
        ]
        rows.append(
            ("explain -f FILE -o json", _measure([gpuplane, "explain", "-f", str(path), "-o", "json"]))
        )
        rows.append(("audit -f FILE -o json", _measure([gpuplane, "audit", "-f", str(path), "-o", "json"])))
        rows.append(
            (
                "explain, input from a pipe",
                _measure(["bash", "-c", f"cat {path} | {gpuplane} explain -f - -o json"]),
            )
        )
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    rows.append(("(this benchmark process itself)", f"peak {own} MiB, pid {os.getpid()}"))
    return rows


if __name__ == "__main__":
    for label, figure in run():
        print(f"{label}: {figure}")
