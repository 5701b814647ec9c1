"""GPUs by state over the window, at the report's chart resolution (pure, from the chart series).

At each chart time a pod's allocation splits like its totals: failed (a pod that failed),
useful and idle (measured, weighted by activity) and unmeasured; provisioned GPUs minus
allocated ones are unallocated.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from gpuplane.account.pools import NodeInfo
from gpuplane.account.raw import RawData
from gpuplane.account.resolver import UNASSIGNED, UNKNOWN, Resolver
from gpuplane.account.usage import PodUsage

Curve = dict[float, float]


@dataclass
class Timeline:
    """GPUs in each state at each chart time."""

    times: list[float]
    allocated_by_team: dict[str, list[float]] = field(default_factory=dict)
    useful: list[float] = field(default_factory=list)
    idle: list[float] = field(default_factory=list)
    unmeasured: list[float] = field(default_factory=list)
    failed: list[float] = field(default_factory=list)
    unallocated: list[float] = field(default_factory=list)


def _allocated(
    raw: RawData, res: Resolver, info: NodeInfo, pods: dict[tuple[str, str], PodUsage]
) -> dict[tuple[str, str], Curve]:
    out: dict[tuple[str, str], Curve] = defaultdict(lambda: defaultdict(float))
    for (ns, pod, node, resource), points in raw.alloc_series.items():
        fraction = res.resource_fraction(info.pool_of.get(node, UNKNOWN), resource)
        if (ns, pod) in pods:
            for t, v in points:
                out[(ns, pod)][t] += v * fraction
    return out


def _measured(raw: RawData, res: Resolver, pod: PodUsage) -> tuple[Curve, Curve]:
    active: Curve = defaultdict(float)
    measured: Curve = defaultdict(float)
    activity = raw.activity.get(pod.activity_source)
    if activity is None:
        return active, measured
    base = res.resource_fraction(pod.pool, pod.resource)
    for table, curve in ((activity.active_series, active), (activity.measured_series, measured)):
        for (ns, name, profile), points in table.items():
            if (ns, name) == (pod.namespace, pod.pod):
                fraction = res.profile_fraction(pod.pool, profile) if profile else base
                for t, v in points:
                    curve[t] += v * fraction
    return active, measured


def _with_measured_series(raw: RawData) -> set[tuple[str, str, str]]:
    """(metric, namespace, pod) whose measured devices the chart series carry (fetched only when
    some pod was measured for less than its allocation)."""
    return {(m, k[0], k[1]) for m, a in raw.activity.items() for k in a.measured_series}


def timeline(raw: RawData, res: Resolver, pods: list[PodUsage], info: NodeInfo) -> Timeline:
    """The GPUs-by-state curves of the report."""
    w, step = raw.window, raw.chart_step
    times = [w.start + i * step for i in range(int((w.last - w.start) // step) + 1)]
    by_key = {(p.namespace, p.pod): p for p in pods}
    allocated = _allocated(raw, res, info, by_key)
    with_series = _with_measured_series(raw)
    out = Timeline(times)
    teams: dict[str, Curve] = defaultdict(lambda: defaultdict(float))
    state: dict[str, Curve] = {k: defaultdict(float) for k in ("useful", "idle", "unmeasured", "failed")}
    for key, curve in allocated.items():
        pod = by_key[key]
        active, measured = _measured(raw, res, pod)
        # measured throughout and no measured series fetched: measured = allocated
        whole = pod.unmeasured_h == 0 and (pod.activity_source, *key) not in with_series
        for t, gpus in curve.items():
            teams[pod.team or UNASSIGNED][t] += gpus
            if pod.outcome == "Failed":
                state["failed"][t] += gpus
                continue
            m = gpus if whole else min(measured.get(t, 0.0), gpus)
            a = min(active.get(t, 0.0), m)
            state["useful"][t] += a
            state["idle"][t] += m - a
            state["unmeasured"][t] += gpus - m
    provisioned: Curve = defaultdict(float)
    for node, points in raw.node_series.items():
        for t, v in points:
            provisioned[t] += v * info.gpus_of.get(node, 0)
    out.allocated_by_team = {team: [c.get(t, 0.0) for t in times] for team, c in sorted(teams.items())}
    for name, curve in state.items():
        setattr(out, name, [curve.get(t, 0.0) for t in times])
    total = [sum(c.get(t, 0.0) for c in teams.values()) for t in times]
    out.unallocated = [max(provisioned.get(t, 0.0) - a, 0.0) for t, a in zip(times, total, strict=True)]
    return out
