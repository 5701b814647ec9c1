"""The search space derived from a spec, and plan.yaml refining it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplane.catalog import load_catalog
from gpuplane.errors import InputError
from gpuplane.plan.space import PoolChoice, SearchSpace, derive_space
from gpuplane.plan.spacefile import parse_space_file
from gpuplane.sharing.mig import maximal_layouts
from gpuplane.sim.whatif import builtin_spec
from gpuplane.spec import load_spec

REPO = Path(__file__).resolve().parents[2]


def _candidates(space: SearchSpace, pool: str) -> tuple[PoolChoice, ...]:
    return space.candidates[space.pools.index(pool)]


def test_design_zero_is_the_spec_as_given() -> None:
    spec = builtin_spec()
    space = derive_space(spec)
    assert space.pools == ("a100-train", "a100-mig", "t4-dev", "t4-dev-a", "t4-dev-c")
    first = space.design(0)
    for pool, choice in zip(space.pools, first, strict=True):
        p = spec.pool(pool)
        assert p is not None
        assert (choice.vm_size, choice.max_nodes, choice.min_nodes, choice.spot) == (
            p.vm_size,
            p.max_nodes,
            p.min_nodes,
            p.spot.enabled,
        )
    assert (
        space.size == 1 * len(list(space.designs())) // 1
        and space.design(space.size - 1) == list(space.designs())[-1]
    )


def test_spot_is_never_offered_for_inference_and_both_ways_for_training() -> None:
    space = derive_space(builtin_spec())
    assert {c.spot for c in _candidates(space, "a100-mig")} == {False}  # serves inference
    assert {c.spot for c in _candidates(space, "t4-dev")} == {False}  # serves inference too
    assert {c.spot for c in _candidates(space, "a100-train")} == {True, False}


def test_no_spot_where_a_team_with_quota_refuses_it() -> None:
    spec = builtin_spec()
    spec.teams[0].spot_allowed = False
    spec.node_pools[0].spot.enabled = False
    space = derive_space(spec)
    assert {c.spot for c in _candidates(space, "a100-train")} == {False}


def test_vm_alternatives_are_priced_catalog_sizes_of_the_same_accelerator() -> None:
    spec = builtin_spec()
    catalog = load_catalog()
    vms = {c.vm_size for c in _candidates(derive_space(spec), "a100-train")}
    assert "Standard_ND96amsr_A100_v4" in vms
    for vm in vms - {"Standard_ND96amsr_A100_v4"}:
        sku = catalog.vm_sku("aks", vm)
        assert sku is not None and sku.accelerator == "A100-80GB"
        assert catalog.price("aks", vm, "eastus") is not None
    assert "Standard_NC24ads_A100_v4" in vms  # priced in eastus (prices.csv)


def test_max_nodes_cover_half_to_double_the_spec_gpus() -> None:
    spec = builtin_spec()
    cands = _candidates(derive_space(spec), "a100-train")
    eight = sorted({c.max_nodes for c in cands if c.vm_size == "Standard_ND96amsr_A100_v4"})
    assert eight == [2, 3, 4, 6, 8]  # 32 GPUs x 0.5 .. 2 on 8-GPU nodes
    one = sorted({c.max_nodes for c in cands if c.vm_size == "Standard_NC24ads_A100_v4"})
    assert one == [16, 24, 32, 48, 64]


def test_mig_layouts_come_from_the_maximal_layouts_that_offer_what_is_asked() -> None:
    spec = builtin_spec()
    acc = load_catalog().accelerator("A100-80GB")
    assert acc is not None
    maximal = {tuple(layout) for layout in maximal_layouts(acc)}
    space = derive_space(spec, wanted_profiles=["1g.10gb"])
    layouts = {c.sharing.layout for c in _candidates(space, "a100-mig")}
    assert len(layouts) > 1
    own = tuple(spec.node_pools[1].sharing.layout or [])
    assert all(layout in maximal for layout in layouts - {own})
    assert all(layout is not None and "1g.10gb" in layout for layout in layouts)


def test_time_slicing_replicas_candidates() -> None:
    space = derive_space(builtin_spec())
    assert {c.sharing.replicas for c in _candidates(space, "t4-dev")} == {2, 4, 8}


def test_plan_yaml_refines_and_fixes_pools() -> None:
    spec = builtin_spec()
    text = """pools:
  a100-train: {maxNodes: [2, 4], spot: [true], vmSizes: [Standard_ND96amsr_A100_v4]}
  a100-mig: {fixed: true}
  t4-dev-a: {fixed: true}
  t4-dev-c: {fixed: true}
  t4-dev:
    sharing: [{mode: time-slicing, replicas: 2}, exclusive]
"""
    refine = parse_space_file(text, "plan.yaml", [p.name for p in spec.node_pools])
    space = derive_space(spec, refine)
    # t4-dev: the catalog prices four T4 sizes in eastus (NC4as/NC8as/NC16as_T4_v3 with 1 GPU: 5 node
    # counts each; NC64as_T4_v3 with 4 GPUs: 2 distinct counts), times the 2 sharings asked for.
    assert space.size == 2 * 1 * ((3 * 5 + 2) * 2)
    assert len(_candidates(space, "a100-mig")) == 1
    assert {c.sharing.mode for c in _candidates(space, "t4-dev")} == {"time-slicing", "exclusive"}


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("pools:\n  nope: {fixed: true}\n", "plan.yaml:2:3", "no pool 'nope'"),
        ("pools:\n  t4-dev: {maxNode: [1]}\n", "plan.yaml:2:12", "unknown field"),
        ("search: {designs: 0}\n", "plan.yaml:1:19", "greater than or equal to 1"),
        ("- a\n", "plan.yaml:1:1", "mapping"),
        ("goal: [p90-wait<=1h, 'p90-wait<=1y']\n", "plan.yaml:1:22", "waits are <= a duration"),
    ],
)
def test_bad_plan_yaml_is_located(text: str, where: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_space_file(text, "plan.yaml", ["a100-train", "a100-mig", "t4-dev"])
    rendered = str(info.value)
    assert rendered.startswith(where) and message in rendered


def test_example_specs_derive_spaces() -> None:
    for path in sorted((REPO / "examples").glob("*.yaml")):
        space = derive_space(load_spec(path))
        assert space.size >= 1 and space.pools
