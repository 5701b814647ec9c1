"""The audit rules. Importing this package registers every rule (GPU001..GPU025)."""

from __future__ import annotations

from gpuplane.audit.rules import containers, inputs, pools, rbac, scheduling, tenancy, versions

__all__ = ["containers", "inputs", "pools", "rbac", "scheduling", "tenancy", "versions"]
