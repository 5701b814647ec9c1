"""A design as a platform spec: the spec's copy with one choice per pool, quotas scaled with
capacity, validated exactly as `gpuplane spec validate` would (so the winner renders).

Team quotas scale with capacity: a quota on a resource the pool still offers is multiplied by the
change of that resource's capacity at maxNodes; when the resources change (a new MIG layout, MIG
to time-slicing), each team keeps its share of the pool in GPU-equivalents, spread over the new
resources. Borrowing and lending limits scale the same way. A pool whose VM size changes loses its
`costs.pools` price override (it priced the old VM) and is priced from the catalog.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from gpuplane.catalog import load_catalog
from gpuplane.errors import InputError
from gpuplane.plan.space import PoolChoice
from gpuplane.spec import NodePool, PlatformSpec, Quota, Sharing, derived, parse_spec
from gpuplane.vocab import is_mig_resource
from gpuplane.yamlemit import emit

HEADER = "# Written by gpuplane plan: {what}.\n"


@dataclass(frozen=True)
class Design:
    """A validated design: its id (hash of the spec), choices, spec and YAML text."""

    id: str
    choices: tuple[tuple[str, PoolChoice], ...]
    spec: PlatformSpec
    yaml: str

    def label(self) -> str:
        """One line per pool: `pool: choice`."""
        return "; ".join(f"{name}: {choice.label()}" for name, choice in self.choices)


@dataclass(frozen=True)
class Invalid:
    """A combination of choices that is not a valid spec, and why."""

    choices: tuple[tuple[str, PoolChoice], ...]
    reason: str


def spec_yaml(spec: PlatformSpec) -> str:
    """The spec as YAML (camelCase keys, defaults left out), deterministic."""
    data = spec.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    head = {"apiVersion": spec.api_version, "kind": spec.kind}
    return emit({**head, **data})


def design_id(text: str) -> str:
    """A short stable id of a design: the first 12 hex digits of the SHA-256 of its spec YAML."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _gpu_equivalents(pool: NodePool) -> dict[str, float]:
    """Share of one physical GPU that one unit of each resource of the pool is."""
    acc = load_catalog().accelerator(pool.accelerator or "")
    out: dict[str, float] = {}
    for name, units in derived.resources_per_gpu(pool).items():
        profile = acc.mig_profile(name) if acc is not None and is_mig_resource(name) else None
        if profile is not None and acc is not None and acc.compute_slices:
            out[name] = profile.compute_slices / acc.compute_slices
        else:
            out[name] = 1.0 / max(units, 1)
    return out


def _round(value: float) -> int:
    return math.floor(value + 0.5)


def _scaled_quotas(old: NodePool, new: NodePool, quotas: Sequence[Quota]) -> list[Quota]:
    old_cap, new_cap = derived.max_resources(old), derived.max_resources(new)
    if not quotas:
        return []
    resolved = [(derived.quota_resource(old, q) or "", q) for q in quotas]
    explicit = len(new_cap) > 1
    if set(new_cap) >= {r for r, _ in resolved} and set(new_cap) == set(old_cap):
        out = []
        for resource, q in resolved:
            ratio = new_cap[resource] / old_cap[resource] if old_cap.get(resource) else 1.0
            out.append(_quota(q, new.name, resource if explicit else None, ratio))
        return out
    eq_old = _gpu_equivalents(old)
    total_old = sum(old_cap[r] * eq_old.get(r, 1.0) for r in old_cap) or 1.0

    def share(limit: str) -> float | None:
        values = [getattr(q, limit) for _, q in resolved]
        if any(v is None for v in values) and limit != "nominal":
            return None
        return (
            sum((v or 0) * eq_old.get(r, 1.0) for (r, _), v in zip(resolved, values, strict=True)) / total_old
        )

    nominal, borrowing, lending = share("nominal"), share("borrowing_limit"), share("lending_limit")
    out = []
    for resource, cap in sorted(new_cap.items()):
        out.append(
            Quota(
                pool=new.name,
                resource=resource if explicit else None,
                nominal=_round((nominal or 0.0) * cap),
                borrowing_limit=None if borrowing is None else _round(borrowing * cap),
                lending_limit=None if lending is None else _round(lending * cap),
            )
        )
    return out


def _quota(q: Quota, pool: str, resource: str | None, ratio: float) -> Quota:
    def scale(v: int | None) -> int | None:
        return None if v is None else _round(v * ratio)

    return Quota(
        pool=pool,
        resource=resource,
        nominal=_round(q.nominal * ratio),
        borrowing_limit=scale(q.borrowing_limit),
        lending_limit=scale(q.lending_limit),
    )


def _apply_choice(spec: PlatformSpec, pool: NodePool, choice: PoolChoice) -> NodePool:
    new = pool.model_copy(deep=True)
    if choice.vm_size != pool.vm_size:
        new.vm_size = choice.vm_size
        sku = load_catalog().vm_sku(spec.cluster.provider, choice.vm_size)
        new.gpus_per_node = sku.gpus if sku else pool.gpus_per_node
        new.accelerator = sku.accelerator if sku else pool.accelerator
        new.cpu_per_node = None
        new.memory_gib_per_node = None
        spec.costs.pools.pop(pool.name, None)
    new.max_nodes = choice.max_nodes
    new.min_nodes = choice.min_nodes
    new.spot = new.spot.model_copy(update={"enabled": choice.spot})
    s = choice.sharing
    sharing: dict[str, object] = {"mode": s.mode, "strategy": s.strategy}
    if s.mode in ("time-slicing", "mps"):
        sharing["replicas"] = s.replicas
    new.sharing = Sharing.model_validate(
        {
            **sharing,
            "layout": list(s.layout) if s.layout else None,
            "config": s.config,
            "renameShared": pool.sharing.rename_shared,
        }
    )
    return new


def build_design(
    spec: PlatformSpec,
    choices: Sequence[tuple[str, PoolChoice]],
    what: str = "a design",
    *,
    scale_quotas: bool = True,
) -> Design | Invalid:
    """The spec with `choices` applied, validated; Invalid with the first error otherwise.
    Without `scale_quotas` every team keeps its quotas exactly as the spec gives them."""
    draft = spec.model_copy(deep=True)
    by_name = dict(choices)
    pools = []
    for pool in draft.node_pools:
        pools.append(_apply_choice(draft, pool, by_name[pool.name]) if pool.name in by_name else pool)
    old = {p.name: p for p in spec.node_pools}
    for team in draft.teams:
        rescaled: list[Quota] = []
        for new in pools:
            mine = [q for q in team.quotas if q.pool == new.name]
            scaled = scale_quotas and new.name in by_name
            rescaled += _scaled_quotas(old[new.name], new, mine) if scaled else mine
        team.quotas = rescaled
    draft.node_pools = pools
    text = spec_yaml(draft)
    try:
        checked, _ = parse_spec(text, "<design>", priced=True)
    except InputError as exc:
        first = exc.problems[0]
        return Invalid(tuple(choices), f"{first.path}: {first.message}" if first.path else first.message)
    final = spec_yaml(checked)
    return Design(design_id(final), tuple(choices), checked, final)


def winner_yaml(design: Design, source: str) -> str:
    """The winning spec as a file for `render`: a header naming where it came from, then the spec."""
    return HEADER.format(what=f"design {design.id}, searched from {source}") + design.yaml


def canonical(obj: object) -> str:
    """Stable JSON text of plain data (for hashing)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
