"""What a DRA pool offers: one gpuplane DeviceClass per kind of device its GPUs give, and the quota
name Kueue charges a claim of that class to (`deviceClassMappings`).

NVIDIA's DRA driver publishes whole GPUs (`type == 'gpu'`) and MIG devices (`type == 'mig'`, with
their `profile`) in ResourceSlices (deviceclass-{gpu,mig}.yaml of the driver's chart v0.4.1). A
claim allocated from a ResourceClaimTemplate gets its own device: time-slicing and MPS share that
GPU among the containers of the claim (the driver's GpuConfig sharing), so a time-sliced or MPS
DRA pool offers one unit per GPU, like an exclusive one (NVIDIA DRA docs: "time-slicing through a
shared DRA claim"; Kueue admits only template claims). Kinds, per sharing mode:

| mode          | kind                 |
|---------------|----------------------|
| exclusive     | gpu                  |
| time-slicing  | gpu-time-slicing     |
| mps           | gpu-mps              |
| mig           | mig-<profile>        |

The DeviceClass of a kind is `<kind>` + `vocab.DRA_CLASS_SUFFIX` (a subdomain of gpuplane's API
group), its quota name `vocab.DRA_RESOURCE_PREFIX` + `<kind>`; `+` in a profile is spelled `.`, as
the device plugin does. The classes are gpuplane's own, not the driver's (`vocab.DRA_GPU_CLASS`),
whose v1 class sets `extendedResourceName` to the whole-GPU resource: Kueue warns against one
DeviceClass in both its claim and extended-resource paths.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from gpuplane.catalog.models import Accelerator
from gpuplane.vocab import DRA_CLASS_SUFFIX, DRA_RESOURCE_PREFIX, is_dra_resource

MIG_KIND_PREFIX = "mig-"
SHARED_KINDS = {"time-slicing": "gpu-time-slicing", "mps": "gpu-mps"}
GPU_KIND = "gpu"


@dataclass(frozen=True)
class DraKind:
    """One kind of device a DRA pool offers: a DeviceClass and the quota name it maps to."""

    kind: str
    sharing: str = "exclusive"
    mig_profile: str | None = None

    @property
    def device_class(self) -> str:
        """The DeviceClass name (a DNS subdomain): the kind + `DRA_CLASS_SUFFIX`."""
        return self.kind + DRA_CLASS_SUFFIX

    @property
    def resource(self) -> str:
        """The quota name Kueue charges a claim of this class to (`DRA_RESOURCE_PREFIX` + the kind)."""
        return DRA_RESOURCE_PREFIX + self.kind

    @property
    def template(self) -> str:
        """The ResourceClaimTemplate name in each team namespace (`dra-<kind>`)."""
        return "dra-" + self.kind


def mig_kind(profile: str) -> DraKind:
    """The kind of one MIG profile (`1g.10gb+me` -> `mig-1g.10gb.me`)."""
    return DraKind(MIG_KIND_PREFIX + profile.replace("+", "."), "mig", profile)


def kinds_per_gpu(mode: str, mig_layout: list[str] | None = None) -> dict[DraKind, int]:
    """Devices of each kind one GPU of a DRA pool gives (a MIG GPU: one per instance)."""
    if mode == "mig":
        counts = Counter(mig_layout or [])
        return {mig_kind(p): counts[p] for p in sorted(counts)}
    if mode in SHARED_KINDS:
        return {DraKind(SHARED_KINDS[mode], mode): 1}
    return {DraKind(GPU_KIND): 1}


def kind_of(resource: str) -> DraKind | None:
    """The kind behind a DRA quota name, or None for any other name."""
    if not is_dra_resource(resource):
        return None
    kind = resource[len(DRA_RESOURCE_PREFIX) :]
    if kind.startswith(MIG_KIND_PREFIX):
        profile = kind[len(MIG_KIND_PREFIX) :]
        if profile.endswith(".me"):
            profile = profile[: -len(".me")] + "+me"
        return DraKind(kind, "mig", profile)
    sharing = next((mode for mode, k in SHARED_KINDS.items() if k == kind), "exclusive")
    return DraKind(kind, sharing)


def gpu_fraction(resource: str, accelerator: Accelerator) -> float:
    """Share of a physical GPU one unit of a DRA quota name is: a MIG device its compute slices over
    the GPU's, anything else a whole GPU. Raises ValueError for a name that is not gpuplane's."""
    kind = kind_of(resource)
    if kind is None:
        raise ValueError(f"{resource} is not a gpuplane DRA resource")
    if kind.mig_profile is None:
        return 1.0
    profile = accelerator.mig_profile(kind.mig_profile)
    if profile is None or not accelerator.compute_slices:
        raise ValueError(f"{resource} is not a MIG device of {accelerator.name}")
    return profile.compute_slices / accelerator.compute_slices
