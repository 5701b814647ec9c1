"""The admitter's per-shape bookkeeping (issue 23's per-event cost): workloads share a ShapeToken
exactly when Kueue's scheduling-equivalence shapes of their pod sets are equal, and a run's
target comes from the workload's trace figures as `Workload.stop_after` says."""

from __future__ import annotations

import dataclasses

from gpuplane.kueue.queues import shape_of
from gpuplane.sim.kueue_admitter import KueueAdmitter, ShapeToken
from gpuplane.sim.requests import ask_for
from gpuplane.sim.state import Run
from gpuplane.traces import PodSet, Workload

from .helpers import cluster_queue, flavor, local_queue, pool, team

GPU = "nvidia.com/gpu"


def _workload(i: int, pod_sets: tuple[PodSet, ...], klass: str = "training") -> Workload:
    return Workload(f"j{i}", "t", "t", klass, float(i), pod_sets, work_gpu_seconds=3600.0)  # type: ignore[arg-type]


def test_workloads_share_a_token_exactly_when_their_shapes_are_equal() -> None:
    pools = [pool("a", index=0, max_nodes=4), pool("b", index=1, max_nodes=4, classes=("batch",))]
    objects = [
        flavor("a"),
        flavor("b"),
        cluster_queue("t", {"a": {GPU: 64}, "b": {GPU: 64}}),
        local_queue("t"),
    ]
    admitter = KueueAdmitter(objects, pools, [team("t")])
    one = (PodSet("worker", 1, 8.0),)
    workloads = [
        _workload(0, one),
        _workload(1, (PodSet("worker", 1, 8.0),)),  # equal pod sets, another tuple: same shape
        _workload(2, (PodSet("worker", 2, 8.0),)),  # two pods: another shape
        _workload(3, (PodSet("worker", 1, 4.0),)),  # another request: another shape
        _workload(4, one, klass="batch"),  # may use both pools: another affinity, another shape
        _workload(5, (PodSet("worker", 2, 8.0),)),
        _workload(6, (PodSet("worker", 1, 8.0), PodSet("head", 1, 0.0, cpu_milli=2000))),  # CPU pod set
    ]
    for i, w in enumerate(workloads):
        ask = ask_for(w, pools)  # a fresh Ask (and requests tuple) for every workload
        admitter.submit(i, w, ask.requests, ask.pools, 0.0)
    kueue = [admitter.snap.workloads[admitter.keys[i]] for i in range(len(workloads))]
    assert kueue[6].shape is not None and not isinstance(kueue[6].shape[0], ShapeToken)
    assert all(isinstance(k.shape, tuple) and isinstance(k.shape[0], ShapeToken) for k in kueue[:6])
    # the shape each would have on its own (computed afresh from its pod sets)
    fresh = [shape_of(dataclasses.replace(k)) for k in kueue]
    for i in range(len(kueue)):
        for j in range(len(kueue)):
            assert (kueue[i].shape == kueue[j].shape) == (fresh[i] == fresh[j]), (i, j)
    assert kueue[0].shape is kueue[1].shape and kueue[2].shape is kueue[5].shape
    assert len({id(k.shape) for k in kueue[:6]}) == 4


def test_a_runs_target_is_the_traces_stop_after() -> None:
    pools = [pool()]
    cases = [
        # 3,600 GPU-seconds on 2 GPUs is 1,800 s; a quarter of it: 450 s
        (
            Workload(
                "w",
                "t",
                "t",
                "training",
                0.0,
                (PodSet("m", 2, 1.0),),
                work_gpu_seconds=3600.0,
                final_status="failed",
                end_at_fraction=0.25,
            ),
            450.0,
        ),
        # a fixed run time of 100 s, killed half way: 50 s
        (
            Workload(
                "s",
                "t",
                "t",
                "inference",
                0.0,
                (PodSet("m", 1, 1.0),),
                run_time=100.0,
                final_status="killed",
                end_at_fraction=0.5,
            ),
            50.0,
        ),
        # 8 GPUs in two pods of 4, 8 x 900 GPU-seconds: 900 s
        (Workload("g", "t", "t", "training", 0.0, (PodSet("m", 2, 4.0),), work_gpu_seconds=7200.0), 900.0),
    ]
    for w, expected in cases:
        run = Run(0, w, 0, ask_for(w, pools))
        assert run.target == expected == w.stop_after
