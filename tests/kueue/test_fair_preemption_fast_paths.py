"""Fair preemption's sibling fast paths (`_first_pass_siblings`, `_second_pass_siblings`) give the
very answer of the general passes: over the benchmark's cluster shapes (scaled down), every cycle's
admissions and preemptions (victim, preemptor, reason) are the same with the fast paths on and off."""

from __future__ import annotations

import pytest

from gpuplane.kueue import Snapshot, schedule_cycle
from gpuplane.kueue import fair_preemption as fp
from tests.support.kueue_clusters import build_cluster, build_contended

Outcome = list[tuple[list[tuple[str, str]], list[tuple[str, str, str]]]]  # per cycle

SHAPES = {
    "contended, 60 CQs in 8 cohorts": lambda: build_contended(60, 8, 1500, seed=11),
    "contended, 40 CQs in 4 cohorts": lambda: build_contended(40, 4, 800, seed=5),
    "busy, 50 CQs in 4 cohorts": lambda: build_cluster(50, 4, 2000, 1200, seed=3),
}


def _cycles(objs: list[object], n: int = 3) -> tuple[Outcome, int]:
    snap = Snapshot.from_objects(objs, fair_sharing=True)
    out: Outcome = []
    preempted = 0
    for _ in range(n):
        result = schedule_cycle(snap)
        out.append(
            (
                sorted((a.workload, a.cluster_queue) for a in result.admitted),
                sorted((p.workload, p.preemptor, p.reason) for p in result.preempted),
            )
        )
        preempted += len(result.preempted)
        snap.release_preempted()
    return out, preempted


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_sibling_fast_paths_decide_as_the_general_passes(
    shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast, preempted = _cycles(SHAPES[shape]())
    monkeypatch.setattr(fp, "_siblings_only", lambda ctx, cands: False)
    general, _ = _cycles(SHAPES[shape]())
    assert fast == general
    if shape.startswith("contended"):
        assert preempted > 0  # the shapes exercise preemption, not only admission


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_whole_source_bound_decides_as_the_search(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # `_fits_with_whole_sources_gone` answers "no room" only when removing all the usage of every
    # ClusterQueue the search could take from would still not make room; then the search finds
    # nothing either. Same outcomes with the bound and with every search run.
    default = fp.WHOLE_SOURCE_BOUND
    try:
        fp.use_whole_source_bound(True)
        bounded, _ = _cycles(SHAPES[shape]())
        fp.use_whole_source_bound(False)
        searched, _ = _cycles(SHAPES[shape]())
    finally:
        fp.use_whole_source_bound(default)
    assert bounded == searched
    if fp.__file__ is not None and not fp.__file__.endswith(".py"):
        return  # compiled: the count below needs the pure module's function to be replaceable
    real = fp._fits_with_whole_sources_gone
    cut = 0

    def counted(ctx: object) -> bool:
        nonlocal cut
        ok = real(ctx)  # type: ignore[arg-type]
        cut += not ok
        return ok

    monkeypatch.setattr(fp, "_fits_with_whole_sources_gone", counted)
    monkeypatch.setattr(fp, "WHOLE_SOURCE_BOUND", True)
    _cycles(SHAPES[shape]())
    assert cut > 0  # the shape has searches the bound answers
