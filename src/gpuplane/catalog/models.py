"""Typed records for catalog facts: accelerators, MIG profiles, VM SKUs and prices.

They are frozen dataclasses: the catalog is loaded once and shared, so nobody may change a fact
in place. Every record carries the source (and date) it was transcribed from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuplane.vocab import MIG_RESOURCE_PREFIX, mig_resource


@dataclass(frozen=True)
class MigProfile:
    """One MIG GPU-instance profile of one accelerator.

    `memory_slices` is the placement size: the instance occupies memory slices
    `[start, start + memory_slices)` for a start in `placements`.
    """

    name: str
    compute_slices: int
    memory_slices: int
    max_count: int
    placements: list[int]
    memory_gb: int
    placement_source: str = "confirmed"
    min_driver: str | None = None

    @property
    def resource_name(self) -> str:
        """Extended resource under the mixed strategy: the MIG prefix + the name ('+' -> '.')."""
        return mig_resource(self.name)

    @property
    def media_extensions(self) -> bool:
        """True for `+me` profiles (at most one such instance per GPU)."""
        return "+me" in self.name


@dataclass(frozen=True)
class Accelerator:
    """A GPU model as Kubernetes sees it: one device per GPU."""

    name: str
    memory_gb: float
    architecture: str
    aliases: list[str] = field(default_factory=list)
    visualization_only: bool = False
    memory_slices: int = 0
    compute_slices: int = 0
    mig_profiles: dict[str, MigProfile] = field(default_factory=dict)
    pci_device_ids: list[str] = field(default_factory=list)
    gfd_products: list[str] = field(default_factory=list)
    gke_accelerator_type: str | None = None
    source: str = ""
    date: str = ""

    @property
    def mig_capable(self) -> bool:
        """True when the GPU can be partitioned with MIG."""
        return bool(self.mig_profiles)

    def mig_profile(self, name: str) -> MigProfile | None:
        """A profile by name; accepts the config-name spelling (`1g.10gb.me`) and `mig-` prefixes."""
        return self.mig_profiles.get(normalize_profile_name(name))


def normalize_profile_name(name: str) -> str:
    """The catalog spelling of a MIG profile name, from a resource name or a config name.

    The mixed-strategy resource (`MIG_RESOURCE_PREFIX` + `1g.10gb.me`), `mig-1g.10gb.me` and
    `1G.10GB+me` all become `1g.10gb+me`.
    """
    text = name.strip().lower()
    for prefix in (MIG_RESOURCE_PREFIX, "mig-"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    for suffix in ("me.all", "me", "gfx"):
        dotted = "." + suffix
        if text.endswith(dotted) and text.count(".") > 1 and "+" not in text:
            return text[: -len(dotted)] + "+" + suffix
    return text


@dataclass(frozen=True)
class Price:
    """Hourly list price of one VM SKU in one region."""

    region: str
    on_demand_hourly: float
    spot_hourly: float | None
    currency: str
    date: str
    source: str
    note: str = ""


@dataclass(frozen=True)
class VmSku:
    """A cloud VM size with GPUs, with the prices we know for it."""

    provider: str
    name: str
    family: str
    accelerator: str
    gpus: int
    vcpus: int | None
    memory_gb: float | None
    prices: list[Price] = field(default_factory=list)
    source: str = ""
    gke_accelerator_type: str | None = None
