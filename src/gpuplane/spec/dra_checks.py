"""Checks of DRA pools: the device-plugin settings that do not apply to them, and Kueue's stated
limits on DRA (kubernetes-sigs/kueue site/content/en/docs/concepts/dynamic_resource_allocation.md
and pkg/config/validation.go validateDeviceClassMappings @ff69552e, v0.19.2)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from gpuplane.errors import Problem
from gpuplane.k8s_versions import version_at_least
from gpuplane.spec import derived
from gpuplane.spec.models import NodePool, PlatformSpec
from gpuplane.vocab import DRA_GROUP

Report = Callable[[tuple[str | int, ...], str, str], Problem]
KUEUE_DOC = "Kueue docs concepts/dynamic_resource_allocation.md @ff69552e"
# Kueue's Configuration accepts at most 16 deviceClassMappings (pkg/config/validation.go).
MAX_DEVICE_CLASS_MAPPINGS = 16
KUEUE_DRA_VERSION = "1.34"


def dra_pool_problems(index: int, pool: NodePool, at: Report) -> Iterator[Problem]:
    """Device-plugin settings on a DRA pool, which NVIDIA's DRA driver does not have."""
    base: tuple[str | int, ...] = ("nodePools", index, "sharing")
    sharing = pool.sharing
    if "replicas" in sharing.model_fields_set:
        yield at(
            (*base, "replicas"),
            "a DRA claim gets a whole GPU, time-sliced or MPS-shared among the containers of its claim; "
            "there are no replicas (Kueue charges one device per claim)",
            "error",
        )
    if sharing.rename_shared:
        yield at(
            (*base, "renameShared"), "renameShared is a device-plugin setting; DRA pools have none", "error"
        )
    if sharing.mode == "mig" and "strategy" in sharing.model_fields_set:
        yield at(
            (*base, "strategy"),
            "the MIG strategy is a device-plugin setting; on a DRA pool every MIG profile is its own DeviceClass",
            "error",
        )


def dra_platform_problems(spec: PlatformSpec, at: Report) -> Iterator[Problem]:
    """Kueue's limits for the platform's DRA pools as a whole."""
    dra_pools = [i for i, p in enumerate(spec.node_pools) if derived.is_dra(p)]
    if not dra_pools:
        return
    first = spec.node_pools[dra_pools[0]]
    where = (
        ("nodePools", dra_pools[0], "deviceApi")
        if "device_api" in first.model_fields_set
        else ("cluster", "deviceApi")
    )
    if not version_at_least(spec.cluster.kubernetes_version, KUEUE_DRA_VERSION):
        yield at(
            where,
            f"Kueue accounts DRA claims only on Kubernetes {KUEUE_DRA_VERSION} or later ({DRA_GROUP}/v1); "
            f"on {spec.cluster.kubernetes_version} it cannot admit them ({KUEUE_DOC})",
            "warning",
        )
    kinds = {kind for i in dra_pools for kind in derived.dra_kinds_per_gpu(spec.node_pools[i])}
    if len(kinds) > MAX_DEVICE_CLASS_MAPPINGS:
        yield at(
            where,
            f"the DRA pools need {len(kinds)} DeviceClass mappings; Kueue's Configuration takes at most "
            f"{MAX_DEVICE_CLASS_MAPPINGS} (pkg/config/validation.go @ff69552e)",
            "error",
        )
