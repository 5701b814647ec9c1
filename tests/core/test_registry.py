"""One registry shape (`gpuplane.registry.Registry`) for the six extension points: a name given
twice is refused, an unknown name is a UsageError listing the known ones."""

from __future__ import annotations

import pytest

from gpuplane.errors import UsageError
from gpuplane.registry import Registry


def test_a_name_is_registered_once() -> None:
    reg: Registry[int] = Registry("widget")
    reg.add("a", 1)
    with pytest.raises(ValueError, match="widget 'a' is registered twice"):
        reg.add("a", 2)
    assert reg.get("a") == 1  # the first registration stays


def test_an_unknown_name_lists_the_known_ones_in_order() -> None:
    reg: Registry[int] = Registry("widget")
    reg.add("b", 1)
    reg.add("a", 2)
    with pytest.raises(UsageError) as info:
        reg.get("c", option="--widget", also=("auto",))
    assert str(info.value) == "--widget: unknown widget 'c' (known: auto, b, a)"
    assert reg.find("c") is None and reg.names() == ("b", "a") and reg.values() == [1, 2]


def test_the_six_registries_share_the_rule() -> None:
    """Each extension point refuses a second registration of a name it already has."""
    from gpuplane import providers
    from gpuplane.audit.model import registered_rules, rule
    from gpuplane.audit.readers.registry import register_reader, registered_readers
    from gpuplane.sim.admitters import admitter_factory, register_admitter
    from gpuplane.traces.formats import format_named, register_format, trace_formats
    from gpuplane.workloads import kinds, register

    with pytest.raises(ValueError, match="registered twice"):
        register_format(trace_formats()[0])
    with pytest.raises(ValueError, match="registered twice"):
        register_admitter("kueue")(admitter_factory("kueue"))
    with pytest.raises(ValueError, match="registered twice"):
        register_reader(registered_readers()[0])
    first = registered_rules()[0]
    with pytest.raises(ValueError, match="registered twice"):
        rule(first.id, first.name, first.title, first.severity, first.why, first.fix)(first.check)
    with pytest.raises(ValueError, match="registered twice"):
        register(kinds()[0])
    with pytest.raises(UsageError, match=r"unknown provider 'nope' \(known: "):
        providers.get("nope")
    with pytest.raises(UsageError, match=r"unknown admitter 'nope' \(known: "):
        admitter_factory("nope")
    with pytest.raises(UsageError, match=r"unknown trace format 'nope' \(known: "):
        format_named("nope")
