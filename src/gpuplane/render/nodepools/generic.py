"""Generic clusters: nodes come from elsewhere, so the script labels and taints the nodes named on
its command line as members of a pool (`label-nodes.sh POOL NODE...`)."""

from __future__ import annotations

from gpuplane.render.nodepools.shell import PROLOGUE, q
from gpuplane.render.operator import provisioning_labels
from gpuplane.spec.models import PlatformSpec

WHY = "labels and taints existing nodes as members of a pool (kubectl label/taint), for clusters gpuplane does not provision"


def script(spec: PlatformSpec) -> str:
    """A script: `label-nodes.sh POOL NODE...`."""
    parts = [
        PROLOGUE,
        'if [ "$#" -lt 2 ]; then echo "usage: $0 POOL NODE..." >&2; exit 2; fi\n',
        'pool="$1"; shift\n',
        'case "$pool" in\n',
    ]
    for pool in spec.node_pools:
        labels = " ".join(q(f"{k}={v}") for k, v in provisioning_labels(spec, pool).items())
        parts.append(f"  {q(pool.name)})\n")
        parts.append(f'    kubectl label nodes --overwrite "$@" {labels}\n')
        for t in pool.taints:
            taint = f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"
            parts.append(f'    kubectl taint nodes --overwrite "$@" {q(taint)}\n')
        parts.append("    ;;\n")
    parts.append('  *) echo "unknown pool: $pool" >&2; exit 2 ;;\nesac\n')
    return "".join(parts)
