"""Node pools as the audit sees them, whatever they were declared in.

One `Pool` record for an eksctl node group, an AKS agent pool, a GKE node pool, a Karpenter
NodePool or a gpuplane platform-spec pool, with the position of each field in its file so findings
point at the offending line. The readers (`gpuplane.audit.readers.<format>`) build them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gpuplane.audit.objects import Path, Pos, as_dict, as_str, position
from gpuplane.catalog import load_catalog
from gpuplane.vocab import LABEL_CLASS, is_mig_resource

Taint = tuple[str, str, str]  # key, value, effect (Kubernetes spelling)
CLASS_LABEL_KEYS = (
    LABEL_CLASS,
    "workload-class",
    "workloadClass",
    "workload",
    "workload-type",
    "purpose",
    "role",
    "tier",
    "node-role",
    "nodepool-type",
    "usage",
)
# EC2 GPU (and Trainium) instance types: eksctl node groups and Karpenter requirements name them.
AWS_GPU_INSTANCE = re.compile(r"^(p[2-9]|g[3-9]|gr6|trn)[a-z0-9-]*\.", re.IGNORECASE)


@dataclass
class Pool:
    """A node pool with what the rules need, and where each field was written."""

    name: str
    source: str
    file: str
    root: Any
    path: Path
    kind: str
    gpu: bool = False
    gpus_per_node: int | None = None
    resources: dict[str, int] = field(default_factory=dict)
    min_nodes: int | None = None
    min_note: str = ""
    spot: bool = False
    zones: list[str] | None = None
    zones_known: bool = True
    taints: list[Taint] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    classes: set[str] = field(default_factory=set)
    driver_version: str | None = None
    sharing: str = "exclusive"
    waivers: set[str] = field(default_factory=set)
    compact_placement: bool = False
    fabric: str = ""  # the multi-node fabric the pool is built with (EFA, InfiniBand, ...), "" unknown/none
    mig_layout_unknown: bool = False
    accelerator: str | None = None  # catalog GPU name, where the source says which GPU the pool has
    provider: str = ""  # the platform spec's provider, for spec pools
    fields: dict[str, Path] = field(default_factory=dict)

    def pos(self, name: str, *, key: bool = True) -> Pos:
        """Position of a named field of the pool (falls back to the pool entry itself)."""
        rel = self.fields.get(name)
        path = (*self.path, *rel) if rel is not None else self.path
        return position(self.root, path, key=key)

    def mig_resources(self) -> set[str]:
        """The MIG resources the pool's nodes offer."""
        return {r for r in self.resources if is_mig_resource(r)}


def classes_from(name: str, labels: dict[str, str]) -> set[str]:
    """Workload classes a pool is meant for, from class-like labels, else from its name."""
    found: set[str] = set()
    texts = [labels[k].lower() for k in CLASS_LABEL_KEYS if k in labels]
    if not texts:
        texts = [t for t in re.split(r"[-_.]", name.lower()) if t]
    for text in texts:
        if "train" in text:
            found.add("training")
        if "batch" in text:
            found.add("batch")
        if "infer" in text or "serv" in text:
            found.add("inference")
    return found


def to_int(value: Any) -> int | None:
    """An integer field (also written as a string); None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        return int(as_str(value))
    except ValueError:
        return None


def str_labels(value: Any) -> dict[str, str]:
    """A label map with string keys and values."""
    return {str(k): as_str(v) for k, v in as_dict(value).items()}


def single_accelerator(provider: str, vm_types: list[str]) -> str | None:
    """The catalog GPU of a pool's VM types when they all have the same one (else None)."""
    catalog = load_catalog()
    found = {sku.accelerator if (sku := catalog.vm_sku(provider, t)) is not None else None for t in vm_types}
    return found.pop() if len(found) == 1 and None not in found else None
