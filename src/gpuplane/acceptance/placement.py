"""The placement level a multi-node acceptance run must get: the one the pool promises its teams.

On a pool with a topology (`nodePools[].topology`, levels from `spec.topology.pool_levels`), Kueue's
topology-aware scheduling places a pod set in one domain of the level its pod template names
(kubernetes-sigs/kueue v0.19.2 apis/kueue/v1beta2/topology_types.go: PodSetRequiredTopologyAnnotation,
PodSetPreferredTopologyAnnotation, PodSetGroupName). The suite's multi-node pods carry the same
annotation the team's jobs carry, so NCCL and training are measured where production jobs run:

- the team's `placement.required` level -> `podset-required-topology` (a required level whose
  domains hold fewer nodes than `--nodes` (`topology.domainSizes`) could never be admitted: refused);
- the team's `placement.preferred` level -> `podset-preferred-topology`;
- nothing declared -> `podset-preferred-topology` at the finest level whose domain holds `--nodes`
  nodes (a level without a domain size holds the whole pool), as dense as the pool can promise.

Pod sets that must share the domain (a PyTorchJob's Master and Workers) also share a
`podset-group-name`.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuplane.acceptance.options import ResolvedSuite
from gpuplane.errors import UsageError
from gpuplane.spec.topology import pool_levels
from gpuplane.vocab import HOSTNAME_LABEL, TAS_PREFERRED_ANNOTATION, TAS_REQUIRED_ANNOTATION


@dataclass(frozen=True)
class Placement:
    """The level a multi-node run asks for, and whether Kueue must (required) or should (preferred)."""

    level: str
    required: bool
    why: str

    @property
    def annotation(self) -> str:
        """The pod-template annotation that asks for it."""
        return TAS_REQUIRED_ANNOTATION if self.required else TAS_PREFERRED_ANNOTATION

    def annotations(self) -> dict[str, str]:
        """Pod-template annotations for one pod set."""
        return {self.annotation: self.level}

    def as_dict(self) -> dict[str, object]:
        """For suite.json and the report."""
        return {
            "level": self.level,
            "required": self.required,
            "annotation": self.annotation,
            "why": self.why,
        }


def placement(suite: ResolvedSuite) -> Placement | None:
    """The placement of the suite's multi-node pods, or None (one node, or a pool without topology)."""
    nodes = suite.options.nodes
    levels = pool_levels(suite.spec, suite.pool)
    if nodes <= 1 or not levels or suite.pool.topology is None:
        return None
    sizes = suite.pool.topology.domain_sizes
    declared = suite.team.placement
    if declared is not None and declared.required:
        size = sizes.get(declared.required)
        if size is not None and size < nodes:
            raise UsageError(
                f"team {suite.team.name!r} requires {declared.required} on pool {suite.pool.name!r}, whose domains "
                f"hold {size} nodes (topology.domainSizes): a {nodes}-node run could never be admitted; "
                f"use --nodes {size} or fewer",
                option="--nodes",
            )
        return Placement(declared.required, True, f"team {suite.team.name} placement.required")
    if declared is not None and declared.preferred:
        return Placement(declared.preferred, False, f"team {suite.team.name} placement.preferred")
    for level in reversed(levels):
        if level == HOSTNAME_LABEL:
            continue
        size = sizes.get(level)
        if size is None or size >= nodes:
            return Placement(
                level, False, f"the finest level of pool {suite.pool.name} whose domain holds {nodes} nodes"
            )
    return None
