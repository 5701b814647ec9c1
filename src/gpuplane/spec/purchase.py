"""Checks of a pool's `purchase:` segments against the catalog's purchase options
(`gpuplane.catalog.purchase`): an option the provider does not sell, a reservation term it does not
offer, more committed nodes than maxNodes, a capacity block whose window is not one the provider
sells (AWS: 1-14 days then 7-day steps to 182, ending 11:30 UTC), a flex-start run past the
catalog's maximum, and (for the commands that cost) a segment with no price where the catalog
publishes none."""

from __future__ import annotations

from collections.abc import Callable

from gpuplane.catalog.purchase import purchase_option
from gpuplane.durations import parse_seconds
from gpuplane.errors import Problem
from gpuplane.spec.models import NodePool, PlatformSpec, PurchaseSegment

Locate = Callable[[tuple[str | int, ...], str], Problem]

#: Options that hold nodes for a time whether or not they are used.
COMMITTED = ("reserved", "capacity-block", "calendar-reservation", "capacity-reservation")
#: Options bought for a time window [start, end).
WINDOWED = ("capacity-block", "calendar-reservation")
BURST = ("on-demand", "spot")


def purchase_problems(spec: PlatformSpec, at: Locate, *, priced: bool) -> list[Problem]:
    """Every problem of every pool's purchase segments (see the module docstring)."""
    problems: list[Problem] = []
    for index, pool in enumerate(spec.node_pools):
        problems += _pool_problems(spec, index, pool, at, priced=priced)
    return problems


def _pool_problems(
    spec: PlatformSpec, index: int, pool: NodePool, at: Locate, *, priced: bool
) -> list[Problem]:
    provider = spec.cluster.provider
    problems: list[Problem] = []
    bursts = [s for s in pool.purchase if s.option in BURST]
    if len(bursts) > 1:
        problems.append(at(("nodePools", index, "purchase"), "at most one on-demand or spot burst segment"))
    always = 0
    for j, seg in enumerate(pool.purchase):
        here: tuple[str | int, ...] = ("nodePools", index, "purchase", j)
        if seg.option in BURST:
            if (seg.option == "spot") != pool.spot.enabled:
                want = "spot: true" if seg.option == "spot" else "spot: false (or a spot segment)"
                problems.append(
                    at((*here, "option"), f"the pool's burst is {seg.option}: set {want} on the pool")
                )
            continue
        option = purchase_option(provider, seg.option)
        if option is None:
            problems.append(
                at(
                    (*here, "option"),
                    f"{provider} does not sell {seg.option} (catalog purchase_options.yaml)",
                )
            )
            continue
        if seg.option == "flex-start":
            problems += _flex_problems(seg, here, option.max_run_hours, option.provisioning_delay_hours, at)
        elif seg.count is None:
            problems.append(at((*here, "count"), f"{seg.option} needs count (nodes bought)"))
        elif seg.count > pool.max_nodes:
            problems.append(
                at((*here, "count"), f"count {seg.count} is more than the pool's maxNodes {pool.max_nodes}")
            )
        if seg.option == "reserved":
            if seg.term is None:
                problems.append(at((*here, "term"), f"reserved needs term ({' or '.join(option.terms)})"))
            elif option.terms and seg.term not in option.terms:
                problems.append(at((*here, "term"), f"{provider} reservations run {', '.join(option.terms)}"))
            if seg.payment is not None and option.payments and seg.payment not in option.payments:
                problems.append(
                    at((*here, "payment"), f"{provider} {option.name} payments: {', '.join(option.payments)}")
                )
        if seg.option in ("reserved", "capacity-reservation"):
            always += seg.count or 0
        if seg.option in WINDOWED:
            problems += _window_problems(seg, here, option.durations, option.end_time_utc, option.cite, at)
            if (
                option.max_instances_per_block is not None
                and (seg.count or 0) > option.max_instances_per_block
            ):
                problems.append(
                    at(
                        (*here, "count"),
                        f"at most {option.max_instances_per_block} instances per block ({option.cite})",
                    )
                )
        if priced and seg.hourly is None and option.price is None:
            problems.append(
                at(
                    (*here, "hourly"),
                    f"the catalog publishes no {seg.option} price on {provider} ({option.note or option.cite}): "
                    "set hourly (price per node-hour)",
                )
            )
    if always > pool.max_nodes:
        problems.append(
            at(
                ("nodePools", index, "purchase"),
                f"{always} reserved nodes is more than the pool's maxNodes {pool.max_nodes}",
            )
        )
    return problems


def _window_problems(
    seg: PurchaseSegment,
    here: tuple[str | int, ...],
    durations: object,
    end_time: str | None,
    cite: str,
    at: Locate,
) -> list[Problem]:
    from gpuplane.catalog.purchase import BlockDurations

    if seg.start is None or seg.end is None:
        return [
            at((*here, "start" if seg.start is None else "end"), f"{seg.option} needs start and end (UTC)")
        ]
    seconds = (seg.end - seg.start).total_seconds()
    if seconds <= 0:
        return [at((*here, "end"), "end must be after start")]
    problems = []
    days = seconds / 86400
    if isinstance(durations, BlockDurations) and not durations.allows(days):
        problems.append(
            at((*here, "end"), f"a {days:g}-day window is not sold: {durations.describe()} ({cite})")
        )
    if end_time is not None and seg.end.strftime("%H:%M") != end_time:
        problems.append(at((*here, "end"), f"blocks end at {end_time} UTC ({cite})"))
    return problems


def _flex_problems(
    seg: PurchaseSegment,
    here: tuple[str | int, ...],
    max_run_hours: float | None,
    delay_hours: float | None,
    at: Locate,
) -> list[Problem]:
    problems = []
    if seg.count is None and seg.max is None:
        problems.append(at((*here, "max"), "flex-start needs count or max (nodes)"))
    if seg.provisioning_delay is None:
        if delay_hours is None:
            problems.append(
                at(
                    (*here, "provisioningDelay"),
                    "the catalog publishes no flex-start provisioning delay: set provisioningDelay (e.g. 2h)",
                )
            )
    elif not parse_seconds(seg.provisioning_delay):
        problems.append(
            at((*here, "provisioningDelay"), f"{seg.provisioning_delay!r} is not a duration (e.g. 2h)")
        )
    if seg.max_run is not None:
        run = parse_seconds(seg.max_run)
        if not run:
            problems.append(at((*here, "maxRun"), f"{seg.max_run!r} is not a duration (e.g. 3d)"))
        elif max_run_hours is not None and run > max_run_hours * 3600:
            problems.append(at((*here, "maxRun"), f"flex-start runs at most {max_run_hours:g} h"))
    return problems
