"""Properties of Kueue's TAS placement (`gpuplane.kueue.tas.placement`) on random topologies.

Whatever the tree, usage and request: an assignment places exactly the requested pods, never more
on a node than its free capacity holds, names each node once; `required` keeps
every pod in one domain of the level and fails only when no such domain has room in total
(so a level's domains are never split for `required`); the domains are sorted by their level values;
`preferred` and `unconstrained` fail only when the whole flavor has no room for the pods.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuplane.kueue.objects import ResourceFlavor
from gpuplane.kueue.tas.model import TASNode, TASPodSetRequest, Topology, TopologyRequest
from gpuplane.kueue.tas.placement import POD, FlavorTopology
from gpuplane.vocab import HOSTNAME_LABEL

LEVELS = ("example.com/block", "example.com/rack", HOSTNAME_LABEL)
TOPOLOGY = Topology("t", LEVELS)
FLAVOR = ResourceFlavor("f", {"pool": "a"}, topology_name="t")

node_st = st.tuples(
    st.integers(0, 2),  # block
    st.integers(0, 2),  # rack within block
    st.integers(0, 4000),  # cpu milli
    st.integers(1, 6),  # pods
    st.integers(0, 3000),  # cpu already used by TAS workloads
)


def _nodes(
    raw: list[tuple[int, int, int, int, int]],
) -> tuple[list[TASNode], dict[tuple[str, ...], dict[str, int]]]:
    nodes: list[TASNode] = []
    usage: dict[tuple[str, ...], dict[str, int]] = {}
    for i, (b, r, cpu, pods, used) in enumerate(raw):
        labels = {"pool": "a", LEVELS[0]: f"b{b}", LEVELS[1]: f"b{b}r{r}", HOSTNAME_LABEL: f"n{i}"}
        nodes.append(TASNode(f"n{i}", labels, {"cpu": cpu, "pods": pods * POD}))
        usage[("h", f"n{i}")] = {"cpu": min(used, cpu), "pods": 0}
    return nodes, usage


def _capacity(node: TASNode, usage: dict[tuple[str, ...], dict[str, int]], cpu: int) -> int:
    free = node.allocatable["cpu"] - usage[("h", node.name)]["cpu"]
    pods = node.allocatable["pods"] // POD
    return min(pods, free // cpu if cpu else pods)


@settings(max_examples=200, deadline=None)
@given(
    raw=st.lists(node_st, min_size=1, max_size=14),
    count=st.integers(1, 12),
    cpu=st.sampled_from([0, 500, 1000, 1500]),
    mode=st.sampled_from(["required", "preferred", "unconstrained"]),
    level=st.integers(0, 2),
)
def test_placement_is_exact_within_capacity_and_honours_the_level(
    raw: list[tuple[int, int, int, int, int]], count: int, cpu: int, mode: str, level: int
) -> None:
    nodes, usage = _nodes(raw)
    tree = FlavorTopology(FLAVOR, TOPOLOGY, nodes, {})
    request = (
        TopologyRequest(unconstrained=True)
        if mode == "unconstrained"
        else TopologyRequest(**{mode: LEVELS[level]})  # type: ignore[arg-type]
    )
    req = TASPodSetRequest("ps", count, {"cpu": cpu}, request)
    got, reason = tree.find(req, usage, {}, False)
    by_host = {n.labels[HOSTNAME_LABEL]: n for n in nodes}
    caps = {h: _capacity(n, usage, cpu) for h, n in by_host.items()}
    if got is not None:
        assert reason == ""
        hosts = [d.values[-1] for d in got.domains]
        assert got.levels == (HOSTNAME_LABEL,)
        paths = [tuple(by_host[h].labels[lv] for lv in LEVELS) for h in hosts]
        assert paths == sorted(paths) and len(set(hosts)) == len(hosts)  # Kueue sorts by level values
        assert all(d.count >= 1 for d in got.domains)
        assert sum(d.count for d in got.domains) == count
        assert all(d.count <= caps[d.values[-1]] for d in got.domains)
        if mode == "required":
            assert len({by_host[h].labels[LEVELS[level]] for h in hosts}) == 1
        return
    assert reason
    if mode == "required":
        per_domain: dict[str, int] = {}
        for h, n in by_host.items():
            per_domain[n.labels[LEVELS[level]]] = per_domain.get(n.labels[LEVELS[level]], 0) + caps[h]
        assert max(per_domain.values()) < count, reason
    else:
        assert sum(caps.values()) < count, reason
