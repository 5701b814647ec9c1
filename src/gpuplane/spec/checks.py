"""Semantic checks of a resolved spec beyond types. Each check yields located problems."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from gpuplane.catalog import load_catalog
from gpuplane.errors import Problem
from gpuplane.limits import limits
from gpuplane.sharing import mig
from gpuplane.spec import derived
from gpuplane.spec.dra_checks import dra_platform_problems, dra_pool_problems
from gpuplane.spec.models import NodePool, PlatformSpec
from gpuplane.spec.priority_mechanism import mechanism
from gpuplane.spec.topology import topology_problems

Report = Callable[[tuple[str | int, ...], str, str], Problem]
Parts = tuple[str | int, ...]


def _sharing_problems(index: int, pool: NodePool, at: Report) -> Iterator[Problem]:
    base: Parts = ("nodePools", index, "sharing")
    sharing = pool.sharing
    if sharing.mode != "exclusive" and not pool.accelerator:
        yield at((*base, "mode"), f"sharing mode {sharing.mode} needs a GPU accelerator", "error")
        return
    if derived.is_dra(pool):
        yield from dra_pool_problems(index, pool, at)
    elif sharing.mode in ("time-slicing", "mps"):
        if sharing.replicas < 2:
            yield at(
                (*base, "replicas"), f"{sharing.mode} needs replicas >= 2 (got {sharing.replicas})", "error"
            )
    elif "replicas" in sharing.model_fields_set and sharing.replicas != 1:
        yield at(
            (*base, "replicas"), f"replicas only applies to time-slicing and mps, not {sharing.mode}", "error"
        )
    if sharing.mode == "mig":
        yield from _mig_problems(index, pool, at)
    elif sharing.layout is not None or sharing.config is not None:
        yield at(base, f"layout/config only apply to MIG, not {sharing.mode}", "error")


def _mig_problems(index: int, pool: NodePool, at: Report) -> Iterator[Problem]:
    base: Parts = ("nodePools", index, "sharing")
    acc = load_catalog().accelerator(pool.accelerator or "")
    if acc is None:
        return
    if not acc.mig_capable:
        yield at((*base, "mode"), f"{acc.name} does not support MIG", "error")
        return
    sharing = pool.sharing
    if (sharing.layout is None) == (sharing.config is None):
        yield at(
            base,
            "MIG needs exactly one of layout (profiles of one GPU) or config (a GPU Operator MIG config)",
            "error",
        )
        return
    if sharing.config is not None:
        if sharing.config not in mig.operator_default_configs():
            known = ", ".join(sorted(mig.operator_default_configs()))
            yield at(
                (*base, "config"),
                f"unknown GPU Operator MIG config {sharing.config!r} (known: {known})",
                "error",
            )
            return
        layout = mig.layout_for_config(sharing.config, acc)
        if not layout:
            yield at(
                (*base, "config"), f"MIG config {sharing.config!r} gives {acc.name} no MIG devices", "error"
            )
            return
    else:
        unknown = [p for p in sharing.layout or [] if acc.mig_profile(p) is None]
        if unknown:
            yield at(
                (*base, "layout"),
                f"{acc.name} has no MIG profile {unknown[0]!r} (profiles: {', '.join(acc.mig_profiles)})",
                "error",
            )
            return
        layout = list(sharing.layout or [])
        fit = mig.check_layout(acc, layout)
        if not fit.fits:
            yield at((*base, "layout"), f"layout does not fit one {acc.name}: {fit.reason}", "error")
            return
    if sharing.strategy == "single" and len(set(layout)) > 1 and not derived.is_dra(pool):
        yield at(
            (*base, "strategy"), "MIG strategy single needs every instance of one profile; use mixed", "error"
        )


def _pool_problems(spec: PlatformSpec, index: int, pool: NodePool, at: Report) -> Iterator[Problem]:
    base: Parts = ("nodePools", index)
    if pool.min_nodes > pool.max_nodes:
        yield at((*base, "minNodes"), f"minNodes ({pool.min_nodes}) > maxNodes ({pool.max_nodes})", "error")
    if pool.is_gpu and pool.taints_explicitly_empty and "no-taints" not in pool.waivers:
        yield at(
            (*base, "taints"),
            "a GPU pool without taints lets CPU pods fill GPU nodes; "
            "remove `taints: []` or add the waiver no-taints",
            "error",
        )
    if pool.spot.enabled and "inference" in pool.workload_classes and "inference-on-spot" not in pool.waivers:
        yield at(
            (*base, "spot", "enabled"),
            "an inference-serving pool on spot loses replicas on eviction; "
            "use on-demand or add the waiver inference-on-spot",
            "error",
        )
    acc = load_catalog().accelerator(pool.accelerator or "")
    if acc is not None and acc.visualization_only and {"training", "inference"} & set(pool.workload_classes):
        yield at((*base, "accelerator"), f"{acc.name} is a visualization GPU, unsuited to ML work", "warning")
    yield from _sharing_problems(index, pool, at)


def _unique(names: list[str], section: str, what: str, at: Report) -> Iterator[Problem]:
    seen: set[str] = set()
    for index, name in enumerate(names):
        if name in seen:
            yield at((section, index, "name"), f"duplicate {what} name {name!r}", "error")
        seen.add(name)


def _team_problems(spec: PlatformSpec, broken: set[str], at: Report) -> Iterator[Problem]:
    cohorts = {c.name for c in spec.queueing.cohorts} | (
        {spec.queueing.default_cohort} if spec.queueing.default_cohort else set()
    )
    priorities = {p.name for p in spec.queueing.priority_classes}
    owner: dict[str, str] = {}
    for t_index, team in enumerate(spec.teams):
        base: Parts = ("teams", t_index)
        for n_index, ns in enumerate(team.namespaces):
            if ns in owner:
                yield at(
                    (*base, "namespaces", n_index),
                    f"namespace {ns!r} already belongs to team {owner[ns]!r}",
                    "error",
                )
            owner.setdefault(ns, team.name)
        if team.cohort and team.cohort not in cohorts:
            yield at((*base, "cohort"), f"unknown cohort {team.cohort!r}", "error")
        if team.priority_class and team.priority_class not in priorities:
            yield at((*base, "priorityClass"), f"unknown priority class {team.priority_class!r}", "error")
        yield from _quota_problems(spec, t_index, broken, at)


def _quota_problems(spec: PlatformSpec, t_index: int, broken: set[str], at: Report) -> Iterator[Problem]:
    team = spec.teams[t_index]
    for q_index, quota in enumerate(team.quotas):
        base: Parts = ("teams", t_index, "quotas", q_index)
        pool = spec.pool(quota.pool)
        if pool is None:
            known = ", ".join(p.name for p in spec.node_pools)
            yield at((*base, "pool"), f"quota names unknown pool {quota.pool!r} (pools: {known})", "error")
            continue
        if pool.name in broken:
            continue  # the pool's own error is reported; what it offers is undefined
        offered = derived.resources_per_node(pool)
        resource = derived.quota_resource(pool, quota)
        if resource is None:
            yield at(
                (*base, "resource"),
                f"pool {pool.name} offers several resources ({', '.join(offered)}); name one",
                "error",
            )
            continue
        if resource not in offered:
            yield at(
                (*base, "resource"),
                f"pool {pool.name} offers no {resource} (offers: {', '.join(offered) or 'nothing'})",
                "error",
            )
            continue
        if pool.spot.enabled and not team.spot_allowed:
            yield at(
                (*base, "pool"),
                f"team {team.name} does not allow spot, but {pool.name} is a spot pool",
                "error",
            )
        if quota.borrowing_limit is not None and derived.cohort_of(spec, team) is None:
            yield at((*base, "borrowingLimit"), "borrowingLimit needs the team to be in a cohort", "error")
        capacity = offered[resource] * pool.max_nodes
        if quota.nominal > capacity and "quota-above-capacity" not in pool.waivers:
            yield at(
                (*base, "nominal"),
                f"nominal {quota.nominal} {resource} exceeds what {pool.name} "
                f"can hold at maxNodes ({capacity})",
                "warning",
            )


def _cohort_problems(spec: PlatformSpec, at: Report) -> Iterator[Problem]:
    parents = {c.name: c.parent for c in spec.queueing.cohorts}
    for index, cohort in enumerate(spec.queueing.cohorts):
        if cohort.parent and cohort.parent not in parents:
            yield at(
                ("queueing", "cohorts", index, "parent"), f"unknown parent cohort {cohort.parent!r}", "error"
            )
        seen = {cohort.name}
        node = cohort.parent
        while node in parents:
            if node in seen:
                yield at(
                    ("queueing", "cohorts", index, "parent"), f"cohort {cohort.name!r} is in a cycle", "error"
                )
                break
            seen.add(node)
            node = parents[node]


def _shared_time_slicing(spec: PlatformSpec, at: Report) -> Iterator[Problem]:
    """Time-slicing and MPS isolate neither memory nor faults: one tenant per such pool."""
    for index, pool in enumerate(spec.node_pools):
        if pool.sharing.mode not in ("time-slicing", "mps"):
            continue
        teams = [t.name for t in spec.teams if any(q.pool == pool.name for q in t.quotas)]
        if len(teams) > 1:
            yield at(
                ("nodePools", index, "sharing", "mode"),
                f"{pool.sharing.mode} pool {pool.name} is shared "
                f"by teams {', '.join(teams)}; it isolates neither memory nor faults between tenants",
                "warning",
            )


def _limit_problems(index: int, pool: NodePool, at: Report) -> Iterator[Problem]:
    """Counts that drive memory in render and the twin stay within `gpuplane.limits`."""
    lim = limits()
    for field, value in (("minNodes", pool.min_nodes), ("maxNodes", pool.max_nodes)):
        if value > lim.nodes_per_pool:
            yield at(
                ("nodePools", index, field),
                f"{value} nodes is more than a Kubernetes cluster holds ({lim.nodes_per_pool}; limits: nodes_per_pool)",
                "error",
            )
    if pool.sharing.replicas > lim.sharing_replicas:
        yield at(
            ("nodePools", index, "sharing", "replicas"),
            f"{pool.sharing.replicas} replicas per GPU is more than gpuplane models "
            f"({lim.sharing_replicas}; limits: sharing_replicas)",
            "error",
        )


def _default_priority_problems(spec: PlatformSpec, at: Report) -> list[Problem]:
    """defaultPriorityBy: mutatingAdmissionPolicy on a Kubernetes version without that API."""
    if spec.cluster.default_priority_by != "mutatingAdmissionPolicy" or mechanism(spec).kind:
        return []
    return [at(("cluster", "defaultPriorityBy"), mechanism(spec).why, "error")]


def check_spec(spec: PlatformSpec, at: Report) -> list[Problem]:
    """Every semantic problem of a resolved spec (errors and warnings), in input order."""
    problems: list[Problem] = []
    for index, pool in enumerate(spec.node_pools):
        problems += _limit_problems(index, pool, at)
    if any(p.severity == "error" for p in problems):
        return problems
    problems += _unique([p.name for p in spec.node_pools], "nodePools", "pool", at)
    problems += _unique([t.name for t in spec.teams], "teams", "team", at)
    broken: set[str] = set()
    for index, pool in enumerate(spec.node_pools):
        found = list(_pool_problems(spec, index, pool, at))
        unresolved = pool.is_gpu and (
            load_catalog().accelerator(pool.accelerator or "") is None or not pool.gpus
        )
        if unresolved or any(p.severity == "error" for p in found):
            broken.add(pool.name)
        problems += found
    problems += _team_problems(spec, broken, at)
    problems += _cohort_problems(spec, at)
    problems += _shared_time_slicing(spec, at)
    problems += dra_platform_problems(spec, at)
    problems += _default_priority_problems(spec, at)
    problems += topology_problems(spec, at)
    if not any(p.severity == "error" for p in problems):
        # Imported here: the provider modules import the spec models, which import this package.
        from gpuplane.providers.checks import provider_problems

        problems += provider_problems(spec, at)
    for name in spec.costs.pools:
        if spec.pool(name) is None:
            problems.append(
                at(("costs", "pools", name), f"price override for unknown pool {name!r}", "error")
            )
    return problems
