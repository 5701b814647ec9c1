"""The SimPy reference bench_sim compares the twin with (benchmarks/reference_fifo.py): one Kueue
ClusterQueue's queueing in front of best-fit gang placement. Expected start times are hand event
tables on one or two 8-GPU nodes."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("simpy")

REFERENCE = Path(__file__).resolve().parents[1] / "benchmarks" / "reference_fifo.py"


def _reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reference_fifo", REFERENCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_higher_priority_goes_first() -> None:
    # one node: A runs 0-10; B (t=1) and C (t=2, priority 100) both need the whole node.
    # At 10 C (higher priority) starts, B after it at 15.
    jobs = [(0.0, 8, 10.0, 0), (1.0, 8, 5.0, 0), (2.0, 8, 5.0, 100)]
    assert _reference().simulate(jobs, 1) == [0.0, 15.0, 10.0]


def test_quota_is_reserved_before_placement() -> None:
    # two nodes, 16 GPUs of quota. A and B (6 GPUs each) leave 2 free on each node. C (t=1, 4 GPUs)
    # reserves the last 4 of quota but fits no node; D (t=2, 2 GPUs) would fit a node but has no
    # quota left. At 100 A and B end: C is placed, D admitted and placed.
    jobs = [(0.0, 6, 100.0, 0), (0.0, 6, 100.0, 0), (1.0, 4, 10.0, 0), (2.0, 2, 10.0, 0)]
    assert _reference().simulate(jobs, 2) == [0.0, 0.0, 100.0, 100.0]


def test_quota_smaller_than_the_nodes() -> None:
    # two nodes but 8 GPUs of quota: B waits for A's quota although a node is free.
    jobs = [(0.0, 8, 10.0, 0), (1.0, 8, 10.0, 0)]
    assert _reference().simulate(jobs, 2, quota=8) == [0.0, 10.0]


def test_one_pass_after_every_event_of_an_instant() -> None:
    # one node: A and B (4 GPUs each) both end at 10. C (8 GPUs) is ahead of D (4 GPUs) in the
    # queue: with both releases seen at once C starts at 10, D when C ends at 15 (a pass after A's
    # release alone would start D at 10 and hold C back).
    jobs = [(0.0, 4, 10.0, 0), (0.0, 4, 10.0, 0), (1.0, 8, 5.0, 0), (1.0, 4, 5.0, 0)]
    assert _reference().simulate(jobs, 1) == [0.0, 0.0, 10.0, 15.0]


def test_a_gang_too_big_for_the_quota_never_starts() -> None:
    jobs = [(0.0, 16, 10.0, 0), (0.0, 8, 10.0, 0)]
    assert _reference().simulate(jobs, 1) == [None, 0.0]


def test_pods_of_splits_gangs_evenly_into_pods_of_at_most_eight() -> None:
    pods_of = _reference().pods_of
    assert pods_of(8) == [8]
    assert pods_of(12) == [6, 6]
    assert pods_of(17) == [6, 6, 5]
