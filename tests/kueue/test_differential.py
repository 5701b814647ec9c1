"""Differential tests of the speed-ups of issue 23: the engine decides exactly what the reference does.

The reference (`kueue.reference.use_reference_engine(True)`) is the engine before issue 23:
Kueue's one-by-one requeue of inadmissible workloads and the classical preemption search without
its bound. Each case runs both on the same input and compares the outputs byte for byte: the
twin's per-workload CSV (every admission, start, preemption and wait) and `explain --eta`'s
estimates as JSON. The cases are the traces issue 23 names, built as the benchmarks build them
(tests/support/differential.py), in slices `make test` can afford:

- Philly on the undersized 96-GPU platform (benchmarks/specs/philly-96.yaml): the first 1,500 of
  82,247 rows (the benchmark runs 8,000 and all).
- The synthetic 10x trace (bench_sim.py's 834,434 workloads over 1,090 days): its first two days
  (1,575 workloads), on its platform cut to 1/32 (72 GPUs instead of 2,304, where nothing waits).
- The GKE example (fair sharing, hierarchical cohorts) at 1.5x its capacity for one day (the
  benchmark runs three), and the AKS example at 3x for two days (classical preemption with
  borrowing, MIG and time-sliced pools).
- `explain --eta` on the benchmark snapshots' builders at a tenth of their ClusterQueues or less,
  classical and with fair sharing, and on two smaller mixes.

benchmarks/bench_differential.py runs the full sizes. Each case also asserts that it is one where
the shortcuts matter (workloads are set aside and woken, searches are cut), so a case that stops
exercising them fails instead of passing vacuously.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuplane.kueue import no_victims, preemption, shape_queue
from gpuplane.kueue.reference import use_reference_engine
from gpuplane.traces import generate
from tests.support import differential as diff
from tests.support.kueue_clusters import build_cluster, build_contended


class _Counts:
    """How often the shortcuts acted: shape groups set aside at once, attempts cut by the bound
    (counted by wrapping them: pure Python only), and searches settled by `no_victims` (its own
    counter, which the compiled twin keeps too; the reference engine never asks it)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.groups_parked = 0
        self.attempts_cut = 0
        self._settled_before = no_victims.COUNTS["saved"]
        #: The wrappers see the engine only when it runs as Python (mypyc's modules call their own
        #: functions directly); under `GPUPLANE_PURE=0` the outputs are still compared.
        self.observable = shape_queue.__file__.endswith(".py")
        park = shape_queue.ShapeQueue.park_shape
        bound = preemption._attempt_can_fit

        def counted_park(q: shape_queue.ShapeQueue, wl: object) -> int:
            n = park(q, wl)  # type: ignore[arg-type]
            self.groups_parked += n > 2  # (the head and at least two of its shape)
            return n

        def counted_bound(*args: object) -> bool:
            ok = bound(*args)  # type: ignore[arg-type]
            self.attempts_cut += not ok
            return ok

        if self.observable:
            monkeypatch.setattr(shape_queue.ShapeQueue, "park_shape", counted_park)
            monkeypatch.setattr(preemption, "_attempt_can_fit", counted_bound)

    @property
    def searches_settled(self) -> int:
        return no_victims.COUNTS["saved"] - self._settled_before

    def parked(self, at_least: int) -> bool:
        """At least `at_least` shape groups set aside at once (True when that cannot be observed)."""
        return not self.observable or self.groups_parked >= at_least

    def cut(self) -> bool:
        """Some attempt cut by the bound (True when that cannot be observed)."""
        return not self.observable or self.attempts_cut > 0


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Counts]:
    yield _Counts(monkeypatch)
    use_reference_engine(False)


def _rows(csv_text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(csv_text)))


def _preemptions(csv_text: str) -> int:
    return sum(int(row["preemptions"]) for row in _rows(csv_text))


def _waited(csv_text: str) -> int:
    """Workloads that waited for quota or in the queue (the backlog the shortcuts act on)."""
    return sum(
        1 for r in _rows(csv_text) if float(r["queue_wait_s"] or 0) + float(r["quota_wait_s"] or 0) > 0
    )


def test_philly_prefix_on_the_undersized_96_gpu_platform(shared_dir: Path, counts: _Counts) -> None:
    assert diff.PHILLY.is_relative_to(shared_dir)
    reference, fast = diff.both(diff.twin_csv(lambda: diff.philly_undersized(1500)))
    assert diff.first_difference(reference, fast) is None
    assert reference.count("\n") > 1400
    assert _waited(reference) > 1000
    assert counts.parked(100)
    assert counts.searches_settled > 1000


def test_synthetic_10x_slice_is_the_benchmark_trace() -> None:
    # The prefix builder reads the generator's streams up to the cut; the benchmark generates the
    # whole trace (834,434 workloads, seconds of CPU). Checked here on a 30-day horizon, where the
    # whole generation is cheap: the prefix equals the generated list cut at five days.
    horizon, cut = 30 * 86400.0, 5 * 86400.0
    whole = generate(diff.SYNTHETIC_SEED, horizon, diff.synthetic_teams(), jobs_per_hour=diff.SYNTHETIC_RATE)
    prefix = diff.synthetic_10x_prefix(cut, horizon_s=horizon)
    assert prefix == [w for w in whole if w.submit < cut]
    assert any(w.id.startswith("svc-") for w in prefix) and len(prefix) > 3000


def test_synthetic_10x_first_two_days_on_a_32nd_of_its_platform(counts: _Counts) -> None:
    spec, workloads, _ = diff.synthetic_10x_slice(2)
    assert sum(p.max_nodes * p.gpus for p in spec.node_pools) == 72
    assert len(workloads) == 1575
    reference, fast = diff.both(diff.twin_csv(lambda: diff.synthetic_10x_slice(2)))
    assert diff.first_difference(reference, fast) is None
    assert _waited(reference) > 1000  # a backlog: most of the slice waits
    assert counts.parked(100)
    assert counts.searches_settled > 100


def test_synthetic_workload_at_three_times_capacity_with_borrowing_preemption(counts: _Counts) -> None:
    reference, fast = diff.both(
        diff.twin_csv(lambda: diff.example_under_load("aks-platform.yaml", 2, 3.0, 11))
    )
    assert diff.first_difference(reference, fast) is None
    assert _preemptions(reference) > 0  # the case exercises preemption, not only queueing
    assert counts.parked(10)


def test_gke_fair_sharing_example_under_load(counts: _Counts) -> None:
    reference, fast = diff.both(diff.twin_csv(lambda: diff.example_under_load("gke-h100.yaml", 1, 1.5, 4)))
    assert diff.first_difference(reference, fast) is None
    assert _preemptions(reference) > 0
    assert counts.parked(10)


_BENCH_SNAPSHOT = "bench_explain's build_cluster, 60 CQs / 20 cohorts"
_CONTENDED = "bench_kueue's build_contended, 60 CQs / 20 cohorts"
_SNAPSHOTS: list[tuple[str, Callable[[], list[object]], bool]] = [
    (_BENCH_SNAPSHOT, lambda: build_cluster(60, 20, 1500, 600), False),
    (_BENCH_SNAPSHOT, lambda: build_cluster(60, 20, 1500, 600), True),
    (_CONTENDED, lambda: build_contended(60, 20, 1200), False),
    (_CONTENDED, lambda: build_contended(60, 20, 1200), True),
    ("mixed policies, 30 CQs / 8 cohorts", lambda: build_cluster(30, 8, 900, 300, seed=3), False),
    ("contended cohorts, 20 CQs / 4 cohorts", lambda: build_contended(20, 4, 600, seed=9), False),
]


@pytest.mark.parametrize(
    ("name", "build", "fair"),
    _SNAPSHOTS,
    ids=[f"{name}, {'fair sharing' if fair else 'classical'}" for name, _, fair in _SNAPSHOTS],
)
def test_eta_estimates(name: str, build: Callable[[], list[object]], fair: bool, counts: _Counts) -> None:
    reference, fast = diff.both(diff.eta_json(diff.eta_objects(build, fair)))
    assert diff.first_difference(reference, fast) is None, name
    assert '"estimated"' in reference
    assert diff.eta_count(reference) > 400
    assert counts.parked(1)
    if not fair:  # classical searches: some settled by no_victims, some cut by the bound
        assert counts.searches_settled > 0 and counts.cut()
