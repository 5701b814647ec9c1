"""Benchmarks of `gpuplane explain` beyond one cycle; printed by `make bench`.

1. Job objects to Workloads (the jobframework conversion) for 10,000 Jobs, JobSets and
   PyTorchJobs read from YAML.
2. `explain --eta` (a cycle, the settling cycles at the instant, then the snapshot run forward in
   simulated time until every pending workload has an estimate) on the snapshots of
   bench_kueue.py: 100 ClusterQueues with 5,000 pending and 2,000 admitted, and the full
   500 ClusterQueues in 20 cohorts with 50,000 pending and 20,000 admitted (the issue's goal for
   this row: under 10 s). Rows give wall and CPU time, the simulated horizon and the number of
   cycles Kueue ran.
"""

from __future__ import annotations

import time

import yaml
from bench_kueue import build_cluster

from gpuplane.explain.command import ExplainOptions, Explanation, explain_input
from gpuplane.explain.eta import EtaOptions
from gpuplane.explain.jobframework import convert_jobs
from gpuplane.explain.load import parse_documents
from gpuplane.kueue.parse import Parsed
from gpuplane.yamlio import load_documents


def _jobs_yaml(n: int) -> str:
    pod = {
        "containers": [
            {"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": 1, "cpu": "4"}}}
        ]
    }
    docs = []
    for i in range(n):
        meta = {"name": f"j{i}", "namespace": f"ns-{i % 50}", "labels": {"kueue.x-k8s.io/queue-name": "lq"}}
        if i % 3 == 0:
            docs.append(
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "metadata": meta,
                    "spec": {"parallelism": 2, "template": {"spec": pod}},
                }
            )
        elif i % 3 == 1:
            rj = {"name": "w", "replicas": 2, "template": {"spec": {"template": {"spec": pod}}}}
            docs.append(
                {
                    "apiVersion": "jobset.x-k8s.io/v1alpha2",
                    "kind": "JobSet",
                    "metadata": meta,
                    "spec": {"replicatedJobs": [rj]},
                }
            )
        else:
            specs = {
                "Master": {"template": {"spec": pod}},
                "Worker": {"replicas": 3, "template": {"spec": pod}},
            }
            docs.append(
                {
                    "apiVersion": "kubeflow.org/v1",
                    "kind": "PyTorchJob",
                    "metadata": meta,
                    "spec": {"pytorchReplicaSpecs": specs},
                }
            )
    return yaml.safe_dump_all(docs)


def _conversion(n: int) -> tuple[float, int]:
    parsed = parse_documents(load_documents(_jobs_yaml(n), "jobs.yaml"))
    t0 = time.perf_counter()
    conv = convert_jobs(parsed)
    return time.perf_counter() - t0, len(conv.jobs)


def _eta(n_cq: int, n_cohorts: int, pending: int, admitted: int) -> tuple[float, float, float, int, int]:
    parsed = Parsed(objects=build_cluster(n_cq, n_cohorts, pending, admitted))
    t0, c0 = time.perf_counter(), time.process_time()
    result = explain_input(parsed, ExplainOptions(eta=EtaOptions()))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    horizon = max((e.seconds or 0.0) for e in result.etas.values()) if result.etas else 0.0
    return wall, cpu, horizon / 3600, eta_cycles(result), len(result.etas)


def eta_cycles(result: Explanation) -> int:
    """The scheduling cycles run after explain's own (the settling at the instant and the ETA run):
    the snapshot's cycle counter, read instead of wrapping the engine's entry point (a compiled
    `explain.eta` calls the scheduler directly)."""
    return result.snap.cycle - len(result.results)


def run() -> list[tuple[str, str]]:
    """Rows of (label, figure)."""
    rows: list[tuple[str, str]] = []
    took, n = _conversion(10_000)
    rows.append(("explain: 10k Jobs/JobSets/PyTorchJobs to Workloads", f"{took:.2f} s ({n} Workloads)"))
    for n_cq, n_cohorts, pending, admitted in ((100, 20, 5_000, 2_000), (500, 20, 50_000, 20_000)):
        wall, cpu, hours, cycles, etas = _eta(n_cq, n_cohorts, pending, admitted)
        rows.append(
            (
                f"explain --eta: {n_cq} CQs, {pending // 1000}k pending, {admitted // 1000}k admitted",
                f"{wall:.1f} s, cpu {cpu:.1f} s ({etas} estimates over {hours:.0f} h simulated, {cycles} cycles)",
            )
        )
    return rows


if __name__ == "__main__":
    for label, figure in run():
        print(f"{label}: {figure}")
