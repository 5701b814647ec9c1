"""Kubernetes extended resources that one physical GPU advertises under each sharing mode.

Names follow the NVIDIA k8s-device-plugin (nvidia.md sections 2.4 and 3) and are spelled in
`gpuplane.vocab`: full GPUs and the `single` MIG strategy use the whole-GPU resource
(`GPU_RESOURCE`); the `mixed` strategy one `MIG_RESOURCE_PREFIX` + profile per profile ('+'
spelled '.'); time-slicing and MPS multiply the whole-GPU resource by the replicas, or advertise
it with the device plugin's shared suffix when renamed.
"""

from __future__ import annotations

from collections import Counter

from gpuplane.catalog.models import Accelerator
from gpuplane.sharing.deviceplugin import plugin_facts
from gpuplane.sharing.mig import check_layout
from gpuplane.vocab import GPU_RESOURCE, MIG_RESOURCE_PREFIX, mig_resource

MODES = ("exclusive", "mig", "time-slicing", "mps")
MIG_STRATEGIES = ("single", "mixed")


def shared_resource_name(rename_shared: bool) -> str:
    """The whole-GPU resource, or its shared form when the device plugin renames shared GPUs."""
    suffix = str(plugin_facts()["shared_suffix"])
    return GPU_RESOURCE + suffix if rename_shared else GPU_RESOURCE


def _mig_resources(
    accelerator: Accelerator, mig_layout: list[str] | None, mig_strategy: str
) -> dict[str, int]:
    if mig_strategy not in MIG_STRATEGIES:
        raise ValueError(
            f"unknown MIG strategy {mig_strategy!r}; expected one of {', '.join(MIG_STRATEGIES)}"
        )
    if mig_layout is None:
        raise ValueError("mode 'mig' needs a mig_layout (profile names for one GPU)")
    fit = check_layout(accelerator, mig_layout)
    if not fit.fits:
        raise ValueError(f"MIG layout does not fit {accelerator.name}: {fit.reason}")
    counts = Counter(profile for profile, _ in fit.placements)
    if mig_strategy == "single":
        if not counts:
            raise ValueError(
                "the single MIG strategy needs at least one MIG instance per GPU "
                "(GFD marks a MIG GPU without instances MIG-INVALID)"
            )
        if len(counts) != 1:
            raise ValueError(
                "the single MIG strategy needs every instance on a node to have the same profile, "
                f"got {', '.join(sorted(counts))}; use the mixed strategy"
            )
        return {GPU_RESOURCE: sum(counts.values())}
    return {mig_resource(p): counts[p] for p in sorted(counts)}


def per_gpu(
    accelerator: Accelerator,
    mode: str,
    *,
    mig_layout: list[str] | None = None,
    mig_strategy: str = "single",
    replicas: int = 1,
    rename_shared: bool = False,
) -> dict[str, int]:
    """Extended resources (name -> count) that one physical GPU of this accelerator advertises.

    Raises ValueError for a combination the device plugin rejects: an unknown mode, MIG on a GPU
    without MIG or a layout that does not fit, mixed profiles under the single strategy, shared
    replicas below the plugin's minimum of 2, MPS on a MIG GPU is not expressible here.
    """
    if mode == "exclusive":
        return {GPU_RESOURCE: 1}
    if mode == "mig":
        if not accelerator.mig_capable:
            raise ValueError(f"{accelerator.name} does not support MIG")
        return _mig_resources(accelerator, mig_layout, mig_strategy)
    if mode in ("time-slicing", "mps"):
        minimum = int(plugin_facts()["min_replicas"])
        if replicas < minimum:
            raise ValueError(f"{mode} needs replicas >= {minimum} (device plugin rule), got {replicas}")
        return {shared_resource_name(rename_shared): replicas}
    raise ValueError(f"unknown sharing mode {mode!r}; expected one of {', '.join(MODES)}")


def gpu_fraction(resource_name: str, accelerator: Accelerator, *, replicas: int = 1) -> float:
    """Share of one physical GPU that one unit of this resource is.

    The whole-GPU resource is a whole GPU (or 1/replicas of one when time-sliced or MPS-shared);
    its shared form is 1/replicas; a MIG resource is its compute slices over the GPU's
    (mig-3g.40gb on H100 -> 3/7). Raises ValueError for anything else.
    """
    if replicas < 1:
        raise ValueError(f"replicas must be >= 1, got {replicas}")
    if resource_name in (GPU_RESOURCE, shared_resource_name(True)):
        return 1.0 / replicas
    if resource_name.startswith(MIG_RESOURCE_PREFIX):
        profile = accelerator.mig_profile(resource_name)
        if profile is None or not accelerator.compute_slices:
            raise ValueError(f"{resource_name} is not a MIG resource of {accelerator.name}")
        return profile.compute_slices / accelerator.compute_slices
    raise ValueError(f"{resource_name} is not an NVIDIA GPU resource")
