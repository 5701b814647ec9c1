"""A head's reason is formatted only when read, from the figures of the cycle that set it (issue 23)."""

from __future__ import annotations

from gpuplane.kueue import Snapshot, schedule_cycle
from gpuplane.kueue.scheduler import pending_report

from .kueue_builders import admit, cq, flavors, group, wl, world

# By hand: ClusterQueue a has nominal 4 GPUs, no cohort; x/run holds 3, so ns/w (2 GPUs) is short
# by 1 when the cycle checks its quota: needs 2, a uses 3 of 4.
SHORTFALL = "needs 2 gpu in flavor default; a has nominal 4, uses 3, no cohort to borrow from; 1 more needed"


def _after_failed_cycle() -> Snapshot:
    snap = world(
        [
            *flavors("default"),
            cq("a", group(("default", {"gpu": 4}))),
            admit(wl("run", "a", ns="x", gpu=3), "a", "default"),
            wl("w", "a", gpu=2),
        ]
    )
    assert schedule_cycle(snap).admitted == []
    return snap


def test_reason_is_kept_unformatted_until_read() -> None:
    snap = _after_failed_cycle()
    assert not isinstance(snap.reasons["ns/w"], str)
    text = snap.reason("ns/w")
    assert text is not None and text.endswith(SHORTFALL)
    stored: object = snap.reasons["ns/w"]
    assert stored == text  # formatted once, then kept as text


def test_reason_read_later_quotes_the_cycle_it_came_from() -> None:
    snap = _after_failed_cycle()
    snap.finish("x/run")  # a uses 0 now; the reason still quotes the check (uses 3, 1 more needed)
    assert snap.cqs["a"].node.usage.get(("default", "gpu"), 0) == 0
    (pending,) = pending_report(snap)
    assert pending.workload == "ns/w" and pending.reason.endswith(SHORTFALL)
    assert list(snap.reasons) == ["ns/w"] and snap.reason("ns/w") == pending.reason
