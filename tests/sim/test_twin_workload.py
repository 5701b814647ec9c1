"""The admitter builds each job's Kueue Workload from parts it keeps per team and per shape
(sim/kueue_admitter.py `submit`): the object must be the one `Workload(...)` makes from the team's
namespace and queue, for every submission number (UIDs zero-padded to 12 digits, longer ones as
they are) and for workloads with CPU-only pod sets."""

from __future__ import annotations

import dataclasses

from gpuplane.kueue import Workload
from gpuplane.sim.kueue_admitter import KueueAdmitter
from gpuplane.sim.requests import ask_for
from gpuplane.traces import PodSet as TracePodSet
from gpuplane.traces import Workload as TraceWorkload

from .helpers import cluster_queue, flavor, local_queue, pool, team

GPU = "nvidia.com/gpu"


def test_the_admitter_submits_the_workload_the_dataclass_would_build() -> None:
    pools = [pool("a", index=0, max_nodes=4)]
    objects = [flavor("a"), cluster_queue("t", {"a": {GPU: 64}}), local_queue("t")]
    admitter = KueueAdmitter(objects, pools, [team("t")])
    plain = (TracePodSet("worker", 1, 8.0),)
    with_head = (TracePodSet("worker", 1, 8.0), TracePodSet("head", 1, 0.0, cpu_milli=2000, memory_mib=512))
    numbers = [0, 7, 123456789012, 1234567890123]  # 12 digits and more: the UID is the number
    for n, pod_sets in zip(numbers, [plain, with_head, plain, with_head], strict=True):
        w = TraceWorkload(f"j{n}", "t", "t", "training", 5.0, pod_sets, work_gpu_seconds=3600.0, priority=3)
        ask = ask_for(w, pools)
        admitter.submit(n, w, ask.requests, ask.pools, 5.0)
        got = admitter.snap.workloads[admitter.keys[n]]
        assert got.key == f"{got.namespace}/wl-{n}" and got.uid == (f"{n:012d}" if n < 10**12 else str(n))
        want = Workload(
            namespace=got.namespace,
            name=f"wl-{n}",
            uid=f"{n:012d}",
            queue_name=got.queue_name,
            priority=3,
            creation_time=5.0,
            pod_sets=list(got.pod_sets),
        )
        for field in dataclasses.fields(Workload):
            if field.name not in ("shape", "admission", "quota_reserved_time"):
                assert getattr(got, field.name) == getattr(want, field.name), field.name
        cpu = [ps for ps in got.pod_sets if GPU not in ps.requests]
        assert [(ps.name, ps.count, ps.requests) for ps in cpu] == (
            [("head", 1, {"cpu": "2000m", "memory": "512Mi"})] if pod_sets is with_head else []
        )
