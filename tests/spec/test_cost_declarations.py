"""What the spec declares for the overhead terms must be computable (issue 21, deliver 2)."""

from __future__ import annotations

import pytest

from gpuplane.costs import Overheads
from gpuplane.errors import InputError
from gpuplane.spec import parse_spec

BASE = """\
apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {name: c, provider: PROVIDER, region: REGION}
nodePools:
  - {name: gpu, accelerator: A100-80GB, gpusPerNode: 8, maxNodes: 1}
  - {name: cpu, minNodes: 1, maxNodes: 1}
teams:
  - {name: t, namespaces: [t], quotas: [{pool: gpu, nominal: 8}]}
costs:
  pools: {gpu: {onDemandHourly: 8.0}}
"""


def _spec(extra: str, provider: str = "aks", region: str = "eastus") -> str:
    return BASE.replace("PROVIDER", provider).replace("REGION", region) + extra


@pytest.mark.parametrize(
    ("provider", "tier", "hourly"),
    [("aks", "free", 0.0), ("aks", "standard", 0.10), ("aks", "premium", 0.60), ("gke", "standard", 0.10),
     ("eks", "standard", 0.10), ("eks", "extended", 0.60)],
)  # fmt: skip
def test_every_provider_tier_has_its_fee(provider: str, tier: str, hourly: float) -> None:
    spec, _ = parse_spec(_spec(f"  controlPlaneTier: {tier}\n", provider), "s.yaml", priced=True)
    cost = Overheads.from_spec(spec).for_window(730.0)
    assert cost.term("control_plane") == pytest.approx(hourly * 730)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("  controlPlaneTier: premium\n", "s.yaml:11:21: error: costs.controlPlaneTier: no control-plane fee for tier 'premium' on gke (catalog tiers: standard)"),
        ("  storage: [{name: fs, gib: 10}]\n", "s.yaml:11:12: error: costs.storage: storage volumes are declared: set costs.storagePerGiBMonth"),
        ("  storagePerGiBMonth: 0.1\n  storage: [{name: fs, gib: 10, team: nobody}]\n", "costs.storage[0].team: unknown team 'nobody'"),
        ("  network: {perGpuHourGiB: 1}\n", "s.yaml:11:12: error: costs.network: network traffic is declared: set costs.networkPerGiB"),
    ],
)  # fmt: skip
def test_a_declaration_that_cannot_be_computed_is_a_located_error(extra: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        parse_spec(_spec(extra, "gke", "us-central1"), "s.yaml", priced=True)
    assert message in str(err.value)


def test_a_cpu_pool_without_a_price_is_a_warning_and_its_term_not_declared() -> None:
    spec, warnings = parse_spec(_spec(""), "s.yaml", priced=True)
    assert [w.message for w in warnings if "CPU pool 'cpu'" in w.message]
    cost = Overheads.from_spec(spec).for_window(10.0)
    assert cost.term("cpu_nodes") is None
    assert cost.as_dict()["declared"] == []
    assert all(
        cost.as_dict()[t] is None for t in ("network", "storage", "control_plane", "support", "operations")
    )


def test_price_set_without_an_input_stays_not_declared() -> None:
    """storagePerGiBMonth and networkPerGiB alone (the old examples) declare no volume and no traffic."""
    spec, _ = parse_spec(_spec("  storagePerGiBMonth: 0.12\n  networkPerGiB: 0.02\n"), "s.yaml", priced=True)
    cost = Overheads.from_spec(spec).for_window(100.0, accepted_units=10, gpu_hours=50)
    assert cost.term("storage") is None and cost.term("network") is None


def test_team_volumes_are_that_teams_storage() -> None:
    """730 GiB of team a and 365 GiB of team b at 1.00/GiB-month over 73 h (a tenth of a month)."""
    extra = (
        "  storagePerGiBMonth: 1.0\n  storage:\n    - {name: a-ckpt, gib: 730, team: a}\n"
        "    - {name: b-ckpt, gib: 365, team: b}\n    - {name: shared, gib: 100}\n"
    )
    text = _spec(extra).replace(
        "teams:\n  - {name: t, namespaces: [t], quotas: [{pool: gpu, nominal: 8}]}",
        "teams:\n  - {name: a, namespaces: [a]}\n  - {name: b, namespaces: [b]}",
    )
    spec, _ = parse_spec(text, "s.yaml", priced=True)
    overheads = Overheads.from_spec(spec)
    assert overheads.team_storage(73.0) == pytest.approx({"a": 73.0, "b": 36.5})
    assert overheads.for_window(73.0).term("storage") == pytest.approx(119.5)
