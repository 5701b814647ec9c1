"""A pool's purchase mix as the cost model and the twin use it: committed capacity (paid whether
used: reservations, capacity reservations, capacity blocks, calendar reservations), the burst
(on-demand or spot, priced through `gpuplane.costs.pool_price`) and flex-start. Times of windowed
purchases are seconds from an origin (the window start in `account`, the first window's start in
the twin)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from gpuplane.durations import parse_seconds
from gpuplane.spec.models import NodePool, PurchaseSegment

__all__ = ["Commitment", "FlexStart", "PurchaseMix", "first_start", "purchase_mix"]

ALWAYS = ("reserved", "capacity-reservation")
WINDOWED = ("capacity-block", "calendar-reservation")


@dataclass(frozen=True)
class Commitment:
    """`count` nodes paid at `hourly` each from `start` to `end` (seconds from the origin; None:
    the whole window), whether used or not. `terminates`: the nodes exist only inside the window
    and their pods are evicted at its end (capacity blocks)."""

    option: str
    count: int
    hourly: float
    term: str | None = None
    start: float | None = None
    end: float | None = None
    terminates: bool = False

    def overlap(self, t0: float, t1: float) -> float:
        """Seconds of [t0, t1) this commitment is in force."""
        lo = t0 if self.start is None else max(t0, self.start)
        hi = t1 if self.end is None else min(t1, self.end)
        return max(0.0, hi - lo)

    def active(self, t: float) -> bool:
        """Whether it is in force at `t`."""
        return (self.start is None or t >= self.start) and (self.end is None or t < self.end)


@dataclass(frozen=True)
class FlexStart:
    """Flex-start nodes: up to `max_nodes`, ready `delay_s` after the request, at most `max_run_s`."""

    max_nodes: int
    hourly: float
    delay_s: float
    max_run_s: float


@dataclass(frozen=True)
class PurchaseMix:
    """How one pool's nodes are paid. `burst`: the pool scales on-demand/spot up to maxNodes."""

    pool: str
    commitments: tuple[Commitment, ...] = ()
    flex: FlexStart | None = None
    burst: bool = True

    def committed_at(self, t: float) -> int:
        """Nodes paid for at `t` whether used or not."""
        return sum(c.count for c in self.commitments if c.active(t))

    @property
    def always_reserved(self) -> int:
        """Nodes reserved for the whole window (reservations, capacity reservations)."""
        return sum(c.count for c in self.commitments if c.start is None)

    def breakpoints(self) -> list[float]:
        """Every instant a windowed commitment starts or ends."""
        out: set[float] = set()
        for c in self.commitments:
            out.update(x for x in (c.start, c.end) if x is not None)
        return sorted(out)


def _seconds(at: datetime.datetime | None, origin: datetime.datetime) -> float | None:
    if at is None:
        return None
    if at.tzinfo is None:
        at = at.replace(tzinfo=datetime.UTC)
    return (at - origin).total_seconds()


def _commitment(seg: PurchaseSegment, origin: datetime.datetime) -> Commitment:
    if seg.hourly is None:
        raise ValueError(
            f"{seg.option} has no hourly price (the spec checks refuse this for commands that cost)"
        )
    windowed = seg.option in WINDOWED
    return Commitment(
        option=seg.option,
        count=seg.count or 0,
        hourly=seg.hourly,
        term=seg.term,
        start=_seconds(seg.start, origin) if windowed else None,
        end=_seconds(seg.end, origin) if windowed else None,
        terminates=seg.option == "capacity-block",
    )


def first_start(pool: NodePool) -> datetime.datetime | None:
    """The earliest start of the pool's windowed purchases (the twin's origin), if any."""
    starts = [s.start for s in pool.purchase if s.option in WINDOWED and s.start is not None]
    if not starts:
        return None
    first = min(s if s.tzinfo else s.replace(tzinfo=datetime.UTC) for s in starts)
    return first


def purchase_mix(
    pool: NodePool, origin: datetime.datetime | None = None, *, flex_max_run_s: float | None = None
) -> PurchaseMix | None:
    """The pool's mix, or None when it declares no purchase segments (all on-demand or spot)."""
    if not pool.purchase:
        return None
    origin = origin or first_start(pool) or datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
    commitments = tuple(_commitment(s, origin) for s in pool.purchase if s.option in (*ALWAYS, *WINDOWED))
    flex = None
    for seg in pool.purchase:
        if seg.option == "flex-start":
            run = parse_seconds(seg.max_run) if seg.max_run else flex_max_run_s
            flex = FlexStart(
                max_nodes=seg.max or seg.count or 0,
                hourly=seg.hourly if seg.hourly is not None else 0.0,
                delay_s=parse_seconds(seg.provisioning_delay or "0s") or 0.0,
                max_run_s=run if run is not None else float("inf"),
            )
    burst = any(s.option in ("on-demand", "spot") for s in pool.purchase)
    return PurchaseMix(pool=pool.name, commitments=commitments, flex=flex, burst=burst)
