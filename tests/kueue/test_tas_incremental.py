"""Incremental TAS placement (`gpuplane.kueue.tas.live_counts`) against the full algorithm.

On random trees (hostname lowest or not, tainted nodes, several resources) and random sequences of
placements, admissions and finishes, `FlavorTopology.find` given TASState's change log (the
incremental path for unconstrained pod sets) returns exactly what the full algorithm returns on
the same usage: the same `topologyAssignment`, or the same message. Required and preferred pod
sets go through the full algorithm either way and are compared too.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuplane.kueue.objects import ResourceFlavor, Taint, Toleration
from gpuplane.kueue.tas.model import TASNode, TASPodSetRequest, Topology, TopologyAssignment, TopologyRequest
from gpuplane.kueue.tas.placement import POD, LeafKey, leaf_key_of
from gpuplane.kueue.tas.state import TASState
from gpuplane.vocab import HOSTNAME_LABEL

BLOCK, RACK = "example.com/block", "example.com/rack"
FLAVOR = ResourceFlavor("f", {"pool": "a"}, topology_name="t")
TAINT = Taint("dedicated", "x", "NoSchedule")

node_st = st.tuples(
    st.integers(0, 2),  # block
    st.integers(0, 2),  # rack within block
    st.integers(0, 8),  # GPUs
    st.integers(1, 8),  # pods
    st.booleans(),  # tainted
)
op_st = st.tuples(
    st.sampled_from(["place", "place", "place", "finish"]),
    st.integers(0, 10),  # pods (count 0 included)
    st.sampled_from([0, 1, 2, 4, 8]),  # GPUs per pod
    st.sampled_from(["implied", "unconstrained", "required", "preferred"]),
    st.integers(0, 2),  # level index for required / preferred
    st.booleans(),  # tolerates the taint
    st.integers(0, 1000),  # which admission finishes
)


def _state(raw: list[tuple[int, int, int, int, bool]], hostname: bool) -> TASState:
    levels = (BLOCK, RACK, HOSTNAME_LABEL) if hostname else (BLOCK, RACK)
    nodes = []
    for i, (b, r, gpus, pods, tainted) in enumerate(raw):
        labels = {"pool": "a", BLOCK: f"b{b}", RACK: f"b{b}r{r}", HOSTNAME_LABEL: f"n{i}"}
        taints = (TAINT,) if tainted else ()
        nodes.append(TASNode(f"n{i}", labels, {"gpu": gpus * 1000, "pods": pods * POD}, taints))
    return TASState([Topology("t", levels)], nodes)


def _parts(
    got: TopologyAssignment, per_pod: dict[str, int], hostname: bool
) -> list[tuple[LeafKey, dict[str, int]]]:
    out = []
    for d in got.domains:
        amount = {res: q * d.count for res, q in per_pod.items()}
        amount["pods"] = amount.get("pods", 0) + POD * d.count
        out.append((leaf_key_of(got.levels, d.values, hostname), amount))
    return out


@settings(max_examples=150, deadline=None)
@given(
    raw=st.lists(node_st, min_size=1, max_size=16),
    hostname=st.booleans(),
    ops=st.lists(op_st, min_size=1, max_size=40),
)
def test_incremental_placement_equals_the_full_algorithm(
    raw: list[tuple[int, int, int, int, bool]],
    hostname: bool,
    ops: list[tuple[str, int, int, str, int, bool, int]],
) -> None:
    state = _state(raw, hostname)
    tree = state.tree(FLAVOR)
    assert tree is not None
    levels = tree.levels
    admitted: list[str] = []
    placed = 0
    for kind, count, gpus, mode, level, tolerates, which in ops:
        if kind == "finish":
            if admitted:
                state.release(admitted.pop(which % len(admitted)))
            continue
        level_name = levels[min(level, len(levels) - 1)]
        request = {
            "implied": TopologyRequest(),
            "unconstrained": TopologyRequest(unconstrained=True),
            "required": TopologyRequest(required=level_name),
            "preferred": TopologyRequest(preferred=level_name),
        }[mode]
        per_pod = {"gpu": gpus * 1000} if gpus else {}
        tolerations = (Toleration("dedicated", "Equal", "x", "NoSchedule"),) if tolerates else ()
        req = TASPodSetRequest(
            "ps", count, per_pod, request, implied=mode == "implied", tolerations=tolerations
        )
        full = tree.find(req, state.usage, {}, False)
        fast = tree.find(req, state.usage, {}, False, state.version, state.changes)
        assert fast == full, (mode, count, gpus)
        got = fast[0]
        if got is not None and got.domains:
            key = f"w{placed}"
            placed += 1
            state.charged[key] = _parts(got, per_pod, tree.hostname_lowest)
            state.shift(state.charged[key], 1)
            admitted.append(key)
