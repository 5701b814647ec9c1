"""AKS: one `az aks nodepool add` per pool, with taints, labels, zones, the cluster autoscaler
(min 0 allowed), spot priority with eviction policy Delete and max price, and the GPU stack's
driver flag: `--gpu-driver None` so the GPU Operator installs the driver (operator stack), or
`--gpu-driver Install` plus `--gpu-instance-profile MIG<n>g` for MIG pools (provider stack).

Argument names and values as the Azure CLI defines them (`aks nodepool add` in
azure-cli acs/_params.py: gpu_driver_install_modes, gpu_instance_profiles; facts in providers.yaml).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from gpuplane.catalog import load_catalog
from gpuplane.catalog.models import Accelerator
from gpuplane.errors import Problem
from gpuplane.providers.base import BaseProvider, NodePoolFile, PoolSetup, Report
from gpuplane.providers.shell import PROLOGUE, command, env_default, q
from gpuplane.sharing import mig
from gpuplane.spec import derived
from gpuplane.spec.models import NodePool, PlatformSpec

WHY = "creates the AKS node pools (az aks nodepool add) with the labels, taints and autoscaling the rest of the output relies on"
# AKS Linux node pool names: lowercase letters and digits, start with a letter, at most 12 characters.
AKS_POOL_NAME_MAX = 12


def aks_pool_names(spec: PlatformSpec) -> dict[str, str]:
    """Spec pool name -> a valid, unique AKS pool name (the `LABEL_POOL` node label keeps the spec name)."""
    names: dict[str, str] = {}
    used: set[str] = set()
    for pool in spec.node_pools:
        base = re.sub(r"[^a-z0-9]", "", pool.name.lower())
        if not base or not base[0].isalpha():
            base = "p" + base
        base = base[:AKS_POOL_NAME_MAX]
        name, n = base, 1
        while name in used:
            suffix = str(n)
            name = base[: AKS_POOL_NAME_MAX - len(suffix)] + suffix
            n += 1
        used.add(name)
        names[pool.name] = name
    return names


def instance_profile_layouts(acc: Accelerator, profiles: Sequence[str]) -> dict[str, list[str]]:
    """`MIG<n>g` -> the per-GPU layout AKS creates with it: as many `<n>g` instances as fit, of the
    smallest plain `<n>g` profile (`MIG1g` on an H100 is 7 x 1g.10gb)."""
    out: dict[str, list[str]] = {}
    for name in profiles:
        match = re.fullmatch(r"MIG(\d+)g", name)
        if match is None:
            continue
        plain = [
            p
            for p in acc.mig_profiles.values()
            if p.compute_slices == int(match.group(1)) and re.fullmatch(r"\d+g\.\d+gb", p.name)
        ]
        if not plain:
            continue
        profile = min(plain, key=lambda p: (p.memory_slices, p.name))
        layout = [profile.name] * profile.max_count
        if mig.check_layout(acc, layout).fits:
            out[name] = layout
    return out


def instance_profile(pool: NodePool, layout: list[str]) -> str | None:
    """The `--gpu-instance-profile` that gives exactly this layout, or None."""
    acc = load_catalog().accelerator(pool.accelerator or "")
    if acc is None:
        return None
    options = instance_profile_layouts(acc, PROVIDER.facts["mig"].get("profiles") or [])
    return next((name for name, cand in options.items() if sorted(cand) == sorted(layout)), None)


def _gpu_words(spec: PlatformSpec, setup: PoolSetup) -> list[str]:
    pool = setup.pool
    if not pool.is_gpu:
        return []
    words = [str(w) for w in PROVIDER.stack(spec).get("pool_flags") or []]
    if PROVIDER.mig_method(spec) == "instance-profile" and pool.sharing.mode == "mig":
        profile = instance_profile(pool, derived.mig_layout(pool) or [])
        if profile:
            words += ["--gpu-instance-profile", profile]
    return words


def _pool_command(spec: PlatformSpec, setup: PoolSetup, aks_name: str) -> str:
    pool = setup.pool
    words = [
        "az aks nodepool add",
        "--resource-group",
        '"$RESOURCE_GROUP"',
        "--cluster-name",
        '"$CLUSTER_NAME"',
    ]
    words += ["--name", q(aks_name), "--mode", "User", "--os-type", "Linux"]
    if pool.vm_size:
        words += ["--node-vm-size", q(pool.vm_size)]
    words += ["--node-count", q(pool.min_nodes), "--enable-cluster-autoscaler"]
    words += ["--min-count", q(pool.min_nodes), "--max-count", q(max(pool.max_nodes, 1))]
    if pool.zones:
        words += ["--zones", " ".join(q(z) for z in pool.zones)]
    words += ["--labels", " ".join(q(f"{k}={v}") for k, v in setup.labels.items())]
    if setup.taints:
        taints = ",".join(
            f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}" for t in setup.taints
        )
        words += ["--node-taints", q(taints)]
    if pool.spot.enabled:
        words += ["--priority", "Spot", "--eviction-policy", "Delete"]
        words += ["--spot-max-price", q(f"{pool.spot.max_price:g}")]
    # A capacity reservation group the pool's nodes draw from (learn.microsoft.com/azure/aks/
    # use-capacity-reservation-groups: `az aks nodepool add ... --crg-id <CRG resource id>`).
    crg = [s.reservation for s in pool.purchase if s.option == "capacity-reservation" and s.reservation]
    if crg:
        words += ["--crg-id", q(crg[0])]
    words += _gpu_words(spec, setup)
    words += ["--tags", " ".join(q(f"{k}={v}") for k, v in setup.cost_tags.items())]
    return (
        f"# pool {pool.name}: {pool.accelerator or 'CPU'} x{pool.gpus} per node, {pool.min_nodes}-{pool.max_nodes} nodes\n"
        + command(words)
    )


class AksProvider(BaseProvider):
    """Azure Kubernetes Service."""

    name = "aks"

    def nodepool_file(self, spec: PlatformSpec, pools: Sequence[PoolSetup]) -> NodePoolFile:
        """The whole AKS provisioning script."""
        names = aks_pool_names(spec)
        taint = self.facts["spot"].get("taint") or {}
        parts = [
            PROLOGUE,
            f"# Spot pools: AKS adds the taint {taint.get('key')}={taint.get('value')}:{taint.get('effect')} itself.\n",
            env_default("RESOURCE_GROUP", spec.cluster.resource_group or f"rg-{spec.cluster.name}"),
            env_default("CLUSTER_NAME", spec.cluster.name),
            "\n",
        ]
        for setup in pools:
            parts.append(_pool_command(spec, setup, names[setup.pool.name]))
            parts.append("\n")
        return NodePoolFile("nodepools/aks-node-pools.sh", "".join(parts), WHY)

    def design_problems(self, spec: PlatformSpec, at: Report) -> Iterator[Problem]:
        """With AKS's own GPU stack, a MIG pool's layout must be what one instance profile gives."""
        if self.mig_method(spec) != "instance-profile":
            return
        fact = self.facts["mig"]
        for index, pool in enumerate(spec.node_pools):
            layout = derived.mig_layout(pool)
            if pool.sharing.mode != "mig" or not layout or instance_profile(pool, layout):
                continue
            acc = load_catalog().accelerator(pool.accelerator or "")
            options = instance_profile_layouts(acc, fact.get("profiles") or []) if acc else {}
            offered = "; ".join(f"{n}: {len(v)} x {v[0]}" for n, v in options.items()) or "none"
            yield at(
                ("nodePools", index, "sharing"),
                "AKS fixes one MIG profile per pool at creation (--gpu-instance-profile), every GPU "
                f"split into as many instances as fit; {', '.join(layout)} is not such a layout "
                f"(on {pool.accelerator}: {offered}); use gpuStack: operator for other layouts "
                f"({fact.cite()})",
                "error",
            )


PROVIDER = AksProvider()
