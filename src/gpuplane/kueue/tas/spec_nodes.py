"""`explain --spec` with TAS and no Node objects: the spec's topology pools stand in as Nodes.

Kueue's TAS places pods on the Nodes it sees; rendered manifests carry no Nodes, so without them
every TAS workload would wait with "no topology domains at level". When the input has a Topology
but no Node at all, `--spec` adds `maxNodes` Nodes per topology pool in the domains of its
`domainSizes` (`spec.topology.synthetic_nodes`) and says so in the notes.
"""

from __future__ import annotations

from gpuplane.kueue.parse import Parsed, RawObject
from gpuplane.kueue.tas.model import Topology
from gpuplane.spec.models import PlatformSpec
from gpuplane.spec.topology import synthetic_nodes


def add_spec_nodes(parsed: Parsed, spec: PlatformSpec) -> int:
    """Add the spec's stand-in Nodes when the input has a Topology and no Node; returns how many."""
    if not any(isinstance(o, Topology) for o in parsed.objects):
        return 0
    if any(r.data.get("kind") == "Node" for r in parsed.k8s):
        return 0
    nodes = synthetic_nodes(spec)
    parsed.k8s.extend(RawObject(n, "<spec>") for n in nodes)
    if nodes:
        parsed.notes.append(
            f"no Node objects in the input: topology-aware scheduling placed pods on {len(nodes)} nodes "
            "standing in for the spec's topology pools at maxNodes (domains from topology.domainSizes)"
        )
    return len(nodes)
