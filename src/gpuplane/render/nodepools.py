"""The provisioning file of the spec's provider (`gpuplane.providers`), fed with what the rest of
the output decided about each pool: labels (gpuplane's schema, the NVIDIA config selectors, what
the GPU stack needs), taints, the extended resources its nodes advertise, and cost tags."""

from __future__ import annotations

from gpuplane import providers
from gpuplane.providers.base import NodePoolFile, PoolSetup
from gpuplane.render.common import cost_tags
from gpuplane.render.device_configs import provisioning_labels
from gpuplane.spec import derived
from gpuplane.spec.models import NodePool, PlatformSpec


def pool_setup(spec: PlatformSpec, pool: NodePool) -> PoolSetup:
    """What the provisioning file must carry for one pool."""
    return PoolSetup(
        pool=pool,
        labels=provisioning_labels(spec, pool),
        taints=list(pool.taints),
        extended_resources=derived.extended_resources_per_node(pool),
        cost_tags=cost_tags(spec, pool),
    )


def nodepool_file(spec: PlatformSpec) -> NodePoolFile:
    """The provider's provisioning file for every pool of the spec."""
    setups = [pool_setup(spec, pool) for pool in spec.node_pools]
    return providers.get(spec.cluster.provider).nodepool_file(spec, setups)
