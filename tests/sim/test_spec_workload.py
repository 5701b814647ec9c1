"""The default workload is made for the spec (issue 21, deliver 8): without `-w`, `simulate` of
every example spec and of the built-in platform simulates every workload it generates (no "not
simulated"), and the output says which workload it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplane.cli import app
from gpuplane.sim.config import SimConfig
from gpuplane.sim.pools import pool_models
from gpuplane.sim.requests import allowed_pods, shared_resource
from gpuplane.sim.spec_workload import LABEL, spec_workload
from gpuplane.sim.whatif import BUILTIN_NAME, Platform, WorkloadSource, builtin_spec, run_all
from gpuplane.spec import PlatformSpec, load_spec

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yaml"))


def _platform(name: str) -> Platform:
    if name == BUILTIN_NAME:
        return Platform(BUILTIN_NAME, builtin_spec())
    return Platform(name, load_spec(Path(name), priced=True))


def _team_pools(spec: PlatformSpec) -> dict[str, set[str]]:
    return {t.name: {q.pool for q in t.quotas} for t in spec.teams}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_generated_workload_fits_a_pool_of_its_team_and_class(path: Path) -> None:
    spec = load_spec(path, priced=True)
    made = spec_workload(spec, seed=0)
    assert made.workloads
    models = pool_models(spec)
    shared = shared_resource(models)
    mine = _team_pools(spec)
    classes = {cls for m in models for cls in m.workload_classes}
    for w in made.workloads:
        _, fitting = allowed_pods(w, models, shared)
        assert fitting, w.id
        assert {models[i].name for i in fitting} & mine[w.team], w.id
        assert w.klass in classes
    # Same spec and seed, same list.
    assert spec_workload(spec, seed=0).workloads == made.workloads


@pytest.mark.parametrize("name", [*(str(p) for p in EXAMPLES), BUILTIN_NAME], ids=lambda n: Path(n).name)
def test_simulate_without_a_trace_simulates_every_generated_workload(name: str) -> None:
    platform = _platform(name)
    source = WorkloadSource()
    (result,) = run_all([platform], source, SimConfig(seed=0))
    assert not [w for w in result.summary.warnings if "not simulated" in w], result.summary.warnings
    assert result.summary.workloads.total > 0
    if name == BUILTIN_NAME:
        assert result.summary.workload == "built-in synthetic week"
    else:
        assert result.summary.workload.startswith(LABEL)


def test_the_terminal_says_the_workload_was_made_for_the_spec(tmp_path: Path) -> None:
    spec = next(p for p in EXAMPLES if p.name == "eks-mixed.yaml")
    result = CliRunner().invoke(app, ["simulate", str(spec), "--json", str(tmp_path / "m.json")])
    assert result.exit_code == 0, result.output
    assert f"workload: {LABEL}:" in result.output
    assert "not simulated" not in result.output
