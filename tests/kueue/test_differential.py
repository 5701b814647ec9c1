"""Differential tests of the speed-ups of issue 23: the engine decides exactly what the reference does.

The reference (`kueue.reference.use_reference_engine(True)`) is the engine before issue 23:
Kueue's one-by-one requeue of inadmissible workloads and the classical preemption search without
its bound. Each case runs both on the same input and compares the outputs byte for byte: the
twin's per-workload CSV (every admission, start, preemption and wait) and `explain --eta`'s
estimates as JSON. The cases are the classes issue 23 names: the Philly trace on an undersized
platform (the 96-GPU spec of benchmarks/specs), a synthetic workload at twice a platform's
capacity (classical preemption with borrowing, MIG and time-sliced pools), the GKE example (fair
sharing, hierarchical cohorts) under load, and ETA runs on synthetic snapshots. Each case also
asserts that it is one where the shortcuts matter (workloads are set aside and woken, searches
are cut), so a case that stops exercising them fails instead of passing vacuously.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuplane.explain.command import ExplainOptions, explain_input
from gpuplane.explain.eta import EtaOptions
from gpuplane.kueue import preemption, shape_queue
from gpuplane.kueue.parse import Parsed
from gpuplane.kueue.reference import reference_engine_on, use_reference_engine
from gpuplane.sim.config import SimConfig
from gpuplane.sim.output import workloads_csv
from gpuplane.sim.replay import simulate
from gpuplane.spec import PlatformSpec, load_spec
from gpuplane.traces import Workload, generate
from gpuplane.traces.load import load_workload
from tests.support.kueue_clusters import build_cluster, build_contended

REPO = Path(__file__).resolve().parents[2]


class _Counts:
    """How often the shortcuts acted: shape groups set aside at once, attempts cut by the bound."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.groups_parked = 0
        self.attempts_cut = 0
        park = shape_queue.ShapeQueue.park_equivalent
        bound = preemption._attempt_can_fit

        def counted_park(q: shape_queue.ShapeQueue, wl: object) -> int:
            n = park(q, wl)  # type: ignore[arg-type]
            self.groups_parked += n > 1
            return n

        def counted_bound(*args: object) -> bool:
            ok = bound(*args)  # type: ignore[arg-type]
            self.attempts_cut += not ok
            return ok

        monkeypatch.setattr(shape_queue.ShapeQueue, "park_equivalent", counted_park)
        monkeypatch.setattr(preemption, "_attempt_can_fit", counted_bound)


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Counts]:
    yield _Counts(monkeypatch)
    use_reference_engine(False)


def _both(run: Callable[[], str]) -> tuple[str, str]:
    use_reference_engine(True)
    try:
        assert reference_engine_on()
        reference = run()
    finally:
        use_reference_engine(False)
    assert not reference_engine_on()
    return reference, run()


def _twin(spec: PlatformSpec, workloads: list[Workload], seed: int) -> Callable[[], str]:
    def run() -> str:
        outcome = simulate(spec, workloads, SimConfig(seed=seed))
        return workloads_csv(outcome)

    return run


def test_philly_prefix_on_the_undersized_96_gpu_platform(shared_dir: Path, counts: _Counts) -> None:
    spec = load_spec(REPO / "benchmarks" / "specs" / "philly-96.yaml")
    mapping = {vc: f"vc-{vc}" for vc in _philly_vcs(REPO / "benchmarks" / "specs" / "philly-teams.yaml")}
    ws = load_workload(
        shared_dir / "reference/traces/philly-pollux/philly.csv",
        team_map=mapping,
        teams=[t.name for t in spec.teams],
        limit=1500,
    )
    reference, fast = _both(_twin(spec, list(ws), 0))
    assert fast == reference
    assert reference.count("\n") > 1400
    assert counts.groups_parked > 100 and counts.attempts_cut > 100


def _philly_vcs(path: Path) -> list[str]:
    return [line.split('"')[1] for line in path.read_text().splitlines() if line.startswith('  "')]


def test_synthetic_workload_at_twice_capacity_with_borrowing_preemption(counts: _Counts) -> None:
    spec = load_spec(REPO / "examples" / "aks-platform.yaml")
    capacity = sum(p.max_nodes * p.gpus for p in spec.node_pools if p.is_gpu)
    workloads = generate(11, 2 * 86400.0, [t.name for t in spec.teams], capacity_gpus=capacity, load=2.0)
    reference, fast = _both(_twin(spec, workloads, 11))
    assert fast == reference
    assert "preempted" in reference or ",1," in reference
    assert counts.groups_parked > 10


def test_gke_fair_sharing_example_under_load(counts: _Counts) -> None:
    spec = load_spec(REPO / "examples" / "gke-h100.yaml")
    capacity = sum(p.max_nodes * p.gpus for p in spec.node_pools if p.is_gpu)
    workloads = generate(4, 86400.0, [t.name for t in spec.teams], capacity_gpus=capacity, load=1.5)
    reference, fast = _both(_twin(spec, workloads, 4))
    assert fast == reference
    assert counts.groups_parked > 10


def _eta_json(objects: Callable[[], list[object]]) -> Callable[[], str]:
    def run() -> str:
        result = explain_input(Parsed(objects=objects()), ExplainOptions(eta=EtaOptions()))
        return json.dumps({k: v.as_dict() for k, v in sorted(result.etas.items())}, sort_keys=True)

    return run


@pytest.mark.parametrize(
    ("name", "objects"),
    [
        ("mixed policies, 30 CQs", lambda: build_cluster(30, 8, 900, 300, seed=3)),
        ("contended cohorts, 20 CQs", lambda: build_contended(20, 4, 600, seed=9)),
    ],
)
def test_eta_estimates(name: str, objects: Callable[[], list[object]], counts: _Counts) -> None:
    reference, fast = _both(_eta_json(objects))
    assert fast == reference, name
    assert '"estimated"' in reference
    assert counts.groups_parked > 0
