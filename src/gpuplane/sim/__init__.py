"""The digital twin behind `gpuplane simulate`: replay workloads through the platform's real policies.

    from gpuplane.sim import SimConfig, simulate, summarize
    outcome = simulate(spec, workloads, SimConfig(seed=1))     # admission by gpuplane.kueue
    figures = summarize(outcome, SimConfig(seed=1), Overheads.from_spec(spec), "my platform")
    figures.team("team-a").queue_wait.p90_s, figures.cost_per_accepted_unit

Modules: `replay` (the entry points: a spec or hand-made pools replayed on a workload), `engine`
(event loop), `cluster` (nodes, devices, placement index), `pools` (spec pools as the twin sees
them), `requests` (what a workload asks Kubernetes for), `admitters` (the admission interface
and its registry) with `kueue_admitter` (the one built on gpuplane.kueue), `autoscaler`,
`progress` (checkpoint arithmetic), `contention` (how shared GPUs slow down), `state`
(per-workload state and the GPU-second ledger), `metrics` (figures of a run) into `summary` (the
typed `RunSummary`), `output` (CSV, JSON, terminal, writing files), `report` (HTML), `whatif`
(platforms x workload on one seed), `options` (command-line options checked) and `command`
(the `simulate` command without typer).
"""

from gpuplane.sim.config import NodeLoss, SimConfig
from gpuplane.sim.engine import Outcome
from gpuplane.sim.metrics import summarize
from gpuplane.sim.replay import simulate, simulate_objects
from gpuplane.sim.summary import Availability, PoolFigures, RunSummary, TeamFigures, WaitStats, WorkloadCounts

__all__ = [
    "Availability",
    "NodeLoss",
    "Outcome",
    "PoolFigures",
    "RunSummary",
    "SimConfig",
    "TeamFigures",
    "WaitStats",
    "WorkloadCounts",
    "simulate",
    "simulate_objects",
    "summarize",
]
