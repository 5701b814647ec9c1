"""NVIDIA device-plugin config files for GPU sharing (time-slicing and MPS).

The content follows k8s-device-plugin `api/config/v1` (nvidia.md section 3.1); the facts it needs
(version, minimum replicas, defaults per mode) come from `device_plugin_sharing.yaml`.
"""

from __future__ import annotations

import functools
from typing import Any

from gpuplane.catalog.loader import read_yaml
from gpuplane.vocab import GPU_RESOURCE


@functools.cache
def plugin_facts() -> dict[str, Any]:
    """The packaged device-plugin facts (read once)."""
    data: dict[str, Any] = read_yaml("device_plugin_sharing.yaml")
    return data


def sharing_config(
    mode: str,
    replicas: int,
    rename_shared: bool = False,
    fail_requests_greater_than_one: bool | None = None,
    *,
    resources: list[str] | None = None,
    mig_strategy: str | None = None,
) -> dict[str, Any]:
    """The device-plugin config file content that shares each GPU `replicas` ways.

    `mode` is `time-slicing` or `mps`. `fail_requests_greater_than_one=None` keeps the plugin's
    default for the mode (false for time-slicing, true for MPS), written out explicitly so the
    file says what it does. `resources` defaults to the whole-GPU resource; mixed-strategy MIG resources
    may be listed for time-slicing only. Raises ValueError for what the plugin would reject.
    """
    facts = plugin_facts()
    modes: dict[str, Any] = facts["modes"]
    if mode not in modes:
        raise ValueError(f"unknown sharing mode {mode!r} for the device plugin; expected {', '.join(modes)}")
    minimum = int(facts["min_replicas"])
    if replicas < minimum:
        raise ValueError(f"number of replicas must be >= {minimum}, got {replicas}")
    names = resources or [GPU_RESOURCE]
    if not modes[mode]["mig_allowed"] and any(n != GPU_RESOURCE for n in names):
        raise ValueError(f"{mode} shares only full GPUs ({GPU_RESOURCE}), not MIG devices")
    fail = (
        modes[mode]["fail_requests_greater_than_one_default"]
        if fail_requests_greater_than_one is None
        else fail_requests_greater_than_one
    )
    config: dict[str, Any] = {"version": facts["version"]}
    if mig_strategy is not None:
        config["flags"] = {"migStrategy": mig_strategy}
    config["sharing"] = {
        modes[mode]["key"]: {
            "renameByDefault": bool(rename_shared),
            "failRequestsGreaterThanOne": bool(fail),
            "resources": [{"name": n, "replicas": int(replicas)} for n in names],
        }
    }
    return config
