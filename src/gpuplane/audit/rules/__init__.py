"""The audit rules. Importing this package registers every rule (GPU001..GPU030, GPU060..GPU065)."""

from __future__ import annotations

from gpuplane.audit.rules import containers, dra, inputs, pools, rbac, scheduling, tenancy, topology, versions

__all__ = ["containers", "dra", "inputs", "pools", "rbac", "scheduling", "tenancy", "topology", "versions"]
