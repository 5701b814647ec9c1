"""The quota tree: ClusterQueues and Cohorts as nodes with subtree quota and usage (kueue.md §2).

Mirrors `pkg/cache/scheduler/resource_node.go`. Usage is maintained incrementally: adding or
removing a workload walks from its ClusterQueue to the root, passing up only the part that
exceeds each node's guaranteed (never lent) quota. Nothing is ever recomputed from all workloads.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from gpuplane.kueue.objects import FR, ResourceGroup


class Node:
    """A ClusterQueue or Cohort in the quota tree."""

    __slots__ = (
        "assign_plan",
        "borrowing_limit",
        "child_cohorts",
        "child_cqs",
        "drs",
        "h",
        "is_cq",
        "lendable",
        "lending_limit",
        "local",
        "lsh_fr",
        "lsh_height",
        "lsh_reclaim",
        "lsh_stamp",
        "lsh_val",
        "name",
        "nominal",
        "parent",
        "potential",
        "subtree",
        "usage",
        "ver",
        "weight",
    )

    def __init__(self, name: str, is_cq: bool, weight: float = 1.0) -> None:
        self.name = name
        self.is_cq = is_cq
        self.parent: Node | None = None
        self.child_cqs: list[Node] = []
        self.child_cohorts: list[Node] = []
        self.nominal: dict[FR, int] = {}
        self.borrowing_limit: dict[FR, int | None] = {}
        self.lending_limit: dict[FR, int | None] = {}
        self.subtree: dict[FR, int] = {}
        self.local: dict[FR, int] = {}
        self.usage: dict[FR, int] = {}
        self.weight = weight
        self.h = 0
        self.ver = 0  # bumped by every usage change at this node; never decreases
        # The last `lowest_subtree_height` answer of this ClusterQueue: (fr, val) asked, the sum
        # of `ver` over the node and its ancestors when computed, and the answer (`_lsh_memo`).
        self.lsh_fr: FR | None = None
        self.lsh_val = 0
        self.lsh_stamp = 0
        self.lsh_height = 0
        self.lsh_reclaim = False
        self.drs: tuple[int, tuple[float, int]] | None = None
        self.potential: dict[FR, int] = {}  # memo of potential_available (quotas are fixed)
        self.lendable: dict[str, int] | None = None  # memo of fair_sharing.lendable
        #: A ClusterQueue's fixed flavor-assignment inputs (`flavor_assigner.CQPlan`), built there.
        self.assign_plan: object | None = None

    def __repr__(self) -> str:
        kind = "CQ" if self.is_cq else "Cohort"
        return f"<{kind} {self.name}>"

    def set_quotas(self, groups: tuple[ResourceGroup, ...]) -> None:
        """Record nominal quota and limits per (flavor, resource) from resource groups."""
        for group in groups:
            for fq in group.flavors:
                for rq in fq.resources:
                    fr = (fq.name, rq.name)
                    self.nominal[fr] = rq.nominal
                    self.borrowing_limit[fr] = rq.borrowing_limit
                    self.lending_limit[fr] = rq.lending_limit

    def path_to_root(self) -> Iterator[Node]:
        """Ancestors from the parent up to the root."""
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def root(self) -> Node:
        """The root of this node's tree (itself when it has no parent)."""
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    def subtree_cqs(self) -> Iterator[Node]:
        """All ClusterQueues below (or equal to) this node, in tree order."""
        if self.is_cq:
            yield self
            return
        for cohort in self.child_cohorts:
            yield from cohort.subtree_cqs()
        yield from self.child_cqs

    def height(self) -> int:
        """Distance to the deepest leaf; a cohort with only CQ children has height 1."""
        return self.h


def compute_quotas(root: Node) -> None:
    """Fill `subtree` and `local` (guaranteed) quota bottom-up for a tree (no usage)."""
    root.potential, root.lendable, root.lsh_fr = {}, None, None
    for cq in root.child_cqs:
        cq.potential, cq.lendable, cq.lsh_fr = {}, None, None
    for child in root.child_cohorts:
        compute_quotas(child)
    subtree = dict(root.nominal)
    for child in (*root.child_cohorts, *root.child_cqs):
        if child.is_cq:
            child.subtree = dict(child.nominal)
            child.local = _guaranteed(child)
        for fr, q in child.subtree.items():
            subtree[fr] = subtree.get(fr, 0) + q - child.local.get(fr, 0)
    root.subtree = subtree
    root.local = _guaranteed(root)
    h = min(len(root.child_cqs) + len(root.child_cohorts), 1)
    for child in root.child_cohorts:
        h = max(h, child.h + 1)
    root.h = h


def _guaranteed(node: Node) -> dict[FR, int]:
    """Quota a node never lends: subtree minus lendingLimit (only where a limit is set)."""
    if node.parent is None:
        return {}
    out: dict[FR, int] = {}
    for fr, limit in node.lending_limit.items():
        if limit is not None:
            out[fr] = max(0, node.subtree.get(fr, 0) - limit)
    return out


def add_usage(node: Node | None, fr: FR, delta: int) -> None:
    """Change usage of `fr` by `delta` (±) at `node`, bubbling the borrowed part to ancestors."""
    while node is not None and delta:
        usage = node.usage
        old = usage.get(fr, 0)
        new = old + delta
        usage[fr] = new
        node.ver += 1
        local = node.local.get(fr, 0) if node.local else 0
        if local or old < 0 or new < 0:  # else the whole change passes up unchanged
            delta = max(0, new - local) - max(0, old - local)
        node = node.parent


def add_usage_map(node: Node, usage: Mapping[FR, int], sign: int = 1) -> None:
    """Add (sign=1) or remove (sign=-1) a whole usage map at a ClusterQueue."""
    for fr, v in usage.items():
        add_usage(node, fr, sign * v)


def usage_deltas(node: Node, usage: Mapping[FR, int], sign: int = 1) -> Iterator[tuple[Node, dict[FR, int]]]:
    """What `add_usage_map(node, usage, sign)` would change, node by node up to the root.

    Yields (node, usage change at that node) while some change remains; nothing is modified,
    so share and fit questions about a hypothetical addition or removal cost no tree writes
    (and leave the nodes' cached shares valid).
    """
    deltas = {fr: sign * v for fr, v in usage.items() if v}
    cur: Node | None = node
    while cur is not None and deltas:
        yield cur, deltas
        nxt: dict[FR, int] = {}
        for fr, d in deltas.items():
            local = cur.local.get(fr, 0)
            old = cur.usage.get(fr, 0)
            up = max(0, old + d - local) - max(0, old - local)
            if up:
                nxt[fr] = up
        deltas = nxt
        cur = cur.parent


def removal_shift(removals: Iterable[tuple[Node, Mapping[FR, int]]]) -> dict[Node, dict[FR, int]]:
    """Usage change per node if every (ClusterQueue, usage) pair were removed (nothing written).

    Each cohort's usage is the sum of what its children use beyond their guaranteed quota, so
    the changes are gathered level by level from the deepest node up, exactly as the tree
    would end up after the removals.
    """
    shift: dict[Node, dict[FR, int]] = {}
    levels: dict[int, list[Node]] = {}
    for node, usage in removals:
        if node not in shift:
            shift[node] = {}
            levels.setdefault(_depth(node), []).append(node)
        acc = shift[node]
        for fr, v in usage.items():
            if v:
                acc[fr] = acc.get(fr, 0) - v
    for depth in range(max(levels, default=0), 0, -1):
        for node in levels.get(depth, ()):
            parent = node.parent
            if parent is None:
                continue
            if parent not in shift:
                shift[parent] = {}
                levels.setdefault(depth - 1, []).append(parent)
            up = shift[parent]
            for fr, d in shift[node].items():
                local, old = node.local.get(fr, 0), node.usage.get(fr, 0)
                delta = max(0, old + d - local) - max(0, old - local)
                if delta:
                    up[fr] = up.get(fr, 0) + delta
    return shift


def _depth(node: Node) -> int:
    depth = 0
    parent = node.parent
    while parent is not None:
        depth += 1
        parent = parent.parent
    return depth


Shift = Mapping[Node, Mapping[FR, int]]
"""Hypothetical usage changes per node (from `usage_deltas`), applied on top of the tree."""


def available(node: Node, fr: FR, shift: Shift | None = None) -> int:
    """Capacity still usable at `node` for `fr` given its limits and ancestors (may be < 0).

    With `shift`, as if those usage changes were applied (the tree is not touched).
    """
    usage = node.usage.get(fr, 0)
    if shift:
        moved = shift.get(node)
        if moved:
            usage += moved.get(fr, 0)
    parent = node.parent
    if parent is None:
        return node.subtree.get(fr, 0) - usage
    local = node.local.get(fr, 0)
    if parent.parent is None and not shift:
        pa = parent.subtree.get(fr, 0) - parent.usage.get(fr, 0)  # available() of a root, inlined
    else:
        pa = available(parent, fr, shift)
    limit = node.borrowing_limit.get(fr)
    if limit is not None:
        stored = node.subtree.get(fr, 0) - local
        used = max(0, usage - local)
        pa = min(pa, stored - used + limit)
    return max(0, local - usage) + pa


def available_with_parent(node: Node, fr: FR) -> tuple[int, int]:
    """(`available(node, fr)`, `available(node.parent, fr)`) in one walk (0 for a root's parent).

    The flavor assigner quotes the parent's figure in a quota shortfall's reason: the walk that
    computes the node's available computes it anyway.
    """
    usage = node.usage.get(fr, 0)
    parent = node.parent
    if parent is None:
        return node.subtree.get(fr, 0) - usage, 0
    local = node.local.get(fr, 0)
    if parent.parent is None:
        pa = parent.subtree.get(fr, 0) - parent.usage.get(fr, 0)  # available() of a root, inlined
    else:
        pa = available(parent, fr)
    parent_avail = pa
    limit = node.borrowing_limit.get(fr)
    if limit is not None:
        stored = node.subtree.get(fr, 0) - local
        used = max(0, usage - local)
        pa = min(pa, stored - used + limit)
    return max(0, local - usage) + pa, parent_avail


def cq_available(node: Node, fr: FR, shift: Shift | None = None) -> int:
    """ClusterQueue available, clamped at zero (ClusterQueueSnapshot.Available)."""
    return max(0, available(node, fr, shift))


def potential_available(node: Node, fr: FR) -> int:
    """The most `fr` a workload could ever get here, with zero usage everywhere.

    Depends on quotas only, so it is memoised per node (`compute_quotas` clears the memo).
    """
    hit = node.potential.get(fr)
    if hit is not None:
        return hit
    parent = node.parent
    if parent is None:
        p = node.subtree.get(fr, 0)
    else:
        p = node.local.get(fr, 0) + potential_available(parent, fr)
        limit = node.borrowing_limit.get(fr)
        if limit is not None:
            p = min(p, node.subtree.get(fr, 0) + limit)
    node.potential[fr] = p
    return p


def local_available(node: Node, fr: FR) -> int:
    """Guaranteed quota not yet used at this node."""
    return max(0, node.local.get(fr, 0) - node.usage.get(fr, 0))


def borrowing_with(node: Node, fr: FR, val: int) -> bool:
    """True when using `val` more would take the node above its subtree quota."""
    return node.subtree.get(fr, 0) < node.usage.get(fr, 0) + val


def is_borrowing(node: Node, fr: FR) -> bool:
    """Usage above subtree quota (for a CQ: above nominal)."""
    return node.usage.get(fr, 0) > node.subtree.get(fr, 0)


def within_nominal(node: Node, frs: set[FR] | frozenset[FR]) -> bool:
    """IsWithinNominalInResources: usage ≤ subtree quota for every fr."""
    return all(node.usage.get(fr, 0) <= node.subtree.get(fr, 0) for fr in frs)


def quantities_fit_in_quota(node: Node, requests: Mapping[FR, int]) -> tuple[bool, dict[FR, int]]:
    """QuantitiesFitInQuota: fits within subtree quota, and what remains for the parent."""
    fits = True
    remaining: dict[FR, int] = {}
    for fr, v in requests.items():
        if node.usage.get(fr, 0) + v > node.subtree.get(fr, 0):
            fits = False
        remaining[fr] = max(0, v - local_available(node, fr))
    return fits, remaining


def lowest_subtree_height(cq: Node, fr: FR, val: int) -> tuple[int, bool]:
    """FindHeightOfLowestSubtreeThatFits: borrowing level and whether reclaim in hierarchy may help."""
    parent = cq.parent
    if parent is None:
        return 0, False
    # Memoised on the usage versions: the answer reads the usage of `cq` and its ancestors only
    # (quotas and heights are fixed once built), each change of which bumps that node's `ver`;
    # versions never decrease, so an unchanged sum means no usage on the path changed. The
    # preemption oracle asks the question the quota check just asked (issue 23).
    stamp = cq.ver
    node: Node | None = parent
    while node is not None:
        stamp += node.ver
        node = node.parent
    if cq.lsh_stamp == stamp and cq.lsh_val == val and cq.lsh_fr == fr:
        return cq.lsh_height, cq.lsh_reclaim
    height, reclaim = _lowest_subtree_height(cq, parent, fr, val)
    cq.lsh_fr, cq.lsh_val, cq.lsh_stamp = fr, val, stamp
    cq.lsh_height, cq.lsh_reclaim = height, reclaim
    return height, reclaim


def _lowest_subtree_height(cq: Node, parent: Node, fr: FR, val: int) -> tuple[int, bool]:
    """`lowest_subtree_height` of a ClusterQueue in a cohort, computed (not memoised)."""
    usage = cq.usage.get(fr, 0)
    if cq.subtree.get(fr, 0) >= usage + val:  # not borrowing_with(cq, fr, val)
        return 0, True
    remaining = val - max(0, cq.local.get(fr, 0) - usage)  # local_available
    node: Node | None = parent
    root = cq
    while node is not None:  # path_to_root, with borrowing_with and local_available inlined
        usage = node.usage.get(fr, 0)
        if node.subtree.get(fr, 0) >= usage + remaining:
            return node.h, node.parent is not None
        remaining -= max(0, node.local.get(fr, 0) - usage)
        root = node
        node = node.parent
    return root.h, False
