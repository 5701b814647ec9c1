"""Kueue's TAS placement for one flavor: domains per level, pods per domain, BestFit / LeastFreeCapacity.

Modelled on kubernetes-sigs/kueue v0.19.2 `pkg/cache/scheduler/tas_flavor_snapshot.go`
(`findTopologyAssignment`, `fillInCounts`, `findLevelWithFitDomains`,
`updateCountsToMinimumGeneric`, `sortedDomains`, `findBestFitDomainBy`, `buildAssignment`,
`notFitMessage`) and `scheduling_simulator_default.go` (`FindFeasibleNodes`: taints, then node
selector, then required node affinity). The Topology's nodes are those the flavor's node labels
select that carry every level label and are Ready and schedulable (`tas_nodes_cache.go find`).

Phase 1 counts how many pods (and slices) fit in every leaf: the leaf's allocatable minus
non-TAS pods minus admitted TAS workloads (unless simulating an empty cluster) minus what this
workload already took, with one `pods` per pod; parents add up their children. Phase 2a picks
the level and the domains: a required level that no domain holds fails with Kueue's message; a
preferred level climbs towards the root, and at the top the pods are spread greedily; an
unconstrained pod set is placed at the lowest level (LeastFreeCapacity, TASProfileMixed, beta and
on since v0.15). Phase 2b walks down level by level, keeping the fewest domains (BestFit: the
smallest domain that still holds what is left). Kueue's defaults of v0.19.2 apply:
TASBalancedPlacement (alpha) and TASRespectNodeAffinityPreferred (alpha) are off. Pod-set groups
(a leader with its workers) are `leader.py`. Not modelled: multi-layer slice constraints, node
replacement (hot swap).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gpuplane.kueue.objects import ResourceFlavor, SelectorRequirement, Taint, Toleration
from gpuplane.kueue.tas.live_counts import LeafCounts
from gpuplane.kueue.tas.model import DomainCount, TASNode, TASPodSetRequest, Topology, TopologyAssignment
from gpuplane.vocab import HOSTNAME_LABEL as _HOST

POD = 1000  # one `pods` unit in milli-units
_BIG = 1 << 31

LeafKey = tuple[str, ...]
"""("h", hostname) for hostname-level topologies, ("d", *values) otherwise: where TAS usage lives."""


class Domain:
    """One topology domain with the per-run counts of `fillInCounts`."""

    __slots__ = (
        "children",
        "free",
        "key",
        "leader_count",
        "level",
        "node",
        "parent",
        "pod_count",
        "pod_wl",
        "slice_count",
        "slice_wl",
        "values",
    )

    def __init__(self, values: tuple[str, ...], level: int, parent: Domain | None) -> None:
        self.values = values
        self.level = level
        self.parent = parent
        self.children: list[Domain] = []
        self.free: dict[str, int] = {}
        self.node: TASNode | None = None
        self.key: LeafKey = ()
        self.pod_count = 0
        self.slice_count = 0
        # With a leader pod set (a pod-set group): leaders this domain can host (0/1 per leaf) and
        # the workers that fit beside one leader (podCountWithLeader, sliceCountWithLeader).
        self.leader_count = 0
        self.pod_wl = 0
        self.slice_wl = 0


def taint_text(t: Taint) -> str:
    """core/v1 Taint.ToString: key=value:effect (key:effect without a value)."""
    return f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"


def leaf_key_of(levels: tuple[str, ...], values: tuple[str, ...], hostname_lowest: bool) -> LeafKey:
    """The usage key of an assignment domain (hostname levels name the node only)."""
    if hostname_lowest or (len(levels) == 1 and levels[0] == _HOST):
        return ("h", values[-1])
    return ("d", *values)


def count_in(per_pod: Mapping[str, int], remaining: Mapping[str, int]) -> tuple[int, str]:
    """CountInWithLimitingResource: how many pods fit, and the resource that limits (ties by name)."""
    best: int | None = None
    limiting = ""
    for res in sorted(per_pod):
        req = per_pod[res]
        n = _BIG if req == 0 else max(0, remaining.get(res, 0) // req)
        if best is None or n < best:
            best, limiting = n, res
    return (best or 0), limiting


@dataclass
class Stats:
    """tasExclusionStats: nodes looked at and why some were left out."""

    total: int = 0
    node_selector: int = 0
    affinity: int = 0
    taints: dict[str, int] = field(default_factory=dict)
    resources: dict[str, int] = field(default_factory=dict)

    def add(self, other: Stats) -> None:
        """Add another run's exclusions (tasExclusionStats.add)."""
        self.total += other.total
        self.node_selector += other.node_selector
        self.affinity += other.affinity
        for k, v in other.taints.items():
            self.taints[k] = self.taints.get(k, 0) + v
        for k, v in other.resources.items():
            self.resources[k] = self.resources.get(k, 0) + v

    def text(self) -> str:
        """Why nodes were excluded, as Kueue words it (node selector, affinity, taints, resources)."""
        reasons = []
        if self.node_selector:
            reasons.append(f"nodeSelector: {self.node_selector}")
        if self.affinity:
            reasons.append(f"affinity: {self.affinity}")
        reasons += [f'taint "{k}": {v}' for k, v in sorted(self.taints.items())]
        reasons += [f'resource "{k}": {v}' for k, v in sorted(self.resources.items())]
        if not reasons:
            return ""
        return f". Total nodes: {self.total}; excluded: {', '.join(sorted(reasons))}"


def node_matches_flavor(node: TASNode, flavor: ResourceFlavor, topology: Topology) -> bool:
    """NodeMatchesFlavor plus the Ready/schedulable filter of the nodes cache."""
    if not node.ready or node.unschedulable:
        return False
    labels = node.labels
    if any(labels.get(k) != v for k, v in flavor.node_labels.items()):
        return False
    return all(level in labels for level in topology.levels)


def _lfc_key(d: Domain) -> tuple[int, int, tuple[str, ...]]:
    return (d.slice_count, d.pod_count, d.values)


def _bf_key(d: Domain) -> tuple[int, int, tuple[str, ...]]:
    return (-d.slice_count, d.pod_count, d.values)


def _fit_key(d: Domain) -> tuple[int, int, tuple[str, ...]]:
    """findBestFitDomainBy over the BestFit order: the smallest count that fits, the first of ties."""
    return (d.slice_count, d.pod_count, d.values)


class FlavorTopology:
    """The domain tree of one TAS flavor (TASFlavorSnapshot), built from its nodes."""

    def __init__(
        self,
        flavor: ResourceFlavor,
        topology: Topology,
        nodes: list[TASNode],
        non_tas: Mapping[str, Mapping[str, int]],
    ) -> None:
        self.flavor = flavor
        self.topology = topology
        self.levels = topology.levels
        self.hostname_lowest = topology.lowest_is_hostname
        n = len(self.levels)
        self.per_level: list[dict[tuple[str, ...], Domain]] = [{} for _ in range(n)]
        self.leaves: list[Domain] = []
        self.node_names: list[str] = []
        for node in sorted(nodes, key=lambda x: x.name):
            if not node_matches_flavor(node, flavor, topology):
                continue
            self.node_names.append(node.name)
            values = tuple(node.labels[level] for level in self.levels)
            parent: Domain | None = None
            for i in range(n):
                key = values[: i + 1]
                dom = self.per_level[i].get(key)
                if dom is None:
                    dom = Domain(key, i, parent)
                    self.per_level[i][key] = dom
                    if parent is not None:
                        parent.children.append(dom)
                parent = dom
            assert parent is not None
            leaf = parent
            if not leaf.key:
                leaf.key = leaf_key_of(self.levels, values, self.hostname_lowest)
                self.leaves.append(leaf)
            if self.hostname_lowest:
                leaf.node = node
            used = non_tas.get(node.name, {})
            for res, q in node.allocatable.items():
                leaf.free[res] = leaf.free.get(res, 0) + q - used.get(res, 0)
        self.roots = list(self.per_level[0].values()) if n else []
        self.domains = [d for level in self.per_level for d in level.values()]
        self._feasible_memo: dict[object, tuple[list[Domain], Stats]] = {}
        self._count_memo: dict[object, dict[LeafKey, tuple[int, int, str]]] = {}
        self._by_key = {leaf.key: leaf for leaf in self.leaves}
        self._live: dict[object, LeafCounts] = {}

    # ------------------------------------------------------------------ helpers
    def has_level(self, req: TASPodSetRequest) -> bool:
        """Whether the topology has the levels the request names (required or preferred, and its slice
        level)."""
        key = self._level_key(req)
        slice_key = req.request.slice_level or (self.levels[-1] if self.levels else "")
        return key is not None and key in self.levels and slice_key in self.levels

    def _level_key(self, req: TASPodSetRequest) -> str | None:
        tr = req.request
        if tr.required:
            return tr.required
        if tr.preferred:
            return tr.preferred
        if tr.slice_level:
            return self.levels[0]
        if tr.unconstrained or req.implied:
            return self.levels[-1]
        return None

    def _feasible(self, req: TASPodSetRequest, key: object) -> tuple[list[Domain], Stats]:
        """The leaves a pod of `req` may use and the exclusions, memoised per pod shape `key` (the
        nodes are fixed; Kueue's TASCacheNodeMatchResults keeps the same per workload)."""
        hit = self._feasible_memo.get(key)
        if hit is None:
            stats = Stats()
            if self.hostname_lowest:
                leaves = [leaf for leaf in self.leaves if self._unit_fits(leaf, req, stats)]
            else:
                stats.total += len(self.leaves)
                leaves = list(self.leaves)
            hit = (leaves, stats)
            self._feasible_memo[key] = hit
        return hit

    def _unit_fits(self, leaf: Domain, req: TASPodSetRequest, stats: Stats) -> bool:
        node = leaf.node
        stats.total += 1
        if node is None:
            return True
        tolerations: tuple[Toleration, ...] = (*req.tolerations, *self.flavor.tolerations)
        for taint in node.taints:
            if taint.effect not in ("NoSchedule", "NoExecute"):
                continue
            if not any(t.tolerates(taint) for t in tolerations):
                text = taint_text(taint)
                stats.taints[text] = stats.taints.get(text, 0) + 1
                return False
        if any(node.labels.get(k) != v for k, v in req.node_selector.items()):
            stats.node_selector += 1
            return False
        if req.affinity_terms is not None:
            terms: tuple[tuple[SelectorRequirement, ...], ...] = req.affinity_terms
            if not any(all(r.matches(node.labels) for r in term) for term in terms):
                stats.affinity += 1
                return False
        return True

    # ------------------------------------------------------------------ phase 1
    def _fill(
        self,
        req: TASPodSetRequest,
        per_pod: dict[str, int],
        usage: Mapping[LeafKey, Mapping[str, int]],
        assumed: Mapping[LeafKey, Mapping[str, int]],
        simulate_empty: bool,
        slice_size: int,
        slice_idx: int,
        stats: Stats,
        versions: Mapping[LeafKey, int] | None = None,
    ) -> None:
        for d in self.domains:
            d.pod_count = d.slice_count = 0
        shape = (tuple(sorted(req.node_selector.items())), req.tolerations, req.affinity_terms)
        leaves, excluded = self._feasible(req, shape)
        stats.add(excluded)
        items = tuple(sorted(per_pod.items()))
        # Counts of leaves whose usage did not change since the last run of this pod shape are kept
        # (`versions`: TASState's change count per leaf; only for the live usage, no assumed usage).
        memo = self._count_memo.setdefault((shape, items), {}) if versions is not None else None
        resources = stats.resources
        for leaf in leaves:
            key = leaf.key
            extra = assumed.get(key) if assumed else None
            if memo is not None and extra is None:
                ver = versions.get(key, 0) if versions else 0
                hit = memo.get(key)
                if hit is not None and hit[0] == ver:
                    leaf.pod_count = hit[1]
                    if hit[2]:
                        resources[hit[2]] = resources.get(hit[2], 0) + 1
                    continue
            used = None if simulate_empty else usage.get(key)
            free = leaf.free
            best = -1
            limiting = ""
            for res, q in items:  # CountInWithLimitingResource, ties to the first name
                if q == 0:
                    n = _BIG
                else:
                    have = free.get(res, 0)
                    if used:
                        have -= used.get(res, 0)
                    if extra:
                        have -= extra.get(res, 0)
                    n = have // q if have > 0 else 0
                if best < 0 or n < best:
                    best, limiting = n, res
            count = best if best > 0 else 0
            leaf.pod_count = count
            excluded_by = limiting if count == 0 else ""
            if excluded_by:
                resources[excluded_by] = resources.get(excluded_by, 0) + 1
            if memo is not None and extra is None:
                memo[key] = (versions.get(key, 0) if versions else 0, count, excluded_by)
        # Parents add up their children, bottom-up (fillInCountsHelper); slices counted at their level.
        for i in range(len(self.per_level) - 1, -1, -1):
            at_slice = i == slice_idx
            for d in self.per_level[i].values():
                if d.children:
                    pods = slices = 0
                    for c in d.children:
                        pods += c.pod_count
                        slices += c.slice_count
                    d.pod_count = pods
                    d.slice_count = pods // slice_size if at_slice else slices
                elif at_slice:
                    d.slice_count = d.pod_count // slice_size

    # ------------------------------------------------------------------ ordering
    @staticmethod
    def _sorted(domains: list[Domain], lfc: bool) -> list[Domain]:
        """sortedDomains: BestFit by slices descending, LeastFreeCapacity ascending; then pods, values."""
        return sorted(domains, key=_lfc_key if lfc else _bf_key)

    @staticmethod
    def _best_fit(domains: list[Domain], needed: int, slices: bool) -> Domain:
        best, best_count = domains[0], _BIG
        found = False
        for d in domains:
            c = d.slice_count if slices else d.pod_count
            if needed <= c < best_count:
                best, best_count, found = d, c, True
        return best if found else domains[0]

    def _update_counts(
        self, domains: list[Domain], count: int, slice_size: int, best_fit: bool, slices: bool
    ) -> list[Domain]:
        remaining = count // slice_size if slices else count
        out: list[Domain] = []
        for i, d in enumerate(domains):
            have = d.slice_count if slices else d.pod_count
            if best_fit and have >= remaining:
                d = self._best_fit(domains[i:], remaining, slices)
                have = d.slice_count if slices else d.pod_count
            if have >= remaining:
                if slices:
                    d.pod_count, d.slice_count = remaining * slice_size, remaining
                else:
                    d.pod_count = remaining
                out.append(d)
                return out
            if slices:
                d.pod_count = d.slice_count * slice_size
            remaining -= have
            out.append(d)
        return out

    # ------------------------------------------------------------------ phase 2
    def not_fit(self, fit: int, total: int, slice_size: int, stats: Stats) -> str:
        """Kueue's message for a pod set that does not fit the topology."""
        unit = "pod" if slice_size == 1 else "slice"
        name = self.topology.name
        if fit == 0:
            head = f'topology "{name}" doesn\'t allow to fit any of {total} {unit}(s)'
        else:
            head = f'topology "{name}" allows to fit only {fit} out of {total} {unit}(s)'
        return head + stats.text()

    def _find_level(
        self, idx: int, count: int, slice_size: int, required: bool, unconstrained: bool, stats: Stats
    ) -> tuple[int, list[Domain], str]:
        domains = list(self.per_level[idx].values())
        if not domains:
            return 0, [], f"no topology domains at level: {self.levels[idx]}"
        lfc = unconstrained
        best_fit = not lfc
        need = count // slice_size
        # The first domain of the sorted order (and BestFit's pick) without sorting: min() over keys.
        if lfc:
            fitting = [d for d in domains if d.slice_count >= need]
            if fitting:
                return idx, [min(fitting, key=_lfc_key)], ""
            if required:
                return 0, [], self.not_fit(max(domains, key=_lfc_key).pod_count, need, slice_size, stats)
            top = min(domains, key=_lfc_key)
        else:
            top = min(domains, key=_bf_key)
            if top.slice_count >= need:
                top = min((d for d in domains if d.slice_count >= need), key=_fit_key)
        if top.slice_count < need:
            if required:
                return 0, [], self.not_fit(top.slice_count, need, slice_size, stats)
            if idx > 0 and not unconstrained:
                return self._find_level(idx - 1, count, slice_size, required, unconstrained, stats)
            out: list[Domain] = []
            remaining = need
            ordered = self._sorted(domains, lfc)
            for i, d in enumerate(ordered):
                if remaining <= 0:
                    break
                if best_fit and d.slice_count >= remaining:
                    d = self._best_fit(ordered[i:], remaining, True)
                out.append(d)
                remaining -= d.slice_count
            if remaining > 0:
                return 0, [], self.not_fit(need - remaining, need, slice_size, stats)
            return idx, out, ""
        return idx, [top], ""

    def find(
        self,
        req: TASPodSetRequest,
        usage: Mapping[LeafKey, Mapping[str, int]],
        assumed: Mapping[LeafKey, Mapping[str, int]],
        simulate_empty: bool,
        versions: Mapping[LeafKey, int] | None = None,
        changes: Sequence[LeafKey] | None = None,
    ) -> tuple[TopologyAssignment | None, str]:
        """findTopologyAssignment for one pod set (no leader): the assignment, or why not.

        `versions` and `changes` (TASState's) are given when `usage` is the live usage: counts of
        unchanged leaves are kept, and an unconstrained pod set is placed incrementally
        (`live_counts`)."""
        tr = req.request
        slice_size = 1
        if tr.slice_level:
            if not tr.slice_size or tr.slice_size <= 0:
                return None, "slice topology requested, but slice size not provided"
            slice_size = tr.slice_size
        required = tr.required is not None
        unconstrained = (
            tr.unconstrained or req.implied or (bool(tr.slice_level) and not tr.required and not tr.preferred)
        )
        key = self._level_key(req)
        if key is None:
            return None, "topology level not specified"
        if key not in self.levels:
            return None, f"no requested topology level: {key}"
        req_idx = self.levels.index(key)
        slice_key = tr.slice_level or self.levels[-1]
        if slice_key not in self.levels:
            return None, f"no requested topology level for slices: {slice_key}"
        slice_idx = self.levels.index(slice_key)
        if req_idx > slice_idx:
            return None, f"podset slice topology {slice_key} is above the podset topology {key}"
        per_pod = dict(req.per_pod)
        per_pod["pods"] = per_pod.get("pods", 0) + POD
        live = versions if not simulate_empty else None
        if (
            changes is not None
            and live is not None
            and not assumed
            and unconstrained
            and not tr.required
            and not tr.preferred
            and not tr.slice_level
        ):
            got = self._find_lowest(req, per_pod, usage, changes)
            if got is not None:
                return got, ""
        stats = Stats()
        self._fill(req, per_pod, usage, assumed, simulate_empty, slice_size, slice_idx, stats, live)
        fit_idx, fit, reason = self._find_level(
            req_idx, req.count, slice_size, required, unconstrained, stats
        )
        if reason:
            return None, reason
        best_fit = not unconstrained
        fit = self._update_counts(fit, req.count, slice_size, best_fit, True)
        cur = fit_idx
        last = len(self.levels) - 1
        while cur < min(last, slice_idx):
            lower = self._sorted([c for d in fit for c in d.children], unconstrained)
            fit = self._update_counts(lower, req.count, slice_size, best_fit, True)
            cur += 1
        while cur < last:
            nxt: list[Domain] = []
            for d in fit:
                nxt += self._update_counts(
                    self._sorted(d.children, unconstrained), d.pod_count, 1, best_fit, False
                )
            fit = nxt
            cur += 1
        return self._build(fit), ""

    def _find_lowest(
        self,
        req: TASPodSetRequest,
        per_pod: dict[str, int],
        usage: Mapping[LeafKey, Mapping[str, int]],
        changes: Sequence[LeafKey],
    ) -> TopologyAssignment | None:
        """The lowest-level LeastFreeCapacity placement from counts kept across calls, or None when
        the leaves cannot hold the pods (`live_counts`)."""
        shape = (tuple(sorted(req.node_selector.items())), req.tolerations, req.affinity_terms)
        items = tuple(sorted(per_pod.items()))
        counts = self._live.get((shape, items))
        if counts is None:
            counts = LeafCounts(self._feasible(req, shape)[0], items, usage, changes)
            self._live[(shape, items)] = counts
        else:
            counts.sync(usage, changes)
        picked = counts.pick(req.count)
        if picked is None:
            return None
        start = len(self.levels) - 1 if self.hostname_lowest else 0
        picked.sort(key=lambda p: p[0].values)
        return TopologyAssignment(
            self.levels[start:], tuple(DomainCount(d.values[start:], n) for d, n in picked)
        )

    def _build(self, domains: list[Domain]) -> TopologyAssignment:
        start = len(self.levels) - 1 if self.hostname_lowest else 0
        kept = sorted((d for d in domains if d.pod_count > 0), key=lambda d: d.values)
        return TopologyAssignment(
            self.levels[start:], tuple(DomainCount(d.values[start:], d.pod_count) for d in kept)
        )

    def fits(
        self,
        assignment: TopologyAssignment,
        per_pod: Mapping[str, int],
        usage: Mapping[LeafKey, Mapping[str, int]],
    ) -> bool:
        """TASFlavorSnapshot.Fits: every domain of an assignment still holds its pods."""
        pod = dict(per_pod)
        pod["pods"] = pod.get("pods", 0) + POD
        for d in assignment.domains:
            key = leaf_key_of(assignment.levels, d.values, self.hostname_lowest)
            leaf = self._by_key.get(key)
            if leaf is None:
                return False
            remaining = dict(leaf.free)
            for res, q in usage.get(key, {}).items():
                remaining[res] = remaining.get(res, 0) - q
            if count_in(pod, remaining)[0] < d.count:
                return False
        return True
