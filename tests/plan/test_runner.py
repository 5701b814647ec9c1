"""Where designs run cannot change what they give: Ray tasks (a real local Ray) and an in-process run
give identical results; a second run in the same DIR resumes from the per-design cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuplane.errors import OutputError
from gpuplane.plan.command import PlanOptions, execute, reference_design
from gpuplane.plan.evaluate import Task, run_task
from gpuplane.plan.runner import RayBackend
from gpuplane.sim import SimConfig
from gpuplane.spec import load_spec
from gpuplane.traces import load_workload

FILES = ("plan.json", "designs.csv", "report.html", "winner.yaml")


def _options(inputs: tuple[Path, Path, Path], out: Path, *, ray: bool) -> PlanOptions:
    trace, spec, space = inputs
    # 4 designs, 2 considered: successive halving on trace prefixes, then 2 seeds per finalist.
    return PlanOptions(
        spec=spec,
        workload=trace,
        space=space,
        out=out,
        goal=["p90-wait<=10m"],
        designs=2,
        finalists=2,
        seeds=2,
        failure_rate=0.0,
        ray=ray,
        num_cpus=2,
    )


@pytest.mark.usefixtures("local_ray")
def test_ray_and_in_process_plans_are_identical(mmc_small: tuple[Path, Path, Path], tmp_path: Path) -> None:
    local = execute(_options(mmc_small, tmp_path / "local", ray=False))
    on_ray = execute(_options(mmc_small, tmp_path / "ray", ray=True))
    assert local.result.mode == "successive halving"
    assert [r.fraction for r in local.result.rungs][-1] == 1.0 and len(local.result.rungs) == 3
    for name in FILES:
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "ray" / name).read_bytes(), name
    assert on_ray.result.winner is not None and local.result.winner is not None


@pytest.mark.usefixtures("local_ray")
def test_ray_tasks_return_what_the_function_returns_here(mmc_small: tuple[Path, Path, Path]) -> None:
    trace, spec_path, _ = mmc_small
    spec = load_spec(spec_path)
    workloads = list(load_workload(trace, teams=[t.name for t in spec.teams]).workloads)
    config = SimConfig(node_failures_per_node_hour=0.0)
    design = reference_design(spec)
    tasks = [
        Task(design.id, design.spec, fraction, seed) for fraction, seed in ((0.5, 0), (1.0, 1), (1.0, 0))
    ]
    got: dict[int, object] = {}
    with RayBackend(workloads, config, None, num_cpus=2) as backend:
        backend.run(tasks, lambda i, r: got.__setitem__(i, r))
    assert [got[i] for i in range(len(tasks))] == [run_task(t, workloads, config, None) for t in tasks]


def test_second_run_resumes_from_the_cache(mmc_small: tuple[Path, Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "plan"
    first = execute(_options(mmc_small, out, ray=False))
    before = {name: (out / name).read_bytes() for name in FILES}
    entries = sorted((out / "cache").glob("*.json"))
    assert entries and first.cache_hits == 0
    # A damaged entry is recomputed, not trusted.
    entries[0].write_text("{not json", encoding="utf-8")
    second = execute(_options(mmc_small, out, ray=False))
    assert second.cache_hits == len(entries) - 1
    assert {name: (out / name).read_bytes() for name in FILES} == before
    assert json.loads(entries[0].read_text())["result"]["design"]


def test_a_folder_plan_did_not_write_is_refused(mmc_small: tuple[Path, Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(OutputError, match="not written by gpuplane plan"):
        execute(_options(mmc_small, out, ray=False))
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
