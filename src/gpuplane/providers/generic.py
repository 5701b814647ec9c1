"""Generic clusters: nodes come from elsewhere, so the script labels and taints the nodes named on
its command line as members of a pool (`label-nodes.sh POOL NODE...`)."""

from __future__ import annotations

from collections.abc import Sequence

from gpuplane.providers.base import BaseProvider, NodePoolFile, PoolSetup
from gpuplane.providers.shell import PROLOGUE, q
from gpuplane.spec.models import PlatformSpec

WHY = "labels and taints existing nodes as members of a pool (kubectl label/taint), for clusters gpuplane does not provision"


class GenericProvider(BaseProvider):
    """Nodes you bring yourself."""

    name = "generic"

    def nodepool_file(self, spec: PlatformSpec, pools: Sequence[PoolSetup]) -> NodePoolFile:
        """A script: `label-nodes.sh POOL NODE...`."""
        parts = [
            PROLOGUE,
            'if [ "$#" -lt 2 ]; then echo "usage: $0 POOL NODE..." >&2; exit 2; fi\n',
            'pool="$1"; shift\n',
            'case "$pool" in\n',
        ]
        for setup in pools:
            labels = " ".join(q(f"{k}={v}") for k, v in setup.labels.items())
            parts.append(f"  {q(setup.pool.name)})\n")
            parts.append(f'    kubectl label nodes --overwrite "$@" {labels}\n')
            for t in setup.taints:
                taint = f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"
                parts.append(f'    kubectl taint nodes --overwrite "$@" {q(taint)}\n')
            parts.append("    ;;\n")
        parts.append('  *) echo "unknown pool: $pool" >&2; exit 2 ;;\nesac\n')
        return NodePoolFile("nodepools/label-nodes.sh", "".join(parts), WHY)


PROVIDER = GenericProvider()
