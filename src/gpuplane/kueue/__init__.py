"""Kueue's admission rules in Python: quota tree, flavors, preemption, fair sharing, cycles.

One implementation used by the simulator and by `gpuplane.explain`. Shaped like Kueue:
`objects`/`parse` (API objects; quantities in exact milli-units by `gpuplane.kube`),
`resource_node` (quota tree), `queues` (heap + inadmissible), `snapshot` (the mutable state:
Kueue's cache plus its queue manager), `flavor_assigner`, `assignment`, `preemption` (classical)
with `candidates` and `candidate_lists`, `fair_sharing` (DRS, tournament) and `fair_preemption`,
`cycle_head` (a head in a cycle), `scheduler` (the cycle), `reasons`, `results`, `dra` (claims to
quota). The explain command (job objects to Workloads, what-if, fit, ETA, live reads, output)
is `gpuplane.explain`; this package imports neither it nor `gpuplane.workloads`. `tas/`: topology-aware
scheduling (Topologies, domains from Nodes, Kueue's placement, `topologyAssignment`), entered only
when the input has a Topology.

Programmatic use (the simulator)::

    from gpuplane.kueue import PodSet, Snapshot, Workload, schedule_cycle
    from gpuplane.vocab import GPU_RESOURCE

    snap = Snapshot.from_objects(objects, fair_sharing=False)  # parsed ClusterQueues, flavors...
    snap.now = 0.0                                     # simulated clock (seconds)
    snap.add_workload(Workload("team-a", "job-1", "lq", priority=100, creation_time=0.0,
                               pod_sets=[PodSet("main", 4, {GPU_RESOURCE: 1, "cpu": "8"})]))
    result = schedule_cycle(snap)                       # admits / issues preemptions in place
    result.admitted   # [Admitted(workload, cluster_queue, pod_sets=[AdmittedPodSet(name, count, flavors)])]
    result.preempted  # [Preempted(workload, preemptor, reason, cluster_queue, priority)]
    snap.release_preempted()   # victims give back quota and are requeued (as after pod termination)
    snap.evict("team-a/job-3")  # or one victim at a time, when its pods are gone (what the twin does)
    snap.finish("team-a/job-1")  # a workload ended: quota released, inadmissible ones retried
    snap.evict("team-a/job-2", "PodsReadyTimeout")  # evict now, requeued per Kueue's rules
    pending_report(snap)      # [Pending(workload, cluster_queue, queue 'heap'|'inadmissible', reason)]

Usage is maintained incrementally; a cycle costs time proportional to the number of
ClusterQueue heads, not to the number of admitted or pending workloads.
"""

from __future__ import annotations

from gpuplane.kube.quantity import QuantityError, format_quantity, parse_quantity
from gpuplane.kueue.objects import (
    Admission,
    ClusterQueue,
    Cohort,
    FairSharingConfig,
    FlavorFungibility,
    FlavorQuotas,
    LabelSelector,
    LocalQueue,
    Namespace,
    PodSet,
    PodSetAssignment,
    PreemptionPolicy,
    PriorityClass,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Taint,
    Toleration,
    Workload,
)
from gpuplane.kueue.parse import Parsed, parse_documents, parse_objects
from gpuplane.kueue.scheduler import (
    Admitted,
    AdmittedPodSet,
    CycleResult,
    Pending,
    Preempted,
    pending_report,
    schedule_cycle,
)
from gpuplane.kueue.snapshot import Snapshot

__all__ = [
    "Admission",
    "Admitted",
    "AdmittedPodSet",
    "ClusterQueue",
    "Cohort",
    "CycleResult",
    "FairSharingConfig",
    "FlavorFungibility",
    "FlavorQuotas",
    "LabelSelector",
    "LocalQueue",
    "Namespace",
    "Parsed",
    "Pending",
    "PodSet",
    "PodSetAssignment",
    "Preempted",
    "PreemptionPolicy",
    "PriorityClass",
    "QuantityError",
    "ResourceFlavor",
    "ResourceGroup",
    "ResourceQuota",
    "Snapshot",
    "Taint",
    "Toleration",
    "Workload",
    "format_quantity",
    "parse_documents",
    "parse_objects",
    "parse_quantity",
    "pending_report",
    "schedule_cycle",
]
