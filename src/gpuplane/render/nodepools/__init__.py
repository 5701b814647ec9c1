"""Node-pool provisioning per provider: an `az aks nodepool add` script (AKS), a
`gcloud container node-pools create` script (GKE), an eksctl ClusterConfig (EKS), or a
`kubectl label/taint` script for nodes you bring yourself (generic).

    path, text, why = nodepool_file(spec)
"""

from __future__ import annotations

from gpuplane.render.nodepools import aks, eks, generic, gke
from gpuplane.spec.models import PlatformSpec


def nodepool_file(spec: PlatformSpec) -> tuple[str, str, str]:
    """(relative path, file text, why) of the provisioning file for the spec's provider."""
    provider = spec.cluster.provider
    if provider == "aks":
        return "nodepools/aks-node-pools.sh", aks.script(spec), aks.WHY
    if provider == "gke":
        return "nodepools/gke-node-pools.sh", gke.script(spec), gke.WHY
    if provider == "eks":
        return "nodepools/eks-nodegroups.yaml", eks.config_text(spec), eks.WHY
    return "nodepools/label-nodes.sh", generic.script(spec), generic.WHY


__all__ = ["aks", "eks", "generic", "gke", "nodepool_file"]
