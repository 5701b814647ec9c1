"""Fair sharing: dominant resource share and the admission tournament (kueue.md §8).

Mirrors `pkg/cache/scheduler/fair_sharing.go` and `pkg/scheduler/fair_sharing_iterator.go`
(fair preemption is in `fair_preemption.py`). A share is a tuple (weighted, tiebreak) so that two
infinite shares (weight 0 while borrowing) compare by their unweighted ratio.

The tournament re-ranks the remaining entries before each pick, as Kueue does. An entry's
ranking values depend only on its own usage and on the usage of the nodes on its path, so
they are computed without writing to the tree and reused while those nodes are unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping

from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.objects import FR, Workload
from gpuplane.kueue.snapshot import CQState, Snapshot

Share = tuple[float, int]
ZERO: Share = (0.0, 0)


def lendable(node: rn.Node) -> dict[str, int]:
    """Per resource: Σ potentialAvailable over the node's (flavor, resource) pairs.

    Quotas are fixed once the tree is built, so it is memoised on the node itself (it lives and
    dies with its snapshot; `compute_quotas` clears it).
    """
    hit = node.lendable
    if hit is not None:
        return hit
    out: dict[str, int] = {}
    for fr in node.subtree:
        out[fr[1]] = out.get(fr[1], 0) + rn.potential_available(node, fr)
    node.lendable = out
    return out


def dominant_share(node: rn.Node, extra: Mapping[FR, int] | None = None) -> Share:
    """DominantResourceShare of a node with a parent (0 for roots), optionally with extra usage."""
    parent = node.parent
    if parent is None:
        return ZERO
    if not extra:
        cached = node.drs
        if cached is not None and cached[0] == node.ver:
            return cached[1]
        share = _share(node, parent, None)
        node.drs = (node.ver, share)
        return share
    return _share(node, parent, extra)


def share_without(node: rn.Node, usage: Mapping[FR, int]) -> Share:
    """`dominant_share(node, {fr: -v for fr, v in usage.items()})` without building the map."""
    parent = node.parent
    if parent is None:
        return ZERO
    if not usage:
        return dominant_share(node)
    current = node.usage
    borrowed: dict[str, int] = {}
    for fr, quota in node.subtree.items():
        b = current.get(fr, 0) - quota - usage.get(fr, 0)
        if b > 0:
            res = fr[1]
            borrowed[res] = borrowed.get(res, 0) + b
    return _ratio(node, parent, borrowed)


def remember_share(node: rn.Node, share: Share) -> None:
    """Record `share` as the node's current dominant share (it was computed for this exact usage)."""
    node.drs = (node.ver, share)


def _share(node: rn.Node, parent: rn.Node, extra: Mapping[FR, int] | None) -> Share:
    usage = node.usage
    borrowed: dict[str, int] = {}
    for fr, quota in node.subtree.items():
        b = usage.get(fr, 0) - quota
        if extra:
            b += extra.get(fr, 0)
        if b > 0:
            res = fr[1]
            borrowed[res] = borrowed.get(res, 0) + b
    return _ratio(node, parent, borrowed)


def _ratio(node: rn.Node, parent: rn.Node, borrowed: dict[str, int]) -> Share:
    if not borrowed:
        return ZERO
    lend = lendable(parent)
    ratio = 0
    for res, b in borrowed.items():
        total = lend.get(res, 0)
        if total > 0:
            ratio = max(ratio, b * 1000 // total)
    if node.weight == 0:
        return (math.inf, ratio)
    return (ratio / node.weight, 0)


def is_zero(share: Share) -> bool:
    """A share of zero: the node is not borrowing (in a measurable way)."""
    return share[0] == 0


# ------------------------------------------------------------------ admission tournament
class _Ranked:
    """An entry with its (borrowing, share) per ancestor and its tournament key there, valid for the
    versions `vers` of the nodes on its path below the root.

    A node's values depend only on the usage of the path up to it, so after a change only the
    levels from the lowest changed node up are computed again (`refresh`); the key (values, then
    the workload's priority and order time) is kept per ancestor for `_run`.
    """

    __slots__ = ("deltas", "entry", "keys", "order", "path", "usage", "values", "vers")

    def __init__(self, entry: object, node: rn.Node, usage: dict[FR, int], wl: Workload) -> None:
        self.entry = entry
        self.usage = usage
        self.path = [node, *node.path_to_root()]
        self.vers: list[int] = [-1] * (len(self.path) - 1)
        self.values: dict[str, tuple[int, Share]] = {}
        self.keys: dict[str, tuple[int, Share, int, float]] = {}
        self.order = (-wl.priority, wl.order_time)
        # The usage change the entry would make at each node of the path (as `rn.usage_deltas`).
        self.deltas: list[dict[FR, int]] = [{fr: v for fr, v in usage.items() if v}]

    def refresh(self) -> None:
        """Recompute the values from the lowest node below the root on the path that changed."""
        path, vers = self.path, self.vers
        first = 0
        n = len(vers)
        while first < n and path[first].ver == vers[first]:
            first += 1
        if first == n:
            return
        deltas = self.deltas
        del deltas[first + 1 :]
        prio, t = self.order
        for i in range(first, n):
            child, ancestor = path[i], path[i + 1]
            vers[i] = child.ver
            delta = deltas[i]
            usage, subtree = child.usage, child.subtree
            borrowing = (
                1 if any(usage.get(fr, 0) + delta.get(fr, 0) > subtree.get(fr, 0) for fr in self.usage) else 0
            )
            share = dominant_share(child, delta)
            self.values[ancestor.name] = (borrowing, share)
            self.keys[ancestor.name] = (borrowing, share, prio, t)
            up: dict[FR, int] = {}
            if delta:
                local = child.local
                for fr, d in delta.items():
                    loc = local.get(fr, 0)
                    old = usage.get(fr, 0)
                    moved = max(0, old + d - loc) - max(0, old - loc)
                    if moved:
                        up[fr] = moved
            deltas.append(up)


def tournament_order(
    snap: Snapshot,
    entries: list[object],
    state_of: Callable[[object], CQState],
    usage_of: Callable[[object], dict[FR, int]],
    wl_of: Callable[[object], Workload],
) -> Iterator[object]:
    """Yield entries in fair-sharing order; shares are brought up to date before each pick."""
    standalone = [e for e in entries if state_of(e).node.parent is None]
    trees: dict[str, list[object]] = {}
    for e in entries:
        node = state_of(e).node
        if node.parent is not None:
            trees.setdefault(node.root().name, []).append(e)
    yield from sorted(standalone, key=lambda e: state_of(e).name)
    for root_name in sorted(trees):
        ranked = {
            state_of(e).name: _Ranked(e, state_of(e).node, usage_of(e), wl_of(e)) for e in trees[root_name]
        }
        root = snap.cohorts[root_name]
        while ranked:
            for r in ranked.values():
                r.refresh()
            best = _run(root, ranked)
            assert best is not None
            del ranked[state_of(best.entry).name]
            yield best.entry


def _run(cohort: rn.Node, ranked: dict[str, _Ranked]) -> _Ranked | None:
    """The winner at `cohort`: the lowest (borrowing, share, -priority, order time) there, the
    first one on ties (winners of child cohorts, then the child ClusterQueues in order)."""
    cands: list[_Ranked] = []
    for child in cohort.child_cohorts:
        winner = _run(child, ranked)
        if winner is not None:
            cands.append(winner)
    for cq in cohort.child_cqs:
        r = ranked.get(cq.name)
        if r is not None:
            cands.append(r)
    if not cands:
        return None
    name = cohort.name
    best = cands[0]
    best_key = best.keys[name]
    for cur in cands[1:]:
        key = cur.keys[name]
        if key < best_key:
            best, best_key = cur, key
    return best
