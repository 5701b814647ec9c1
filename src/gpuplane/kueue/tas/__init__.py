"""Kueue's topology-aware scheduling (TAS): Topologies, domains from Nodes, placement, assignments.

Modelled on kubernetes-sigs/kueue v0.19.2 (`pkg/cache/scheduler/tas_*.go`,
`pkg/scheduler/flavorassigner/tas_flavorassigner.go`, `pkg/scheduler/scheduler.go`): `model`
(records and the two API shapes of `topologyAssignment`), `placement` (one flavor's domain tree
and the placement algorithm), `leader` (a pod-set group: leader and workers placed together), `state` (nodes, non-TAS pods, admitted workloads' domains) and
`hook` (where flavor assignment and the cycle call it). A snapshot without a Topology has
`snap.tas = None` and never enters this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuplane.kueue.tas.model import Topology
from gpuplane.kueue.tas.state import TASState, state_from_objects

if TYPE_CHECKING:
    from gpuplane.kueue.parse import Parsed
    from gpuplane.kueue.snapshot import Snapshot


def attach_tas(snap: Snapshot, parsed: Parsed) -> TASState | None:
    """Give `snap` the TAS state of the input (Topologies, Nodes, Pods) and charge admitted workloads."""
    topologies = [o for o in parsed.objects if isinstance(o, Topology)]
    state = state_from_objects(topologies, (r.data for r in parsed.k8s))
    snap.tas = state
    if state is not None:
        for wl in snap.admitted():
            state.charge(wl)
    return state


__all__ = ["TASState", "attach_tas"]
