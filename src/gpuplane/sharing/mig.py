"""MIG placement: does a list of GPU-instance profiles fit one GPU, and where does each go.

The rule (derived in ../shared/reference/nvidia.md section 1.4; NVIDIA publishes no algorithm):
every instance takes a start slot from its profile's placement list, the memory-slice ranges
`[start, start + memory_slices)` must not overlap (NVML), each profile stays within its max count,
at most one `+me` instance, and the compute slices add up to at most the GPU's (7, or 4 on A30).

The search is exact (backtracking over at most 7 instances). Larger instances are placed first
and each tries its highest start first, which reproduces the MIG guide's worked examples
(3g.20gb@4 + 2g.10gb@2 + 1g.5gb@1 + 1g.5gb@0; 2g.10gb@4 + 1g.5gb@{6,3,2,1,0}). When you create
instances by hand without explicit placements, create the larger ones first (the guide's
"3g.20gb must be specified first" note); `MigFit.creation_order` gives that order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from gpuplane.catalog.models import Accelerator, MigProfile
from gpuplane.sharing.operator_configs import (
    OperatorConfigEntry,
    layout_for_config,
    operator_default_configs,
)

__all__ = [
    "MigFit",
    "OperatorConfigEntry",
    "check_layout",
    "layout_for_config",
    "maximal_layouts",
    "operator_default_configs",
    "resolve_profiles",
]


@dataclass(frozen=True)
class MigFit:
    """Outcome of a fit check: the placement when it fits, the reason when it does not.

    `placements` follows the order of the requested profiles: (profile, start slot).
    `unknown` lists requested names that are not profiles of this GPU (then `fits` is False).
    """

    fits: bool
    placements: list[tuple[str, int]] = field(default_factory=list)
    reason: str = ""
    unknown: list[str] = field(default_factory=list)

    @property
    def creation_order(self) -> list[tuple[str, int]]:
        """Placements with the largest instances first, a safe order for `nvidia-smi mig -cgi`."""
        return sorted(self.placements, key=lambda p: (-_size_hint(p[0]), -p[1]))


def _size_hint(profile: str) -> int:
    """Memory GB of a profile name, for ordering only."""
    try:
        return int(profile.split(".")[1].split("gb")[0])
    except (IndexError, ValueError):
        return 0


def resolve_profiles(accelerator: Accelerator, profiles: list[str]) -> tuple[list[MigProfile], list[str]]:
    """Profiles by name (any accepted spelling), and the names this GPU does not have."""
    found: list[MigProfile] = []
    unknown: list[str] = []
    for name in profiles:
        profile = accelerator.mig_profile(name)
        if profile is None:
            unknown.append(name)
        else:
            found.append(profile)
    return found, unknown


def _count_problem(accelerator: Accelerator, wanted: list[MigProfile]) -> str:
    """The first counting rule the layout breaks, or an empty string."""
    counts = Counter(p.name for p in wanted)
    for profile in accelerator.mig_profiles.values():
        if counts[profile.name] > profile.max_count:
            return (
                f"{counts[profile.name]} x {profile.name} requested but at most {profile.max_count} "
                f"fit on one {accelerator.name}"
            )
    media = [p.name for p in wanted if p.media_extensions]
    if len(media) > 1:
        return f"at most one media-extension (+me) instance per GPU, got {len(media)}: {', '.join(media)}"
    compute = sum(p.compute_slices for p in wanted)
    if compute > accelerator.compute_slices:
        return (
            f"the instances need {compute} compute slices but {accelerator.name} has "
            f"{accelerator.compute_slices}"
        )
    memory = sum(p.memory_slices for p in wanted)
    if memory > accelerator.memory_slices:
        return (
            f"the instances need {memory} memory slices but {accelerator.name} has "
            f"{accelerator.memory_slices}"
        )
    return ""


def _place(wanted: list[MigProfile], total_slices: int) -> list[int] | None:
    """Start slots for `wanted` (in that order) without overlap, or None. Exact backtracking."""
    starts: list[int] = [0] * len(wanted)

    def search(i: int, used: int) -> bool:
        if i == len(wanted):
            return True
        profile = wanted[i]
        mask = (1 << profile.memory_slices) - 1
        for start in sorted(profile.placements, reverse=True):
            if start + profile.memory_slices > total_slices:
                continue
            span = mask << start
            if used & span:
                continue
            # Same profile twice: keep starts descending so equal layouts are searched once.
            if i > 0 and wanted[i - 1].name == profile.name and start > starts[i - 1]:
                continue
            starts[i] = start
            if search(i + 1, used | span):
                return True
        return False

    return list(starts) if search(0, 0) else None


def _placement_reason(accelerator: Accelerator, wanted: list[MigProfile]) -> str:
    """Explain a layout whose counts are fine but whose start slots always collide."""
    options = "; ".join(
        f"{p.name} starts at {p.placements} and spans {p.memory_slices}"
        for p in sorted({p.name: p for p in wanted}.values(), key=lambda p: -p.memory_slices)
    )
    return (
        f"no placement without overlapping memory slices on {accelerator.name} "
        f"({accelerator.memory_slices} slices): {options}"
    )


def check_layout(accelerator: Accelerator, profiles: list[str]) -> MigFit:
    """Whether these MIG instances (profile names, one GPU) fit, with a start slot for each."""
    if not accelerator.mig_capable:
        return MigFit(False, reason=f"{accelerator.name} does not support MIG")
    wanted, unknown = resolve_profiles(accelerator, profiles)
    if unknown:
        known = ", ".join(accelerator.mig_profiles)
        return MigFit(
            False,
            reason=f"{', '.join(unknown)}: not a MIG profile of {accelerator.name} (known: {known})",
            unknown=unknown,
        )
    problem = _count_problem(accelerator, wanted)
    if problem:
        return MigFit(False, reason=problem)
    order = sorted(
        range(len(wanted)),
        key=lambda i: (-wanted[i].memory_slices, -wanted[i].compute_slices, wanted[i].name),
    )
    starts = _place([wanted[i] for i in order], accelerator.memory_slices)
    if starts is None:
        return MigFit(False, reason=_placement_reason(accelerator, wanted))
    by_index = dict(zip(order, starts, strict=True))
    placements = [(wanted[i].name, by_index[i]) for i in range(len(wanted))]
    used = sum(p.memory_slices for p in wanted)
    return MigFit(
        True, placements=placements, reason=f"fits: {used} of {accelerator.memory_slices} memory slices used"
    )


def maximal_layouts(accelerator: Accelerator, *, include_media: bool = False) -> list[list[str]]:
    """Every layout to which no further profile can be added, largest profiles first.

    `+me` profiles are left out unless `include_media` (they only duplicate the 1g layouts).
    """
    signature = tuple(
        (p.name, p.compute_slices, p.memory_slices, p.max_count, tuple(p.placements))
        for p in accelerator.mig_profiles.values()
    )
    key = (accelerator.name, accelerator.memory_slices, accelerator.compute_slices, signature, include_media)
    if key not in _MAXIMAL_CACHE:
        _MAXIMAL_CACHE[key] = _maximal(accelerator, include_media)
    return [list(layout) for layout in _MAXIMAL_CACHE[key]]


_MAXIMAL_CACHE: dict[tuple[object, ...], tuple[tuple[str, ...], ...]] = {}


def _maximal(accelerator: Accelerator, include_media: bool) -> tuple[tuple[str, ...], ...]:
    names = [p.name for p in _ordered(accelerator) if include_media or not p.media_extensions]
    fitting: set[tuple[str, ...]] = set()

    def grow(layout: tuple[str, ...], first: int) -> None:
        for k in range(first, len(names)):
            candidate = (*layout, names[k])
            if check_layout(accelerator, list(candidate)).fits:
                fitting.add(candidate)
                grow(candidate, k)

    grow((), 0)
    rank = {n: i for i, n in enumerate(names)}

    def canonical(layout: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted(layout, key=rank.__getitem__))

    maximal = [layout for layout in fitting if not any(canonical((*layout, n)) in fitting for n in names)]
    return tuple(sorted(maximal, key=lambda lay: [rank[n] for n in lay]))


def _ordered(accelerator: Accelerator) -> list[MigProfile]:
    """Profiles largest first: memory slices, then compute slices, then name."""
    return sorted(
        accelerator.mig_profiles.values(), key=lambda p: (-p.memory_slices, -p.compute_slices, p.name)
    )
