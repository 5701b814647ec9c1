"""What fits on one GPU: MIG placement, time-slicing and MPS replicas, and the resource names
each sharing mode advertises. Used by render (configs), sim (placement) and audit.

    from gpuplane.sharing import deviceplugin, mig, mig_parted, resources
"""

from __future__ import annotations

from gpuplane.sharing import deviceplugin, mig, mig_parted, operator_configs, resources

__all__ = ["deviceplugin", "mig", "mig_parted", "operator_configs", "resources"]
