"""The cycle's own upkeep (issue 23): what the fast paths of `scheduler` and `snapshot` keep.

- A cycle with one active ClusterQueue takes `scheduler._one_head`, which must decide what the
  general path decides: same admissions, preemptions, parked counts, reasons and queues.
- `Snapshot.parked` names exactly the ClusterQueues with workloads set aside, and `active` those
  with a non-empty heap, after every operation (the queues keep both).
- A release wakes every set-aside workload of the releasing ClusterQueue's cohort tree and no
  other (Kueue's `QueueInadmissibleWorkloads`, ../shared/reference/kueue.md §3): the snapshot
  visits only the parked queues, so this checks it still reaches all of the tree's.

Random worlds: two cohorts of two ClusterQueues each plus one without a cohort, GPU quotas with
borrowing, workloads of 1-8 GPUs (a few shapes, so shapes are set aside together), both queueing
strategies, preemption on or off; operations: a cycle, a workload finishing, a new workload, an
eviction.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuplane.kueue import Snapshot, Workload, scheduler
from gpuplane.kueue.scheduler import pending_report, schedule_cycle
from tests.kueue.kueue_builders import cq, flavors, group, wl, world

_CQS = {"a1": "c1", "a2": "c1", "b1": "c2", "b2": "c2", "solo": None}


def _world(seed: int, strategy: str, preempt: bool) -> tuple[Snapshot, list[Workload]]:
    rng = random.Random(seed)
    policy = "LowerPriority" if preempt else "Never"
    objs: list[object] = [*flavors("gpu")]
    for name, coh in _CQS.items():
        nominal = rng.choice([2, 4, 8])
        objs.append(
            cq(
                name,
                group(("gpu", {"gpu": (nominal, rng.choice([None, 0, 4]))})),
                cohort=coh,
                within=policy,
                reclaim="Any" if preempt else "Never",
                strategy=strategy,
            )
        )
    # Most work in one or two ClusterQueues, so that many cycles have a single active one.
    hot = rng.sample(sorted(_CQS), rng.choice([1, 1, 2]))
    extra = [
        wl(
            f"w{i}",
            rng.choice(hot if rng.random() < 0.9 else sorted(_CQS)),
            priority=rng.choice([0, 5]),
            t=float(i),
            gpu=g,
        )
        for i, g in enumerate(rng.choice([1, 2, 4, 8]) for _ in range(24))
    ]
    for w in extra[16:]:  # added later at a higher priority: they may preempt (when allowed)
        w.priority = 10
    return world([*objs, *extra[:16]]), extra[16:]


def _run(seed: int, strategy: str, preempt: bool, ops: list[int], one_head: bool) -> list[object]:
    scheduler.use_one_head_path(one_head)
    try:
        snap, later = _world(seed, strategy, preempt)
        trace: list[object] = []
        for op in ops:
            if op % 4 == 0 or not snap.admitted():
                r = schedule_cycle(snap)
                trace.append(
                    (sorted(a.workload for a in r.admitted), [p.workload for p in r.preempted], r.parked)
                )
            elif op % 4 == 1:
                admitted = snap.admitted()
                snap.finish(admitted[op % len(admitted)].key)
            elif op % 4 == 2 and later:
                snap.add_workload(later.pop())
            else:
                snap.release_preempted()
            _check_sets(snap)
            trace.append([(p.workload, p.queue, p.reason) for p in pending_report(snap)])
        return trace
    finally:
        scheduler.use_one_head_path(True)


def _check_sets(snap: Snapshot) -> None:
    parked = {n for n, s in snap.cqs.items() if len(s.queue.inadmissible) > 0}
    heaps = {n for n, s in snap.cqs.items() if len(s.queue) > len(s.queue.inadmissible)}
    assert snap.parked == parked
    assert snap.active == heaps


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    strategy=st.sampled_from(["BestEffortFIFO", "StrictFIFO"]),
    preempt=st.booleans(),
    ops=st.lists(st.integers(0, 40), min_size=1, max_size=40),
)
def test_the_one_head_path_decides_as_the_general_path(
    seed: int, strategy: str, preempt: bool, ops: list[int]
) -> None:
    assert _run(seed, strategy, preempt, ops, True) == _run(seed, strategy, preempt, ops, False)


def test_a_release_wakes_its_cohort_tree_and_nothing_else() -> None:
    objs: list[object] = [*flavors("gpu")]
    for name, coh in _CQS.items():
        objs.append(cq(name, group(("gpu", {"gpu": (2, 0)})), cohort=coh))
    running = [wl(f"run-{n}", n, t=0.0, gpu=2) for n in _CQS]
    waiting = [wl(f"big-{n}", n, t=1.0, gpu=4) for n in _CQS]  # more than any quota
    snap = world([*objs, *running, *waiting])
    while snap.has_heads():
        schedule_cycle(snap)
    assert sorted(w.name for w in snap.admitted()) == sorted(w.name for w in running)
    assert snap.parked == set(_CQS)  # each big one set aside in its ClusterQueue
    snap.finish("ns/run-a2")  # quota released in cohort c1
    assert snap.parked == {"b1", "b2", "solo"}
    assert {snap.where(f"ns/big-{n}") for n in ("a1", "a2")} == {"heap"}
    snap.finish("ns/run-solo")  # a ClusterQueue without a cohort is its own tree
    assert snap.parked == {"b1", "b2"}
    _check_sets(snap)
