"""Runs in one process share nothing: no module-level cache grows, and a run gives the same bytes
whether it is the first or the third (the quota tree's memos live on the tree, not in modules)."""

from __future__ import annotations

import sys
from pathlib import Path

from gpuplane.sim import SimConfig, simulate
from gpuplane.sim.output import workloads_csv
from gpuplane.spec import load_spec
from gpuplane.traces import generate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PACKAGES = ("gpuplane.kueue", "gpuplane.sim", "gpuplane.traces")


def module_containers() -> dict[str, int]:
    """Size of every dict, list and set held at module level by the packages above."""
    sizes = {}
    for name, module in sorted(sys.modules.items()):
        if not name.startswith(PACKAGES):
            continue
        for attr, value in vars(module).items():
            if isinstance(value, dict | list | set):
                sizes[f"{name}.{attr}"] = len(value)
    return sizes


def one_run() -> str:
    # Fair sharing, hierarchical cohorts, preemption: the paths that used to keep a module cache.
    spec = load_spec(EXAMPLES / "gke-h100.yaml")
    teams = [t.name for t in spec.teams]
    workloads = generate(5, 12 * 3600.0, teams, capacity_gpus=112, load=1.5)
    return workloads_csv(simulate(spec, workloads, SimConfig(seed=5)))


def test_three_runs_in_one_process_keep_no_module_state_and_give_the_same_bytes() -> None:
    first = one_run()
    before = module_containers()
    again = [one_run(), one_run()]
    assert module_containers() == before
    assert again == [first, first]
