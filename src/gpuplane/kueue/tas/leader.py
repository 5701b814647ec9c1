"""Kueue's TAS placement of a pod-set group: one leader pod placed with its workers.

Modelled on kubernetes-sigs/kueue v0.19.2 `pkg/cache/scheduler/tas_flavor_snapshot.go`, the
leader paths of `findTopologyAssignment`, `fillLeafCounts`, `fillInCountsHelper` (leaderRequired),
`sortedDomainsWithLeader`, `findLevelWithFitDomains`, `prioritizeLeaderDomain`,
`consumeWithLeadersGeneric` and `updateCountsToMinimumGeneric`. A leaf can host the leader when
one leader pod fits its free capacity; the workers beside it are counted on what is left
(`pod_wl`). A parent's workers-with-leader count is its workers minus the smallest loss of a child
that can host the leader. The group's level, required/preferred and slices are the workers'.
"""

from __future__ import annotations

from collections.abc import Mapping

from gpuplane.kueue.tas.model import TASPodSetRequest, TopologyAssignment
from gpuplane.kueue.tas.placement import _BIG, POD, Domain, FlavorTopology, LeafKey, Stats, count_in

LEADERS = 1  # PodSet grouping validation requires the leader PodSet to have one replica


def _key_leader(d: Domain, lfc: bool) -> tuple[int, int, int, tuple[str, ...]]:
    return (-d.leader_count, d.slice_wl if lfc else -d.slice_wl, d.pod_wl, d.values)


def _key_plain(d: Domain, lfc: bool) -> tuple[int, int, tuple[str, ...]]:
    return (d.slice_count if lfc else -d.slice_count, d.pod_count, d.values)


def _count(d: Domain, with_leader: bool, slices: bool) -> int:
    if with_leader:
        return d.slice_wl if slices else d.pod_wl
    return d.slice_count if slices else d.pod_count


def _best_fit(domains: list[Domain], needed: int, leaders: int, slices: bool) -> Domain:
    """findBestFitDomainBy: the first domain with the smallest count >= needed (with-leader counts when
    leaders are still to place; domains that cannot host them are skipped)."""
    best, best_count, found = domains[0], _BIG, False
    for d in domains:
        if d.leader_count < leaders:
            continue
        c = _count(d, leaders > 0, slices)
        if needed <= c < best_count:
            best, best_count, found = d, c, True
    return best if found else domains[0]


def _fill(
    tree: FlavorTopology,
    workers: TASPodSetRequest,
    leader: TASPodSetRequest,
    usage: Mapping[LeafKey, Mapping[str, int]],
    assumed: Mapping[LeafKey, Mapping[str, int]],
    simulate_empty: bool,
    slice_size: int,
    slice_idx: int,
    stats: Stats,
) -> None:
    for d in tree.domains:
        d.pod_count = d.slice_count = d.leader_count = d.pod_wl = d.slice_wl = 0
    shape = (tuple(sorted(workers.node_selector.items())), workers.tolerations, workers.affinity_terms)
    leaves, excluded = tree._feasible(workers, shape)
    stats.add(excluded)
    wpod = dict(workers.per_pod)
    wpod["pods"] = wpod.get("pods", 0) + POD
    lpod = dict(leader.per_pod)
    lpod["pods"] = lpod.get("pods", 0) + POD
    for leaf in leaves:
        remaining = dict(leaf.free)
        for src in ([] if simulate_empty else [usage.get(leaf.key)]) + [assumed.get(leaf.key)]:
            for res, q in (src or {}).items():
                remaining[res] = remaining.get(res, 0) - q
        count, limiting = count_in(wpod, remaining)
        leaf.pod_count = count
        if count == 0 and limiting:
            stats.resources[limiting] = stats.resources.get(limiting, 0) + 1
        if count_in(lpod, remaining)[0] > 0:
            leaf.leader_count = 1
            for res, q in lpod.items():
                remaining[res] = remaining.get(res, 0) - q
        leaf.pod_wl = count_in(wpod, remaining)[0]
    for i in range(len(tree.per_level) - 1, -1, -1):
        at_slice = i == slice_idx
        for d in tree.per_level[i].values():
            if not d.children:
                if at_slice:
                    d.slice_count, d.slice_wl = d.pod_count // slice_size, d.pod_wl // slice_size
                continue
            pods = slices = leaders = 0
            min_pod_loss = min_slice_loss = _BIG
            for c in d.children:
                pods += c.pod_count
                slices += c.slice_count
                if c.leader_count > 0:
                    min_pod_loss = min(min_pod_loss, c.pod_count - c.pod_wl)
                    min_slice_loss = min(min_slice_loss, c.slice_count - c.slice_wl)
                leaders = max(leaders, c.leader_count)
            d.pod_count, d.leader_count = pods, leaders
            if min_pod_loss < _BIG:
                d.pod_wl, slice_wl = pods - min_pod_loss, slices - min_slice_loss
            else:
                d.pod_wl, slice_wl = 0, 0
            if at_slice:
                d.slice_count, d.slice_wl = pods // slice_size, d.pod_wl // slice_size
            else:
                d.slice_count, d.slice_wl = slices, slice_wl


def _prioritize(
    domains: list[Domain], count: int, leaders: int, slice_size: int, slices: bool
) -> list[Domain]:
    """prioritizeLeaderDomain: a leader domain whose leader costs no more than the slack goes first."""
    if leaders == 0 or len(domains) < 2:
        return domains
    needed = count // slice_size if slices else count
    available = sum(d.slice_count if slices else d.pod_count for d in domains)
    for i, d in enumerate(domains):
        if d.leader_count < leaders:
            continue
        penalty = (d.slice_count - d.slice_wl) if slices else (d.pod_count - d.pod_wl)
        if available - penalty < needed:
            continue
        if i == 0:
            return domains
        return [d, *domains[:i], *domains[i + 1 :]]
    return domains


def _update(
    domains: list[Domain], count: int, leaders: int, slice_size: int, best_fit: bool, slices: bool
) -> list[Domain]:
    """updateCountsToMinimumGeneric with consumeWithLeadersGeneric for the leader."""
    domains = _prioritize(domains, count, leaders, slice_size, slices)
    remaining = count // slice_size if slices else count
    left = leaders
    unit = slice_size if slices else 1
    out: list[Domain] = []
    for i, d in enumerate(domains):
        if left > 0:
            with_leader = d.slice_wl if slices else d.pod_wl
            if best_fit and with_leader >= remaining and d.leader_count >= left:
                d = _best_fit(domains[i:], remaining, left, slices)
                with_leader = d.slice_wl if slices else d.pod_wl
            if with_leader >= remaining and d.leader_count >= left:
                if slices:
                    d.slice_count = remaining
                d.leader_count = left
                d.pod_count = remaining * unit
                out.append(d)
                return out
            with_leader = min(with_leader, remaining)
            d.leader_count = min(d.leader_count, left)
            if slices:
                d.slice_wl = with_leader
                d.slice_count = with_leader
            else:
                d.pod_wl = with_leader
            d.pod_count = with_leader * unit
            left -= d.leader_count
            remaining -= with_leader
            out.append(d)
            continue
        have = d.slice_count if slices else d.pod_count
        if best_fit and have >= remaining:
            d = _best_fit(domains[i:], remaining, 0, slices)
            have = d.slice_count if slices else d.pod_count
        d.leader_count = 0
        if have >= remaining:
            if slices:
                d.slice_count = remaining
            d.pod_count = remaining * unit
            out.append(d)
            return out
        if slices:
            d.pod_count = d.slice_count * slice_size
        remaining -= have
        out.append(d)
    return out


def _find_level(
    tree: FlavorTopology,
    idx: int,
    count: int,
    slice_size: int,
    required: bool,
    unconstrained: bool,
    stats: Stats,
) -> tuple[int, list[Domain], str]:
    domains = list(tree.per_level[idx].values())
    if not domains:
        return 0, [], f"no topology domains at level: {tree.levels[idx]}"
    lfc, best_fit = unconstrained, not unconstrained
    ordered = sorted(domains, key=lambda d: _key_leader(d, lfc))
    top = ordered[0]
    need = count // slice_size
    if best_fit and top.slice_wl >= need and top.leader_count >= LEADERS:
        top = _best_fit(ordered, need, LEADERS, True)
    if lfc:
        for d in ordered:
            if d.leader_count >= LEADERS and d.slice_wl >= need:
                return idx, [d], ""
        if required:
            return 0, [], tree.not_fit(ordered[-1].pod_count, need, slice_size, stats)
    if top.slice_wl < need or top.leader_count < LEADERS:
        if required:
            return 0, [], tree.not_fit(top.slice_count, need, slice_size, stats)
        if idx > 0 and not unconstrained:
            return _find_level(tree, idx - 1, count, slice_size, required, unconstrained, stats)
        out: list[Domain] = []
        remaining, left = need, LEADERS
        ordered = _prioritize(ordered, count, LEADERS, slice_size, True)
        i = 0
        while left > 0 and i < len(ordered) and ordered[i].leader_count > 0:
            d = ordered[i]
            if best_fit and d.slice_wl >= remaining:
                d = _best_fit(ordered[i:], remaining, left, True)
            out.append(d)
            left -= d.leader_count
            remaining -= d.slice_wl
            i += 1
        if left > 0:
            return 0, [], tree.not_fit(LEADERS - left, need, slice_size, stats)
        rest = sorted(ordered[i:], key=lambda d: _key_plain(d, lfc))
        for j, d in enumerate(rest):
            if remaining <= 0:
                break
            if best_fit and d.slice_count >= remaining:
                d = _best_fit(rest[j:], remaining, 0, True)
            out.append(d)
            remaining -= d.slice_count
        if remaining > 0:
            return 0, [], tree.not_fit(need - remaining, need, slice_size, stats)
        return idx, out, ""
    return idx, [top], ""


def find_group(
    tree: FlavorTopology,
    workers: TASPodSetRequest,
    leader: TASPodSetRequest,
    usage: Mapping[LeafKey, Mapping[str, int]],
    assumed: Mapping[LeafKey, Mapping[str, int]],
    simulate_empty: bool,
) -> tuple[tuple[TopologyAssignment, TopologyAssignment] | None, str]:
    """findTopologyAssignment with a leader: (workers' assignment, leader's assignment), or why not."""
    tr = workers.request
    slice_size = tr.slice_size if tr.slice_level and tr.slice_size else 1
    if tr.slice_level and not tr.slice_size:
        return None, "slice topology requested, but slice size not provided"
    required = tr.required is not None
    unconstrained = (
        tr.unconstrained or workers.implied or (bool(tr.slice_level) and not tr.required and not tr.preferred)
    )
    key = tree._level_key(workers)
    if key is None:
        return None, "topology level not specified"
    if key not in tree.levels:
        return None, f"no requested topology level: {key}"
    slice_key = tr.slice_level or tree.levels[-1]
    if slice_key not in tree.levels:
        return None, f"no requested topology level for slices: {slice_key}"
    req_idx, slice_idx = tree.levels.index(key), tree.levels.index(slice_key)
    if req_idx > slice_idx:
        return None, f"podset slice topology {slice_key} is above the podset topology {key}"
    stats = Stats()
    _fill(tree, workers, leader, usage, assumed, simulate_empty, slice_size, slice_idx, stats)
    fit_idx, fit, reason = _find_level(
        tree, req_idx, workers.count, slice_size, required, unconstrained, stats
    )
    if reason:
        return None, reason
    best_fit = not unconstrained
    fit = _update(fit, workers.count, LEADERS, slice_size, best_fit, True)
    cur, last = fit_idx, len(tree.levels) - 1
    while cur < min(last, slice_idx):
        lower = sorted((c for d in fit for c in d.children), key=lambda d: _key_plain(d, unconstrained))
        fit = _update(lower, workers.count, LEADERS, slice_size, best_fit, True)
        cur += 1
    while cur < last:
        nxt: list[Domain] = []
        for d in fit:
            kids = sorted(d.children, key=lambda c: _key_plain(c, unconstrained))
            nxt += _update(kids, d.pod_count, d.leader_count, 1, best_fit, False)
        fit = nxt
        cur += 1
    leader_domains = [d for d in fit if d.leader_count > 0]
    start = len(tree.levels) - 1 if tree.hostname_lowest else 0
    from gpuplane.kueue.tas.model import DomainCount

    def build(pairs: list[tuple[Domain, int]]) -> TopologyAssignment:
        kept = sorted(((d, n) for d, n in pairs if n > 0), key=lambda p: p[0].values)
        return TopologyAssignment(
            tree.levels[start:], tuple(DomainCount(d.values[start:], n) for d, n in kept)
        )

    workers_ta = build([(d, d.pod_count) for d in fit])
    leader_ta = build([(d, d.leader_count) for d in leader_domains])
    return (workers_ta, leader_ta), ""
