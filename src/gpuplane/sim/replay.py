"""Entry points: replay a workload on a platform spec, or on hand-made pools and Kueue objects."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpuplane.kueue.frozen import frozen_heap
from gpuplane.sim import kueue_admitter as _builtin_admitters  # noqa: F401  (registers "kueue")
from gpuplane.sim.admitters import AdmissionSetup, AdmitterFactory, TeamQueue, admitter_factory
from gpuplane.sim.config import SimConfig
from gpuplane.sim.cpu_nodes import CpuPool
from gpuplane.sim.engine import Engine, Outcome, Progress
from gpuplane.sim.pools import PoolModel, pool_models
from gpuplane.sim.requests import cpu_pod_note, shared_resource
from gpuplane.spec import PlatformSpec
from gpuplane.traces import Workload


def team_queues(spec: PlatformSpec) -> list[TeamQueue]:
    """Each team's submission point: its first namespace, its LocalQueue and its priority value."""
    from gpuplane.spec import derived

    values = {pc.name: pc.value for pc in spec.queueing.priority_classes}
    return [
        TeamQueue(
            name=team.name,
            namespace=team.namespaces[0] if team.namespaces else team.name,
            local_queue=derived.local_queue_name(team),
            priority=values.get(team.priority_class or "", 0),
        )
        for team in spec.teams
    ]


def kueue_objects_for(spec: PlatformSpec) -> list[dict[str, Any]]:
    """The Kueue objects `render` writes for this spec (the twin admits with exactly these)."""
    from gpuplane.render.kueue import kueue_objects

    return kueue_objects(spec)


def simulate(
    spec: PlatformSpec,
    workloads: Sequence[Workload],
    config: SimConfig | None = None,
    progress: Progress | None = None,
    *,
    admitter: str | AdmitterFactory = "kueue",
) -> Outcome:
    """Replay `workloads` (teams already mapped to the spec's teams) on the platform.

    `admitter` is a registered admitter's name (sim/admitters.py) or a factory.
    """
    from gpuplane.sim.cpu_nodes import cpu_pools
    from gpuplane.sim.topology import twin_topology

    return simulate_objects(
        pool_models(spec),
        team_queues(spec),
        kueue_objects_for(spec),
        workloads,
        config or SimConfig(),
        fair_sharing=spec.queueing.fair_sharing.enabled,
        progress=progress,
        admitter=admitter,
        topology=twin_topology(spec),
        cpu_pools=cpu_pools(spec),
    )


def simulate_objects(
    pools: list[PoolModel],
    teams: list[TeamQueue],
    objects: Sequence[Mapping[str, Any]],
    workloads: Sequence[Workload],
    config: SimConfig,
    *,
    fair_sharing: bool | None = None,
    progress: Progress | None = None,
    admitter: str | AdmitterFactory = "kueue",
    topology: Any = None,
    cpu_pools: Sequence[CpuPool] = (),
) -> Outcome:
    """Replay workloads on explicit pools and Kueue objects (tests, what-ifs on hand-made setups)."""
    built = admitter_factory(admitter)(AdmissionSetup(objects, pools, teams, fair_sharing, topology))
    engine = Engine(pools, [t.name for t in teams], built, config, shared_resource(pools), cpu_pools)
    with frozen_heap():  # the workloads, pools and Kueue state live the whole run (issue 23)
        outcome = engine.run(workloads, progress)
    outcome.warnings.extend(built.notes)
    note = cpu_pod_note(workloads, getattr(built, "cpu_flavors", None), {p.name for p in cpu_pools})
    if note is not None:
        outcome.warnings.append(note)
    topology_notes = getattr(built, "topology_notes", None)
    if topology_notes is not None:
        outcome.warnings.extend(topology_notes())
    return outcome
