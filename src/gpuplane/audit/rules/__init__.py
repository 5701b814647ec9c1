"""The audit rules. Importing this package registers every rule (GPU001..GPU030)."""

from __future__ import annotations

from gpuplane.audit.rules import containers, dra, inputs, pools, rbac, scheduling, tenancy, versions

__all__ = ["containers", "dra", "inputs", "pools", "rbac", "scheduling", "tenancy", "versions"]
