"""Team quotas in a plan: part of the design only when the design space says so, and every
change the winner makes to them listed, with the teams it affects (issue 21).

The design space's `quotas` (plan.yaml; `scale` when no plan.yaml says otherwise):

    scale   each team's quota follows its pool's capacity (gpuplane.plan.design): a quota on a
            resource the pool still offers is multiplied by the change of that resource's capacity;
            when the resources change (a new MIG layout, MIG to time-slicing) the team keeps its
            share of the pool in GPU-equivalents, spread over the new resources
    keep    quotas are never changed: a design whose pools cannot hold them as written (a MIG
            layout without a profile a team has quota on) is not a valid design

Either way `quota_changes(spec, winner)` compares each team's quotas, entry by entry (pool and
resource), field by field (nominal, borrowingLimit, lendingLimit): the terminal, plan.json and
the report list every difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gpuplane.spec import PlatformSpec, Quota, derived

QuotaMode = Literal["scale", "keep"]
MODES: tuple[QuotaMode, ...] = ("scale", "keep")
DEFAULT_MODE: QuotaMode = "scale"

_FIELDS = (("nominal", "nominal"), ("borrowing_limit", "borrowingLimit"), ("lending_limit", "lendingLimit"))


@dataclass(frozen=True)
class QuotaChange:
    """One field of one team's quota entry that differs between the spec as given and a design."""

    team: str
    pool: str
    resource: str
    field: str  # nominal | borrowingLimit | lendingLimit
    before: int | None  # None: no such entry (nominal) or no limit (borrowing, lending)
    after: int | None

    @property
    def guarantee_removed(self) -> bool:
        """A guarantee the team had is gone (nominal > 0 before, 0 or no entry after)."""
        return self.field == "nominal" and bool(self.before) and not self.after

    def text(self) -> str:
        """`TEAM: POOL RESOURCE FIELD BEFORE -> AFTER`, e.g. `vision: a100-mig ... nominal 2 -> 0 (guarantee removed)`."""
        missing = "(none)" if self.field == "nominal" else "(no limit)"

        def shown(value: int | None) -> str:
            return missing if value is None else str(value)

        tail = " (guarantee removed)" if self.guarantee_removed else ""
        return f"{self.team}: {self.pool} {self.resource} {self.field} {shown(self.before)} -> {shown(self.after)}{tail}"

    def as_dict(self) -> dict[str, Any]:
        """Plain data for plan.json."""
        return {
            "team": self.team,
            "pool": self.pool,
            "resource": self.resource,
            "field": self.field,
            "before": self.before,
            "after": self.after,
            "guarantee_removed": self.guarantee_removed,
        }


def _entries(spec: PlatformSpec, quotas: Sequence[Quota]) -> dict[tuple[str, str], Quota]:
    pools = {p.name: p for p in spec.node_pools}
    out: dict[tuple[str, str], Quota] = {}
    for q in quotas:
        pool = pools.get(q.pool)
        resource = (derived.quota_resource(pool, q) if pool is not None else None) or q.resource or "?"
        out[(q.pool, resource)] = q
    return out


def quota_changes(before: PlatformSpec, after: PlatformSpec) -> list[QuotaChange]:
    """Every quota field that differs, team by team (spec order), entry by entry (sorted)."""
    teams_after = {t.name: t for t in after.teams}
    changes: list[QuotaChange] = []
    for team in before.teams:
        new_team = teams_after.get(team.name)
        old = _entries(before, team.quotas)
        new = _entries(after, new_team.quotas if new_team is not None else [])
        for key in sorted(set(old) | set(new)):
            a, b = old.get(key), new.get(key)
            for attr, name in _FIELDS:
                was = getattr(a, attr) if a is not None else None
                now = getattr(b, attr) if b is not None else None
                if attr != "nominal" and (a is None or b is None) and was is None and now is None:
                    continue
                if was != now:
                    changes.append(QuotaChange(team.name, key[0], key[1], name, was, now))
    return changes


def teams_of(changes: Sequence[QuotaChange]) -> list[str]:
    """The teams the changes affect, in order of first mention."""
    return list(dict.fromkeys(c.team for c in changes))


def summary(mode: str, changes: Sequence[QuotaChange]) -> list[str]:
    """The lines the terminal and the report show about quotas."""
    rule = (
        "scaled with each pool's capacity (plan.yaml quotas: keep fixes them)"
        if mode == "scale"
        else "kept as the spec gives them (plan.yaml quotas: keep)"
    )
    if not changes:
        return [f"quotas: {rule}; the winner keeps every team's quota as given"]
    teams = teams_of(changes)
    removed = sum(c.guarantee_removed for c in changes)
    head = (
        f"quotas: {rule}; the winner changes {len(changes)} quota fields of {len(teams)} teams "
        f"({', '.join(teams)})" + (f", {removed} guarantees removed" if removed else "") + ":"
    )
    return [head, *(f"  {c.text()}" for c in changes)]
