"""Kueue's records copy, pickle and replace in both builds of the twin.

The compiled twin compiles kueue/objects.py with mypyc (gpuplane.twinbuild), so its records are
native classes there. mypyc's own copy route calls `__init__` without arguments (TypeError for the
records that write their `__init__` out) and sets fields one by one (FrozenInstanceError for the
frozen ones); `objects.Record.__reduce__` rebuilds a record through its `__init__` and then sets
its memo fields (mypyc docs, differences_from_python.rst "Pickling and copying objects"). The
suite runs pure in-process; the same checks run on the checkout's compiled copy in a subprocess.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpuplane import twinbuild
from gpuplane.kueue import objects as o

REPO = Path(__file__).resolve().parents[2]


def records() -> list[Any]:
    """One record of every class in objects.py, with non-default values in every field kind."""
    tol = o.Toleration("gpu", "Exists", "", "NoSchedule")
    req = o.SelectorRequirement("pool", "In", ("a", "b"))
    sel = o.LabelSelector((("team", "x"),), (req,))
    quota = o.ResourceQuota("nvidia.com/gpu", 8000, 2000, None)
    group = o.ResourceGroup(("nvidia.com/gpu",), (o.FlavorQuotas("h100", (quota,)),))
    ps = o.PodSet("main", 4, {"nvidia.com/gpu": 1, "cpu": "8"}, 2, {"pool": "a"}, (tol,), ((req,),))
    psa = o.PodSetAssignment("main", {"nvidia.com/gpu": "h100"}, {"nvidia.com/gpu": 4000}, 4)
    wl = o.Workload(
        "ns",
        "job",
        "lq",
        priority=5,
        creation_time=12.5,
        pod_sets=[ps],
        uid="u1",
        admission=o.Admission("cq", [psa]),
        quota_reserved_time=13.0,
        requeue_time=14.0,
        owners=(("Job", "job", "u0"),),
        runtime_hint=(600.0, "annotation"),
    )
    return [
        tol,
        o.Taint("gpu", "true", "NoSchedule"),
        req,
        sel,
        o.ResourceFlavor("h100", {"pool": "a"}, (o.Taint("gpu"),), (tol,), "topo"),
        quota,
        group.flavors[0],
        group,
        o.PreemptionPolicy("LowerPriority", "Any", "LowerPriority", 10),
        o.FlavorFungibility("TryNextFlavor", "Preempt", "BorrowingOverPreemption"),
        o.ClusterQueue("cq", "cohort", (group,), sel, "StrictFIFO", fair_weight=2.5),
        o.Cohort("cohort", "root", (group,), 0.5),
        o.LocalQueue("ns", "lq", "cq"),
        o.PriorityClass("high", 100, "PriorityClass", True),
        o.Namespace("ns", {"team": "x"}),
        ps,
        psa,
        wl.admission,
        wl,
        o.FairSharingConfig(False, ("LessThanInitialShare",)),
    ]


def parsed_pod_set() -> o.PodSet:
    """A pod set as `parse.pod_set` builds it: its per-pod requests set after `__init__`."""
    ps = o.PodSet("parsed", 2)
    ps.per_pod = {"nvidia.com/gpu": 8000}
    return ps


def _same(a: Any, b: Any) -> bool:
    """Equal as dataclasses, and equal in the fields equality leaves out (memo fields)."""
    return a == b and all(
        getattr(a, f.name) == getattr(b, f.name) for f in dataclasses.fields(a) if f.name != "mismatch"
    )


COPIES: dict[str, Any] = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": lambda r: pickle.loads(pickle.dumps(r)),
    "replace": dataclasses.replace,
}


def check_records() -> list[str]:
    """Every way a record is copied: what failed or differs, per class (empty when all agree)."""
    bad = []
    for rec in [*records(), parsed_pod_set()]:
        for name, how in COPIES.items():
            if name == "replace" and getattr(rec, "name", "") == "parsed":
                continue  # a new record from the fields: its memo starts again (as in Python)
            try:
                twin = how(rec)
            except Exception as exc:  # the answer names it
                bad.append(f"{type(rec).__name__} {name}: {type(exc).__name__}")
                continue
            if type(twin) is not type(rec) or not _same(twin, rec):
                bad.append(f"{type(rec).__name__} {name}: differs")
        if type(rec).__dataclass_params__.frozen:
            try:
                rec.name = "x"
            except dataclasses.FrozenInstanceError:
                pass
            else:
                bad.append(type(rec).__name__ + " is not frozen")
    return bad


def test_every_record_class_is_covered() -> None:
    classes = {c for c in vars(o).values() if isinstance(c, type) and dataclasses.is_dataclass(c)}
    assert classes == {type(r) for r in records()}


def test_records_copy_pickle_and_replace_pure() -> None:
    assert check_records() == []


def test_a_copied_workload_keeps_its_identity_and_memos() -> None:
    wl = records()[-2]
    assert isinstance(wl, o.Workload)
    wl.shape = ("memo",)
    twin = copy.deepcopy(wl)
    assert (twin.key, twin.shape) == ("ns/job", ("memo",))
    assert twin.pod_sets[0].per_pod == {"nvidia.com/gpu": 1000, "cpu": 8000}
    assert dataclasses.replace(wl).shape is None  # a new record: its __init__ starts the memo again


def test_records_copy_pickle_and_replace_compiled() -> None:
    """The same checks on the checkout's compiled copy, where objects.py is a mypyc extension."""
    copy_dir = REPO / twinbuild.COPY_DIR
    if not twinbuild.copy_is_current(copy_dir, REPO / "src" / "gpuplane"):
        pytest.skip("no compiled copy of these sources: `make compiled` (make test builds it)")
    env = {k: v for k, v in os.environ.items() if k != twinbuild.PURE_ENV}
    script = (
        "import sys; sys.path.insert(0, 'tests/kueue'); import test_records_copy as t\n"
        "from gpuplane.kueue import objects as o\n"
        "assert o.__file__.endswith(('.so', '.pyd')), o.__file__\n"
        "assert not hasattr(t.records()[-2], '__dict__')\n"
        "print(t.check_records())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("cls", [o.PodSet, o.PodSetAssignment, o.Admission, o.Workload])
def test_a_written_init_takes_the_dataclass_fields_in_order(cls: type[Any]) -> None:
    """The records that write their `__init__` out (so mypyc compiles it) take what the generated
    one would: every init field, in order, with its default, None standing for a default_factory."""
    import inspect

    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    wanted = [f for f in dataclasses.fields(cls) if f.init]
    assert [p.name for p in params] == [f.name for f in wanted]
    for p, f in zip(params, wanted, strict=True):
        if f.default is not dataclasses.MISSING:
            assert p.default == f.default
        elif f.default_factory is not dataclasses.MISSING:
            assert p.default is None
            assert getattr(cls(**_required(cls)), f.name) == f.default_factory()
        else:
            assert p.default is inspect.Parameter.empty
    assert all(not f.init for f in dataclasses.fields(cls) if f.name not in {p.name for p in params})


def _required(cls: type[Any]) -> dict[str, Any]:
    """Values for the required parameters of a record's `__init__`."""
    values = {"name": "n", "count": 1, "flavors": {}, "resource_usage": {}, "cluster_queue": "cq"}
    values |= {"pod_set_assignments": [], "namespace": "ns", "queue_name": "lq"}
    missing = dataclasses.MISSING
    return {
        f.name: values[f.name]
        for f in dataclasses.fields(cls)
        if f.init and f.default is missing and f.default_factory is missing
    }
