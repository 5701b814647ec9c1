"""GPU accounting from Prometheus: allocated, useful, idle, failed and unallocated GPU time and cost.

    from gpuplane.account import resolve_window, run_account
    result = run_account("http://prometheus:9090", spec, resolve_window("7d", None, None, None))

`gpuplane.account.manifests.exporter_manifests(spec)` gives the in-cluster exporter objects;
`gpuplane.account.exporter` serves the views as `gpuplane_*` metrics (docs/account.md).
"""

from __future__ import annotations

from gpuplane.account.collect import Window
from gpuplane.account.compute import AccountResult, PodUsage, PoolUsage
from gpuplane.account.engine import resolve_window
from gpuplane.account.engine import run as run_account
from gpuplane.account.prom import PromClient, PromError

__all__ = [
    "AccountResult",
    "PodUsage",
    "PoolUsage",
    "PromClient",
    "PromError",
    "Window",
    "resolve_window",
    "run_account",
]
