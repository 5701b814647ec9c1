"""The reference engine: today's admission decisions computed the slow, obvious way.

Every shortcut the engine takes for speed (issue 23) must leave every admission, preemption and
timestamp unchanged. `use_reference_engine(True)` turns them all off for snapshots built
afterwards: the one-by-one requeue of Kueue's queue manager (`queues.ClusterQueueQueue` instead
of `shape_queue.ShapeQueue`), the preemption search without its bound, every classical
search run even when `no_victims` proves it finds nothing, every flavor's preemption simulation
run even when a later flavor fits (`flavor_assigner.use_later_flavors_first`), every search
after the oracle's empty one for the same quantity run again with the other resources' requests
(`assignment.use_oracle_reuse`), a rescanned cohort subtree's candidate lists built again
(`candidates.use_scan_reuse`), every cycle through the general path
(`scheduler.use_one_head_path`). (The fair
quota-tree bound, `fair_preemption.use_whole_source_bound`, is off in both by default.) The
differential tests (tests/kueue/test_differential.py) run both and compare outputs byte for byte.
"""

from __future__ import annotations

from gpuplane.kueue import (
    assignment,
    candidates,
    flavor_assigner,
    no_victims,
    preemption,
    scheduler,
    snapshot,
)
from gpuplane.kueue.shape_queue import ShapeQueue


def use_reference_engine(on: bool) -> None:
    """Switch the shortcuts off (`on`) or back on, for snapshots built from now on."""
    snapshot.use_reference_queues(on)
    preemption.use_attempt_bound(not on)
    no_victims.use_no_victims_test(not on)
    flavor_assigner.use_later_flavors_first(not on)
    assignment.use_oracle_reuse(not on)
    candidates.use_scan_reuse(not on)
    scheduler.use_one_head_path(not on)


def reference_engine_on() -> bool:
    """Whether the reference engine is selected."""
    return snapshot.QUEUE_CLASS is not ShapeQueue
