"""The kept cohort-subtree scans of classical preemption (`candidates.borrowing_cqs`).

A scan lists the ClusterQueues Kueue's hierarchical walk takes reclaim candidates from (above
nominal, reached through cohorts above their subtree quota). It is kept while the usage it read
is unchanged, so it must always equal a fresh walk: checked by hand on a small tree, and as a
property over random usage changes on nested cohorts.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuplane.kueue import resource_node as rn
from gpuplane.kueue.candidates import _scan, borrowing_cqs
from gpuplane.kueue.objects import FR
from gpuplane.kueue.snapshot import Snapshot

from .kueue_builders import cohort, cq, flavors, group, world

GPU: FR = ("f", "gpu")
CPU: FR = ("f", "cpu")
K = 1000  # quantities are kept in thousandths


def _tree() -> Snapshot:
    """root { sub { a, b }, c, d }: four ClusterQueues of 4 GPUs each (no cpu quota), sub nested under root."""
    return world(
        [
            *flavors("f"),
            cohort("root"),
            cohort("sub", parent="root"),
            cq("a", group(("f", {"gpu": 4})), cohort="sub"),
            cq("b", group(("f", {"gpu": 4})), cohort="sub"),
            cq("c", group(("f", {"gpu": 4})), cohort="root"),
            cq("d", group(("f", {"gpu": 4})), cohort="root"),
        ]
    )


def _names(nodes: list[rn.Node]) -> list[str]:
    return [n.name for n in nodes]


def test_scan_follows_usage_changes() -> None:
    snap = _tree()
    root, sub = snap.cohorts["root"], snap.cohorts["sub"]
    frs = frozenset({GPU})
    node = {name: snap.cqs[name].node for name in "abcd"}
    assert borrowing_cqs(snap, root, None, frs) == []  # nobody uses anything
    rn.add_usage(node["c"], GPU, 6 * K)  # c borrows 2 from the cohort
    assert _names(borrowing_cqs(snap, root, None, frs)) == ["c"]
    rn.add_usage(node["a"], GPU, 5 * K)  # a borrows 1, and sub (quota 8, usage 5) is within its quota
    assert _names(borrowing_cqs(snap, root, None, frs)) == ["c"]
    rn.add_usage(node["b"], GPU, 4 * K)  # sub now uses 9 of 8: the walk descends into it, sub's queues first
    assert _names(borrowing_cqs(snap, root, None, frs)) == ["a", "c"]
    assert _names(borrowing_cqs(snap, root, sub, frs)) == ["c"]  # sub skipped (the preemptor's side)
    assert _names(borrowing_cqs(snap, sub, None, frs)) == ["a"]
    rn.add_usage(node["c"], GPU, -6 * K)
    assert _names(borrowing_cqs(snap, root, None, frs)) == ["a"]
    assert borrowing_cqs(snap, root, None, frozenset({CPU})) == []  # nobody uses cpu
    rn.add_usage(node["d"], CPU, 1)  # any cpu is above a nominal of 0
    assert _names(borrowing_cqs(snap, root, None, frozenset({CPU}))) == ["d"]
    assert _names(borrowing_cqs(snap, root, None, frozenset({GPU, CPU}))) == ["a", "d"]


def test_unchanged_usage_returns_the_kept_scan() -> None:
    snap = _tree()
    root = snap.cohorts["root"]
    rn.add_usage(snap.cqs["d"].node, GPU, 7 * K)
    first = borrowing_cqs(snap, root, None, frozenset({GPU}))
    assert borrowing_cqs(snap, root, None, frozenset({GPU})) is first
    key = (root, None, frozenset({GPU}))
    vers = list(snap.subtree_scans[key].vers)
    rn.add_usage(snap.cqs["a"].node, GPU, 1 * K)  # a change anywhere the scan read: scanned again,
    again = borrowing_cqs(snap, root, None, frozenset({GPU}))
    assert snap.subtree_scans[key].vers != vers  # (walked again: the versions it read are new)
    assert again is first  # and, finding the same ClusterQueues, kept with its candidate lists
    rn.add_usage(snap.cqs["c"].node, GPU, 5 * K)  # c borrows 1: the walk finds c and d
    assert _names(borrowing_cqs(snap, root, None, frozenset({GPU}))) == ["c", "d"]


def _fresh(cur: rn.Node, skip: rn.Node | None, frs: frozenset[FR]) -> list[str]:
    out: list[rn.Node] = []
    _scan(cur, skip, frs, [], out)
    return _names(out)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from("abcd"), st.sampled_from(["gpu", "cpu"]), st.integers(-3, 6).map(lambda n: n * K)
        ),
        max_size=30,
    )
)
def test_kept_scans_equal_a_fresh_walk(changes: list[tuple[str, str, int]]) -> None:
    snap = _tree()
    root, sub = snap.cohorts["root"], snap.cohorts["sub"]
    frsets = [frozenset({GPU}), frozenset({CPU}), frozenset({GPU, CPU})]
    for name, res, delta in changes:
        node = snap.cqs[name].node
        fr = GPU if res == "gpu" else CPU
        if node.usage.get(fr, 0) + delta >= 0:  # usage never goes below zero in the engine
            rn.add_usage(node, fr, delta)
        for cur, skip in ((root, None), (root, sub), (sub, None)):
            for frs in frsets:
                assert _names(borrowing_cqs(snap, cur, skip, frs)) == _fresh(cur, skip, frs)
