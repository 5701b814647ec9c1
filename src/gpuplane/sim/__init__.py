"""The digital twin behind `gpuplane simulate`: replay workloads through the platform's real policies.

    from gpuplane.sim import SimConfig, simulate, summarize
    outcome = simulate(spec, workloads, SimConfig(seed=1))     # admission by gpuplane.kueue
    figures = summarize(outcome, SimConfig(seed=1), Overheads.from_spec(spec))

Modules: `engine` (event loop), `cluster` (nodes, devices, placement index), `pools` (spec pools
as the twin sees them), `requests` (what a workload asks Kubernetes for), `kueue_admission`
(the adapter to gpuplane.kueue), `autoscaler`, `progress` (checkpoint arithmetic), `state`
(per-workload state and the GPU-second ledger), `metrics`, `outputs`, `report`, `summary`,
`session` (platforms x workload, what-if), `cli_support`.
"""

from gpuplane.sim.config import NodeLoss, SimConfig
from gpuplane.sim.engine import Outcome
from gpuplane.sim.metrics import summarize
from gpuplane.sim.run import simulate, simulate_objects

__all__ = ["NodeLoss", "Outcome", "SimConfig", "simulate", "simulate_objects", "summarize"]
