"""Designs as specs: quotas scale with capacity, a new VM size loses the old price override, every
design is a spec that `gpuplane spec validate` accepts and `gpuplane render` renders."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from gpuplane.cli import app
from gpuplane.costs import pool_price
from gpuplane.plan.design import Design, Invalid, build_design, winner_yaml
from gpuplane.plan.search import build_all, pick_designs
from gpuplane.plan.space import SharingChoice, current_choice, derive_space
from gpuplane.sim.whatif import builtin_spec
from gpuplane.spec import parse_spec


def _quotas(design: Design, pool: str) -> dict[str, list[tuple[str | None, int, int | None]]]:
    return {
        t.name: [(q.resource, q.nominal, q.borrowing_limit) for q in t.quotas if q.pool == pool]
        for t in design.spec.teams
    }


def _build(pool: str, **changes: Any) -> Design:
    """The built-in spec with `pool`'s current choice changed (PoolChoice fields)."""
    spec = builtin_spec()
    p = spec.pool(pool)
    assert p is not None
    built = build_design(spec, [(pool, replace(current_choice(p), **changes))])
    assert isinstance(built, Design), built
    return built


def test_halving_a_pool_halves_its_quotas_and_borrowing_limits() -> None:
    design = _build(pool="a100-train", max_nodes=2)
    # builtin-platform.yaml: nominal 16/8/8, borrowing 16/24/24 on 4 nodes; 2 nodes is half.
    assert _quotas(design, "a100-train") == {
        "team-a": [(None, 8, 8)],
        "team-b": [(None, 4, 12)],
        "team-c": [(None, 4, 12)],
    }
    assert _quotas(design, "t4-dev") == _quotas(_build(pool="t4-dev", max_nodes=4), "t4-dev")


def test_a_new_mig_layout_keeps_each_teams_share_of_the_pool() -> None:
    layout = ("1g.10gb",) * 7
    design = _build(pool="a100-mig", sharing=SharingChoice("mig", layout, 1, "mixed"))
    # Old pool (4 GPUs): 3g x4, 2g x4, 1g x8 = 4 GPU-equivalents. team-a holds 2x3/7 + 2x2/7 + 4x1/7 = 2
    # (share 1/2), team-b 1 (1/4) nominal and 3 (3/4) borrowing. New: 28 x 1g.10gb.
    assert _quotas(design, "a100-mig") == {
        "team-a": [(None, 14, 14)],
        "team-b": [(None, 7, 21)],
        "team-c": [(None, 7, 21)],
    }


def test_switching_mig_to_time_slicing_rewrites_the_quota_resources() -> None:
    design = _build(pool="a100-mig", sharing=SharingChoice("time-slicing", None, 4))
    pool = design.spec.pool("a100-mig")
    assert pool is not None and pool.sharing.mode == "time-slicing" and pool.sharing.layout is None
    # 4 GPUs x 4 replicas = 16 nvidia.com/gpu; team-a keeps half.
    assert _quotas(design, "a100-mig")["team-a"] == [(None, 8, 8)]


def test_a_new_vm_size_is_priced_from_the_catalog() -> None:
    design = _build(pool="a100-train", vm_size="Standard_NC24ads_A100_v4", max_nodes=32)
    pool = design.spec.pool("a100-train")
    assert pool is not None and pool.gpus == 1 and pool.cpu_per_node == 24.0
    assert "a100-train" not in design.spec.costs.pools
    price = pool_price(design.spec, pool)
    assert price.on_demand_hourly == 3.673 and price.spot_hourly == 0.444433  # prices.csv, eastus
    assert _quotas(design, "a100-train")["team-a"] == [(None, 16, 16)]  # same 32 GPUs


def test_spot_for_an_inference_pool_is_an_invalid_design() -> None:
    spec = builtin_spec()
    mig = spec.pool("a100-mig")
    assert mig is not None
    built = build_design(spec, [("a100-mig", replace(current_choice(mig), spot=True))])
    assert isinstance(built, Invalid) and "inference" in built.reason


def test_every_sampled_design_is_a_valid_spec_with_a_stable_id() -> None:
    spec = builtin_spec()
    space = derive_space(spec)
    designs, invalid = build_all(spec, space, pick_designs(space, 25, seed=3))
    assert len(designs) + len(invalid) == 25 and designs
    for d in designs:
        again, _ = parse_spec(d.yaml, "<design>")
        rebuilt = build_design(again, list(d.choices))
        assert isinstance(rebuilt, Design) and rebuilt.id == d.id
    assert pick_designs(space, 25, seed=3) == pick_designs(space, 25, seed=3)
    assert pick_designs(space, 25, seed=3)[0] == 0


def test_winning_spec_validates_and_renders(tmp_path: Path) -> None:
    design = _build(pool="a100-train", max_nodes=6, spot=False)
    path = tmp_path / "winner.yaml"
    path.write_text(winner_yaml(design, "builtin"), encoding="utf-8")
    runner = CliRunner()
    validated = runner.invoke(app, ["spec", "validate", str(path)])
    assert validated.exit_code == 0, validated.output
    rendered = runner.invoke(app, ["render", str(path), "-o", str(tmp_path / "out")])
    assert rendered.exit_code == 0, rendered.output
    assert (tmp_path / "out" / "README.md").exists()
