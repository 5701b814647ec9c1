"""The audit rules. Importing this package registers every rule (GPU000..GPU030, GPU040, GPU041,
GPU060..GPU065)."""

from __future__ import annotations

from gpuplane.audit.rules import (
    containers,
    dra,
    inputs,
    mig,
    pools,
    rbac,
    scheduling,
    tenancy,
    topology,
    versions,
)

__all__ = [
    "containers",
    "dra",
    "inputs",
    "mig",
    "pools",
    "rbac",
    "scheduling",
    "tenancy",
    "topology",
    "versions",
]
