"""The kinds of events on the twin's heap, and how ties at one instant are ordered.

Events are `(time, seq, kind, a, b)`: `seq` grows with every push, so events at the same instant
are applied in the order they were scheduled (never by kind or payload). Submissions are not
events: at each instant the workloads submitted then (in file order) arrive first, then the
events of that instant are applied in push order, then the instant is settled once.
"""

from __future__ import annotations

from enum import IntEnum


class Event(IntEnum):
    """What an event does; `a` and `b` are its payload."""

    FINISH = 0  # a workload's run reaches its end: a = workload, b = run generation
    READY = 1  # a requested node becomes ready: a = node
    LOSS = 2  # a node is lost: a = node, b = 1.0 for a spot eviction, 0.0 for a failure
    SCALE_DOWN = 3  # look at a node that became empty: a = node, b = when it became empty
    INJECT = 4  # a scripted node loss (SimConfig.node_losses): a = its index
    RELEASE = 5  # a preempted workload's pods are gone: a = workload, b = run generation
    WINDOW_OPEN = 6  # a capacity block starts (sim.purchase): a = pool, b = its commitment index
    WINDOW_CLOSE = 7  # a purchased node's time is up (block end, flex-start max run): a = node
    CPU_READY = 8  # a requested CPU-pool node becomes ready: a = its id (sim/cpu_nodes.py)


# Plain ints for the event loop (comparing IntEnum members is slower than comparing ints).
FINISH, READY, LOSS, SCALE_DOWN, INJECT, RELEASE, WINDOW_OPEN, WINDOW_CLOSE, CPU_READY = (
    int(e) for e in Event
)
