"""The engine's own small records write their `__init__` out so that mypyc compiles it (the one
`dataclasses` generates runs interpreted, on every search and nomination). A written `__init__`
must take what the generated one would — every init field, in order, with its default — and set
every field to what it was given."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest

from gpuplane.kueue import candidates, preemption
from gpuplane.kueue import objects as o
from gpuplane.kueue.tas.model import TASPodSetRequest

WRITTEN = [
    preemption.Target,
    preemption._Cand,
    preemption.PreemptionCtx,
    candidates.Source,
    TASPodSetRequest,
]


@pytest.mark.parametrize("cls", WRITTEN, ids=lambda c: c.__name__)
def test_a_written_init_takes_the_fields_in_order_and_sets_each(cls: type[Any]) -> None:
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    fields = [f for f in dataclasses.fields(cls) if f.init]
    assert [p.name for p in params] == [f.name for f in fields]
    for p, f in zip(params, fields, strict=True):
        if f.default_factory is not dataclasses.MISSING:  # None stands for the factory's value
            assert p.default is None, f.name
            required = {
                g.name: object() for g in fields if g.default is g.default_factory is dataclasses.MISSING
            }
            assert getattr(cls(**required), f.name) == f.default_factory()
            continue
        want = inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
        assert p.default == want, f.name
    # each field gets its own value (a sentinel per field, by keyword and by position)
    values = {f.name: object() for f in fields}
    for made in (cls(**values), cls(*values.values())):
        assert {name: getattr(made, name) for name in values} == values
    # the init is the class's own, not the generated one (whose code comes from "<string>")
    assert cls.__init__.__code__.co_filename.endswith(".py")


@pytest.mark.parametrize(
    ("cls", "values"),
    [
        (o.Toleration, [("k", "Exists", "", ""), ("k", "Equal", "v", "NoSchedule"), ("", "Exists", "", "")]),
        (o.SelectorRequirement, [("k", "In", ("a", "b")), ("k", "In", ("b", "a")), ("j", "Exists", ())]),
    ],
    ids=lambda c: getattr(c, "__name__", ""),
)
def test_written_hash_and_eq_are_the_dataclass_ones(cls: type[Any], values: list[tuple[Any, ...]]) -> None:
    """Toleration and SelectorRequirement write `__hash__`/`__eq__` out (compiled): they must agree
    with what `dataclass(frozen=True)` generates for the same fields."""
    generated = dataclasses.make_dataclass(
        "Generated", [f.name for f in dataclasses.fields(cls)], frozen=True
    )
    for a in values:
        assert hash(cls(*a)) == hash(generated(*a))
        for b in values:
            assert (cls(*a) == cls(*b)) == (generated(*a) == generated(*b)) == (a == b)
    assert cls(*values[0]) != values[0]  # another class is never equal (NotImplemented both ways)
    assert cls.__hash__.__code__.co_filename.endswith(".py")
