"""GPU040, GPU041: mig-parted configs (the file and the MIG manager's ConfigMap) checked with the
placement rules `gpuplane mig check` uses (`gpuplane.sharing.mig.check_layout`), per device filter,
and against the GPU of the pools and nodes that select them (the MIG manager's config label)."""

from __future__ import annotations

from collections.abc import Iterator

from gpuplane.audit.bundle import Bundle
from gpuplane.audit.migparted import MigEntry, config_names, mig_entries
from gpuplane.audit.model import Finding, rule
from gpuplane.audit.rules.common import at_pool
from gpuplane.catalog import load_catalog
from gpuplane.catalog.models import Accelerator
from gpuplane.sharing.mig import check_layout
from gpuplane.sharing.operator_configs import layout_for_config, operator_default_configs
from gpuplane.vocab import GFD_GPU_PRODUCT, MIG_CONFIG_LABEL


def _finding(rule_id: str, b: Bundle, e: MigEntry, message: str) -> Finding:
    line, column = e.pos()
    obj = e.obj
    return Finding(
        rule_id, "", obj.kind, b.ns_of(obj), obj.name, obj.file, line, column, message, subject=obj
    )


def _where(e: MigEntry) -> str:
    return f"mig-parted config {e.config!r} entry {e.index}"


def _judge(e: MigEntry, acc: Accelerator) -> str:
    """Why an enabled entry's layout cannot be created on this GPU ('' when it can)."""
    fit = check_layout(acc, e.layout())
    return "" if fit.fits else fit.reason


def _catalog_knows(e: MigEntry, gpus: list[Accelerator]) -> bool:
    """Whether every profile of the entry is a profile of some catalog GPU. NVIDIA adds profile
    forms (`+gfx`, `+me.all`) and GPUs faster than the catalog: a name no GPU of it has is no claim."""
    return all(any(acc.mig_profile(name) is not None for acc in gpus) for name in e.devices)


@rule(
    "GPU040",
    "mig-config-impossible-layout",
    "mig-parted config with a MIG layout no GPU it selects can hold",
    "high",
    why="""The MIG manager applies the config named by a node's MIG config label with mig-parted. A layout
    that breaks NVIDIA's placement rules (memory slices overlap, a profile beyond its count, a profile
    the GPU does not have) fails on the node: the manager marks the node's config state `failed`, the
    GPUs keep their old layout and the MIG resources the scheduler expects never appear. Each entry is
    checked as `gpuplane mig check` checks a layout, for every GPU its device filter names (PCI ids
    the catalog knows); an entry without a filter must fit at least one MIG-capable GPU. A profile
    name no GPU of the catalog has (newer forms such as `+gfx`) is not judged.""",
    fix="""Fix the layout (`gpuplane mig check <GPU> <profiles...>` shows a placement or why none exists;
    `gpuplane mig layouts <GPU>` lists the maximal ones), or narrow the entry's `device-filter` to the
    GPUs that can hold it.""",
    tags=("gpu", "mig"),
    system=True,
)
def gpu040(b: Bundle) -> Iterator[Finding]:
    catalog = load_catalog()
    for obj in b.objects:
        for e in mig_entries(obj):
            for problem in e.problems:
                yield _finding("GPU040", b, e, f"{_where(e)}: {problem}")
            mig_gpus = [a for a in catalog.accelerators() if a.mig_capable]
            if not e.enabled or not e.devices or not _catalog_knows(e, mig_gpus):
                continue
            if e.device_filter:
                for pci in e.device_filter:
                    acc = catalog.accelerator_for_pci_id(pci)
                    if acc is None:
                        continue  # a device the catalog does not know: no claim
                    reason = _judge(e, acc)
                    if reason:
                        yield _finding("GPU040", b, e, f"{_where(e)} ({pci}, {acc.name}): {reason}")
                continue
            if not any(not _judge(e, acc) for acc in mig_gpus):
                layout = ", ".join(f"{k}: {v}" for k, v in e.devices.items())
                yield _finding("GPU040", b, e, f"{_where(e)}: no MIG GPU can hold {{{layout}}}")


def _applied(entries: list[MigEntry], acc: Accelerator) -> MigEntry | None:
    """The entry mig-parted applies to this GPU: a device-filter match beats an unfiltered entry."""
    ids = {p.lower() for p in acc.pci_device_ids}
    filtered = [e for e in entries if e.device_filter and any(f.lower() in ids for f in e.device_filter)]
    if filtered:
        return filtered[0]
    return next((e for e in entries if not e.device_filter), None)


def _offered(name: str, acc: Accelerator, configs: dict[str, list[MigEntry]]) -> str:
    """Why config `name` gives this GPU no layout it can hold ('' when it does or we cannot tell)."""
    if name in configs:
        entry = _applied(configs[name], acc)
        if entry is None:
            return (
                f"mig-parted config {name!r} has no entry for {acc.name} (its device filters name other GPUs)"
            )
        if entry.enabled and entry.devices:
            reason = _judge(entry, acc)
            return (
                f"mig-parted config {name!r} gives {acc.name} a layout it cannot hold: {reason}"
                if reason
                else ""
            )
        return ""
    if name in operator_default_configs():
        if layout_for_config(name, acc) is None:
            return f"the GPU Operator's default config {name!r} does not apply to {acc.name}"
        return ""
    if configs:
        return f"no mig-parted config in the input defines {name!r}"
    return ""  # the configs are not part of the input: no claim


@rule(
    "GPU041",
    "mig-config-not-offered-by-gpu",
    "pool or node selects a MIG config its GPU cannot take",
    "high",
    why="""A node takes the MIG layout its MIG config label names, from the entry of that config that
    selects its GPU (a device-filter match, else the unfiltered entry). When the config has no entry for
    the GPU, names profiles the GPU does not have (`1g.10gb` on an A100 40GB), or does not exist, the MIG
    manager fails and the pool offers none of the MIG resources its quotas and workloads count on.""",
    fix="""Point the pool's MIG config label at a config with a layout for its GPU (the GPU Operator's
    defaults such as `all-balanced` carry one entry per GPU family), or add a device-filtered entry for
    the GPU to the custom config.""",
    tags=("gpu", "mig"),
)
def gpu041(b: Bundle) -> Iterator[Finding]:
    catalog = load_catalog()
    configs = config_names(b.objects)
    for p in b.pools:
        name = p.labels.get(MIG_CONFIG_LABEL, "")
        acc = catalog.accelerator(p.accelerator or "") if name else None
        if acc is not None:
            reason = _offered(name, acc, configs)
            if reason:
                yield at_pool("GPU041", p, "sharing", f"pool {p.name} ({acc.name}) selects {name}: {reason}")
    for n in b.nodes:
        name = n.labels.get(MIG_CONFIG_LABEL, "")
        acc = catalog.accelerator_for_product(n.labels.get(GFD_GPU_PRODUCT, "")) if name else None
        if acc is not None:
            reason = _offered(name, acc, configs)
            if reason:
                line, column = n.obj.pos(("metadata", "labels", MIG_CONFIG_LABEL), key=False)
                yield Finding(
                    "GPU041",
                    "",
                    "Node",
                    "",
                    n.name,
                    n.obj.file,
                    line,
                    column,
                    f"node {n.name} ({acc.name}) selects {name}: {reason}",
                    subject=n.obj,
                )
