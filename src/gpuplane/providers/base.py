"""The interface every provider module implements, and a base class that answers from the facts.

A provider module (`gpuplane/providers/<name>.py`) defines `PROVIDER`, an instance of a
`BaseProvider` subclass. What a provider must supply:

- `nodepool_file(spec, pools)`: the provisioning file for the pools (a script, an eksctl config);
- `design_problems(spec, at)`: designs its platform cannot run, beyond the fact-driven checks that
  `gpuplane.providers.checks` runs for every provider;
- everything else has a default read from the provider's facts (`catalog/data/providers.yaml`):
  `pool_taints` (taints it puts on nodes itself, e.g. AKS spot), `stack_node_labels` (labels its
  GPU stack needs), `operator_values` (GPU Operator Helm values for its stack, None when the
  operator is not installed), `mig_method` and `sharing_method` (who partitions and shares GPUs),
  `namespace_objects` (objects its GPU stack needs in the operator's namespace) and `notes`.

Render computes one `PoolSetup` per pool (labels, taints, resources, cost tags) so that the
provider writes what the rest of the output relies on and never derives it a second time.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpuplane.catalog.providers import Fact, ProviderFacts, provider_facts
from gpuplane.errors import Problem
from gpuplane.spec.models import NodePool, PlatformSpec, Taint

Report = Callable[[tuple[str | int, ...], str, str], Problem]
MIG_PARTED = "mig-parted"
OPERATOR = "operator"


@dataclass(frozen=True)
class PoolSetup:
    """What render decided about one pool, for the provisioning file to carry."""

    pool: NodePool
    labels: dict[str, str]
    taints: list[Taint]
    extended_resources: dict[str, int]
    cost_tags: dict[str, str]


@dataclass(frozen=True)
class NodePoolFile:
    """The provisioning file of a platform: where it goes, its text, and why it exists."""

    path: str
    text: str
    why: str
    notes: list[str] = field(default_factory=list)


def deep_merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """`base` updated by `extra`, nested mappings merged (as Helm merges values files)."""
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


class BaseProvider:
    """Defaults for every part of the interface, read from the provider's facts."""

    name = ""

    @property
    def facts(self) -> ProviderFacts:
        """This provider's facts (`catalog/data/providers.yaml`)."""
        return provider_facts(self.name)

    def stack(self, spec: PlatformSpec) -> Fact:
        """The fact describing the spec's GPU stack on this provider (`operator_stack`/`provider_stack`)."""
        return self.facts[f"{spec.cluster.gpu_stack}_stack"]

    def nodepool_file(self, spec: PlatformSpec, pools: Sequence[PoolSetup]) -> NodePoolFile:
        """The provisioning file (each provider module overrides this)."""
        raise NotImplementedError(f"provider {self.name} writes no node-pool file")

    def design_problems(self, spec: PlatformSpec, at: Report) -> Iterator[Problem]:
        """Designs this provider cannot run beyond the fact-driven checks (none by default)."""
        return iter(())

    def pool_taints(self, spec: PlatformSpec, pool: NodePool) -> list[Taint]:
        """Taints the provider puts on a pool's nodes by itself (its spot taint, from the facts)."""
        taint = self.facts["spot"].get("taint")
        if not (pool.spot.enabled and isinstance(taint, dict)):
            return []
        return [
            Taint(key=taint["key"], value=taint.get("value", ""), effect=taint.get("effect", "NoSchedule"))
        ]

    def stack_node_labels(self, spec: PlatformSpec, pool: NodePool) -> dict[str, str]:
        """Node labels the spec's GPU stack needs on a GPU pool (e.g. GKE's device plugin off)."""
        if not pool.is_gpu:
            return {}
        return {str(k): str(v) for k, v in (self.stack(spec).get("node_labels") or {}).items()}

    def operator_values(self, spec: PlatformSpec) -> dict[str, Any] | None:
        """GPU Operator Helm values this stack needs; None when the stack runs no GPU Operator."""
        values = self.stack(spec).get("values")
        return None if values is None else copy.deepcopy(dict(values))

    def mig_method(self, spec: PlatformSpec) -> str:
        """Who partitions MIG GPUs: mig-parted (the operator's MIG Manager) or the provider's switch."""
        if spec.cluster.gpu_stack == OPERATOR:
            return MIG_PARTED
        return str(self.facts["mig"].value or MIG_PARTED)

    def sharing_method(self, spec: PlatformSpec) -> str:
        """Who shares GPUs (time-slicing, MPS): operator (the device plugin config) or provider."""
        if spec.cluster.gpu_stack == OPERATOR:
            return OPERATOR
        return str(self.facts["time_slicing"].value or OPERATOR)

    def namespace_objects(self, spec: PlatformSpec, namespace: str) -> list[dict[str, Any]]:
        """Objects the GPU stack needs in the operator's namespace (none by default)."""
        return []

    def notes(self, spec: PlatformSpec) -> list[str]:
        """What the reader should know about this provider's part of the output."""
        return []
