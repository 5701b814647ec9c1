"""The twin on a DRA platform (examples/eks-dra.yaml): workloads ask the DRA claims' quota names as
`render` charges them (`spec.derived.request_resource`), are admitted by Kueue and placed on the DRA
pools, and their GPU time is accounted.

Expected values come from this event table, worked by hand from the spec (provisioning 600 s, no
evictions or failures, every job at t = 0):

| job   | team     | asks (device plugin)  | pool (form)                          | admit | start | end  |
|-------|----------|-----------------------|--------------------------------------|-------|-------|------|
| train | research | 2 pods x 8 GPUs       | h100-train (dra.gpuplane.io/gpu)     | 0     | 600   | 4200 |
| again | research | 2 pods x 8 GPUs       | h100-train: quota 16 is held by train| 4200  | 4200  | 7800 |
| mig   | serving  | 2 pods x mig 3g.40gb  | a100-mig (dra.../mig-3g.40gb)        | 0     | 0     | 3600 |
| nb    | research | 1 pod x 0.5 GPU       | l4-notebooks (dra.../gpu-time-slicing)| 0    | 600   | 2400 |
| plug  | serving  | 1 pod x 1 GPU         | l4-plugin (nvidia.com/gpu)           | 0     | 600   | 2400 |

- h100-train, l4-notebooks and l4-plugin start at 0 nodes: pods wait 600 s for new ones; a100-mig
  has its minNodes node from t = 0. `again` fits research's nominal 16 only once `train` ends (the
  cohort has no other H100 quota to borrow), then reuses the two nodes `train` left.
- `nb` may use a100-mig (no whole or shared GPU there), l4-notebooks (DRA) and l4-plugin (device
  plugin; research has no quota there, but the form is chosen before quota): one pool of each form,
  so the first in spec order, l4-notebooks. A DRA time-slicing claim is its own GPU (gpu_eq 1).
- GPU-equivalents: 16, 16, 2 x 3/7 (3 of an A100's 7 compute slices), 1, 1. Useful GPU-hours per
  pool: h100-train 16 + 16 = 32, a100-mig 6/7, l4-notebooks 0.5 (1 GPU for 1800 s), l4-plugin 0.5.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplane.costs import GpuTime
from gpuplane.sim import summarize
from gpuplane.sim.config import SimConfig
from gpuplane.sim.engine import Outcome
from gpuplane.sim.pools import pool_models
from gpuplane.sim.replay import simulate
from gpuplane.sim.requests import ask_for
from gpuplane.spec import PlatformSpec
from gpuplane.spec.loader import load_spec
from gpuplane.traces import PodSet, Workload, WorkloadClass

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "eks-dra.yaml"
QUIET = SimConfig(
    spot_evictions_per_node_hour=0.0,
    node_failures_per_node_hour=0.0,
    provisioning_delay_s=600.0,
    horizon_s=4 * 3600.0,
)


def job(wid: str, team: str, klass: WorkloadClass, ps: PodSet, run_time: float) -> Workload:
    return Workload(id=wid, team=team, queue=team, klass=klass, submit=0.0, pod_sets=(ps,), run_time=run_time)


JOBS = [
    job("train", "research", "training", PodSet("worker", 2, 8.0), 3600.0),
    job("again", "research", "training", PodSet("worker", 2, 8.0), 3600.0),
    job("mig", "serving", "inference", PodSet("server", 2, 1.0, mig_profile="3g.40gb"), 3600.0),
    job("nb", "research", "batch", PodSet("notebook", 1, 0.5), 1800.0),
    job("plug", "serving", "inference", PodSet("server", 1, 1.0), 1800.0),
]


@pytest.fixture(scope="module")
def spec() -> PlatformSpec:
    return load_spec(EXAMPLE)


@pytest.fixture(scope="module")
def outcome(spec: PlatformSpec) -> Outcome:
    return simulate(spec, JOBS, QUIET)


def test_requests_take_the_name_of_the_pools_device_api(spec: PlatformSpec) -> None:
    pools = pool_models(spec)
    names = [p.name for p in pools]
    asked = {}
    for w in JOBS:
        ask = ask_for(w, pools)
        asked[w.id] = (sorted(ask.resources), [names[i] for i in ask.pools])
    assert asked == {
        "train": (["dra.gpuplane.io/gpu"], ["h100-train"]),
        "again": (["dra.gpuplane.io/gpu"], ["h100-train"]),
        "mig": (["dra.gpuplane.io/mig-3g.40gb"], ["a100-mig"]),
        "nb": (["dra.gpuplane.io/gpu-time-slicing"], ["l4-notebooks"]),
        "plug": (["nvidia.com/gpu"], ["l4-plugin"]),
    }


def test_dra_jobs_are_admitted_and_placed_as_the_event_table_says(outcome: Outcome) -> None:
    got = {
        r.w.id: (outcome.pools[r.pool].name, r.first_admit, r.first_start, r.outcome) for r in outcome.runs
    }
    assert got == {
        "train": ("h100-train", 0.0, 600.0, "completed"),
        "again": ("h100-train", 4200.0, 4200.0, "completed"),
        "mig": ("a100-mig", 0.0, 0.0, "completed"),
        "nb": ("l4-notebooks", 0.0, 600.0, "completed"),
        "plug": ("l4-plugin", 0.0, 600.0, "completed"),
    }
    eq = {r.w.id: r.gpu_eq for r in outcome.runs}
    assert eq == pytest.approx({"train": 16.0, "again": 16.0, "mig": 6 / 7, "nb": 1.0, "plug": 1.0})


def test_dra_gpu_time_is_accounted_per_pool(outcome: Outcome) -> None:
    summary = summarize(outcome, QUIET)
    useful = {p.name: p.gpu_hours[GpuTime.USEFUL] for p in summary.pools}
    assert useful == pytest.approx(
        {"h100-train": 32.0, "a100-mig": 6 / 7, "l4-notebooks": 0.5, "l4-plugin": 0.5}
    )
    assert summary.workloads.completed == 5
    assert summary.team("research").quota_wait.max_s == 4200.0  # `again` waited for train's quota
