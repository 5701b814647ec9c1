"""`plan.yaml`: refine the search space that `gpuplane plan` derives from the spec, set the goal and
the search budget. Every key is optional; unknown keys are errors with file:line:column.

```yaml
pools:
  a100-train:
    vmSizes: [Standard_ND96amsr_A100_v4, Standard_NC24ads_A100_v4]
    maxNodes: [2, 4, 6]          # nodes of whichever VM size; default: GPU targets of the spec
    minNodes: [0]                # or `maxNodes` for a fixed-size pool
    spot: [true, false]
  a100-mig:
    sharing:
      - {mode: mig, strategy: mixed, layout: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]}
      - {mode: time-slicing, replicas: 4}
  t4-dev: {fixed: true}          # not searched
goal: ["p90-wait<=4h", "availability>=99.9%"]
search: {designs: 100, seeds: 3, finalists: 3}
```
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from gpuplane.errors import InputError, UsageError
from gpuplane.inputs import display_name, read_text
from gpuplane.limits import limits
from gpuplane.plan.goal import parse_constraint
from gpuplane.spec.loader import problem_at
from gpuplane.spec.models import Sharing
from gpuplane.yamlio import load_one


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class PoolSpace(_Model):
    """Candidates of one pool; an omitted key keeps the derived candidates."""

    fixed: bool = Field(default=False, description="Keep the pool exactly as the spec has it.")
    vm_sizes: list[str] | None = Field(default=None, min_length=1, description="VM sizes to try.")
    max_nodes: list[int] | None = Field(default=None, min_length=1, description="maxNodes values to try.")
    min_nodes: list[int] | Literal["maxNodes"] | None = Field(
        default=None, description="minNodes values to try, or `maxNodes` for a fixed-size pool."
    )
    spot: list[bool] | None = Field(default=None, min_length=1, description="Spot on and/or off.")
    sharing: list[Sharing] | None = Field(
        default=None, min_length=1, description="Sharing settings to try (as in the spec)."
    )

    @field_validator("sharing", mode="before")
    @classmethod
    def _sharing_shorthand(cls, value: object) -> object:
        # `exclusive` is short for {mode: exclusive}, as in the spec.
        if isinstance(value, list):
            return [{"mode": v} if isinstance(v, str) else v for v in value]
        return value


class SearchSettings(_Model):
    """How hard to search."""

    designs: int | None = Field(
        default=None, ge=1, le=limits().plan_designs, description="Designs considered at most."
    )
    seeds: int | None = Field(default=None, ge=1, le=limits().plan_seeds, description="Seeds per finalist.")
    finalists: int | None = Field(
        default=None, ge=1, le=limits().plan_designs, description="Designs run again with more seeds."
    )


class SpaceFile(_Model):
    """The whole plan.yaml."""

    pools: dict[str, PoolSpace] = Field(default_factory=dict)
    goal: list[str] = Field(default_factory=list, description="Constraints, as for --goal.")
    search: SearchSettings = Field(default_factory=SearchSettings)
    quotas: Literal["scale", "keep"] | None = Field(
        default=None,
        description="scale: team quotas follow each pool's capacity (the default); keep: never changed.",
    )


def parse_space_file(text: str, file: str, pools: list[str], teams: Sequence[str] = ()) -> SpaceFile:
    """A plan.yaml text as a `SpaceFile`; InputError (located) on bad input, an unknown pool or a
    goal entry that is not a constraint."""
    raw = load_one(text, file) if text.strip() else {}
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InputError.single(file, "plan.yaml is a YAML mapping", line=1, column=1)
    try:
        space = SpaceFile.model_validate(raw)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            parts = tuple(p for p in err["loc"] if isinstance(p, str | int))
            message = "unknown field" if err["type"] == "extra_forbidden" else err["msg"]
            problems.append(problem_at(file, raw, parts, message, at_key=err["type"] == "extra_forbidden"))
        raise InputError(problems) from None
    unknown = [name for name in space.pools if name not in pools]
    if unknown:
        raise InputError(
            [
                problem_at(
                    file,
                    raw,
                    ("pools", n),
                    at_key=True,
                    message=f"no pool {n!r} in the spec (pools: {', '.join(pools)})",
                )
                for n in unknown
            ]
        )
    bad_goal = []
    for index, text_goal in enumerate(space.goal):
        try:
            parse_constraint(text_goal, teams)
        except UsageError as exc:
            bad_goal.append(problem_at(file, raw, ("goal", index), exc.message))
    if bad_goal:
        raise InputError(bad_goal)
    return space


def load_space_file(path: Path, pools: list[str], teams: Sequence[str] = ()) -> SpaceFile:
    """Read and parse a plan.yaml file."""
    return parse_space_file(read_text(path), display_name(path), pools, teams)
