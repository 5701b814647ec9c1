"""GPU accounting from Prometheus: useful, idle, unmeasured, failed and unallocated GPU time and cost.

    from gpuplane.account import resolve_window, run_account
    result = run_account("http://prometheus:9090", spec, resolve_window("7d", None, None, None))

`gpuplane.account.exporter` serves the views as `gpuplane_*` metrics; the in-cluster exporter
objects come from `gpuplane.render.exporter.exporter_manifests(spec)` (docs/account.md).
"""

from __future__ import annotations

from gpuplane.account.compute import AccountResult, KueueView, PodUsage, PoolUsage
from gpuplane.account.engine import run as run_account
from gpuplane.account.prom import PromClient, PromError
from gpuplane.account.window import Window, resolve_window

__all__ = [
    "AccountResult",
    "KueueView",
    "PodUsage",
    "PoolUsage",
    "PromClient",
    "PromError",
    "Window",
    "resolve_window",
    "run_account",
]
