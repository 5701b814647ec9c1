"""Synthetic Kueue clusters for benchmarks and equivalence tests: flavors, cohorts (some nested
under a parent), ClusterQueues with random preemption policies, admitted and pending workloads.
`make bench` (benchmarks/bench_kueue.py, bench_explain.py) times cycles over them; tests run the
engine's fast paths and general paths over the same shapes and compare the outcomes."""

from __future__ import annotations

import random

from gpuplane.kueue import (
    Admission,
    ClusterQueue,
    Cohort,
    FlavorQuotas,
    LocalQueue,
    PodSet,
    PodSetAssignment,
    PreemptionPolicy,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Workload,
)
from gpuplane.vocab import GPU_RESOURCE

GPU = GPU_RESOURCE


def _cq(name: str, cohort: str | None, gpus: int, rng: random.Random) -> ClusterQueue:
    flavors = (
        FlavorQuotas("h100", (ResourceQuota(GPU, gpus * 1000), ResourceQuota("cpu", gpus * 16000))),
        FlavorQuotas(
            "a100",
            (ResourceQuota(GPU, gpus * 1000, borrowing_limit=gpus * 500), ResourceQuota("cpu", gpus * 16000)),
        ),
    )
    policy = PreemptionPolicy(
        within_cluster_queue=rng.choice(["Never", "LowerPriority", "LowerOrNewerEqualPriority"]),
        reclaim_within_cohort=rng.choice(["Never", "LowerPriority", "Any"]),
    )
    return ClusterQueue(name, cohort, (ResourceGroup((GPU, "cpu"), flavors),), preemption=policy)


def build_cluster(n_cq: int, n_cohorts: int, pending: int, admitted: int, seed: int = 7) -> list[object]:
    """Objects for a synthetic cluster: flavors, cohorts (some nested), queues and workloads."""
    rng = random.Random(seed)
    objs: list[object] = [ResourceFlavor("h100"), ResourceFlavor("a100")]
    objs += [Cohort(f"org-{i}") for i in range(n_cohorts // 4)]
    for i in range(n_cohorts):
        parent = f"org-{i % max(1, n_cohorts // 4)}" if i % 4 == 0 and n_cohorts >= 4 else None
        objs.append(Cohort(f"cohort-{i}", parent))
    for i in range(n_cq):
        name = f"cq-{i}"
        objs.append(_cq(name, f"cohort-{i % n_cohorts}", rng.choice([8, 16, 32]), rng))
        objs.append(LocalQueue(f"ns-{i}", "lq", name))
    for j in range(admitted):
        i = j % n_cq
        gpus = rng.choice([1, 2, 4])
        w = Workload(
            f"ns-{i}",
            f"run-{j}",
            "lq",
            priority=rng.choice([0, 100, 1000]),
            creation_time=float(j),
            pod_sets=[PodSet("main", 1, {GPU: gpus, "cpu": gpus * 8})],
        )
        flavor = "h100" if j % 2 else "a100"
        w.admission = Admission(
            f"cq-{i}",
            [
                PodSetAssignment(
                    "main", {GPU: flavor, "cpu": flavor}, {GPU: gpus * 1000, "cpu": gpus * 8000}, 1
                )
            ],
        )
        w.quota_reserved_time = float(j)
        objs.append(w)
    for j in range(pending):
        i = rng.randrange(n_cq)
        gpus = rng.choice([1, 2, 4, 8])
        objs.append(
            Workload(
                f"ns-{i}",
                f"job-{j}",
                "lq",
                priority=rng.choice([0, 100, 1000]),
                creation_time=float(admitted + j),
                pod_sets=[PodSet("main", rng.choice([1, 2]), {GPU: gpus, "cpu": gpus * 8})],
            )
        )
    return objs


def build_contended(n_cq: int, n_cohorts: int, pending: int, seed: int = 5) -> list[object]:
    """Objects for a cluster under contention: usage at 2x, 0.3x or 1x nominal per ClusterQueue."""
    rng = random.Random(seed)
    objs: list[object] = [ResourceFlavor("h100"), ResourceFlavor("a100")]
    objs += [Cohort(f"org-{i}") for i in range(n_cohorts // 4)]
    for i in range(n_cohorts):
        parent = f"org-{i % max(1, n_cohorts // 4)}" if i % 4 == 0 and n_cohorts >= 4 else None
        objs.append(Cohort(f"cohort-{i}", parent))
    j = 0
    for i in range(n_cq):
        gpus = rng.choice([8, 16, 32])
        objs.append(_cq(f"cq-{i}", f"cohort-{i % n_cohorts}", gpus, rng))
        objs.append(LocalQueue(f"ns-{i}", "lq", f"cq-{i}"))
        for flavor in ("h100", "a100"):
            used = 0
            while used < gpus * (2.0, 0.3, 1.0)[i % 3]:
                g = rng.choice([1, 2, 4])
                w = Workload(
                    f"ns-{i}",
                    f"run-{j}",
                    "lq",
                    priority=rng.choice([0, 100, 1000]),
                    creation_time=float(j),
                    pod_sets=[PodSet("main", 1, {GPU: g, "cpu": g * 8})],
                )
                w.admission = Admission(
                    f"cq-{i}",
                    [
                        PodSetAssignment(
                            "main", {GPU: flavor, "cpu": flavor}, {GPU: g * 1000, "cpu": g * 8000}, 1
                        )
                    ],
                )
                w.quota_reserved_time = float(j)
                objs.append(w)
                j += 1
                used += g
    for k in range(pending):
        i = rng.randrange(n_cq)
        gpus = rng.choice([1, 2, 4, 8])
        objs.append(
            Workload(
                f"ns-{i}",
                f"job-{k}",
                "lq",
                priority=rng.choice([0, 100, 1000]),
                creation_time=float(j + k),
                pod_sets=[PodSet("main", 1, {GPU: gpus, "cpu": gpus * 8})],
            )
        )
    return objs
