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
    """An entry with its (borrowing, share) per ancestor, valid for the path versions `vers`."""

    __slots__ = ("entry", "path", "usage", "values", "vers")

    def __init__(self, entry: object, node: rn.Node, usage: dict[FR, int]) -> None:
        self.entry = entry
        self.usage = usage
        self.path = [node, *node.path_to_root()]
        self.vers: tuple[int, ...] = ()
        self.values: dict[str, tuple[int, Share]] = {}

    def refresh(self) -> None:
        """Recompute the values if some node below the root on the path changed since last time."""
        vers = tuple(n.ver for n in self.path[:-1])
        if vers == self.vers:
            return
        self.vers = vers
        deltas = dict(rn.usage_deltas(self.path[0], self.usage, 1))
        values: dict[str, tuple[int, Share]] = {}
        for child, ancestor in zip(self.path, self.path[1:], strict=False):
            delta = deltas.get(child, {})
            borrowing = (
                1
                if any(
                    child.usage.get(fr, 0) + delta.get(fr, 0) > child.subtree.get(fr, 0) for fr in self.usage
                )
                else 0
            )
            values[ancestor.name] = (borrowing, dominant_share(child, delta))
        self.values = values


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
        ranked = {state_of(e).name: _Ranked(e, state_of(e).node, usage_of(e)) for e in trees[root_name]}
        root = snap.cohorts[root_name]
        while ranked:
            for r in ranked.values():
                r.refresh()
            best = _run(root, ranked, wl_of)
            assert best is not None
            del ranked[state_of(best.entry).name]
            yield best.entry


def _run(cohort: rn.Node, ranked: dict[str, _Ranked], wl_of: Callable[[object], Workload]) -> _Ranked | None:
    cands: list[_Ranked] = []
    for child in cohort.child_cohorts:
        winner = _run(child, ranked, wl_of)
        if winner is not None:
            cands.append(winner)
    for cq in cohort.child_cqs:
        if cq.name in ranked:
            cands.append(ranked[cq.name])
    if not cands:
        return None

    def key(r: _Ranked) -> tuple[int, Share, int, float]:
        borrowing, share = r.values[cohort.name]
        wl = wl_of(r.entry)
        return (borrowing, share, -wl.priority, wl.order_time)

    best = cands[0]
    for cur in cands[1:]:
        if key(cur) < key(best):
            best = cur
    return best
