"""Every VM size of the catalog is either priced (and the twin bills exactly its source row) or
an error naming the pool and the fix: never a silent 0 (issue 21, deliver 1)."""

from __future__ import annotations

import csv
import io

import pytest

from gpuplane.catalog import load_catalog
from gpuplane.catalog.loader import data_dir
from gpuplane.catalog.models import VmSku
from gpuplane.errors import InputError
from gpuplane.sim.config import SimConfig
from gpuplane.sim.metrics import summarize
from gpuplane.sim.replay import simulate
from gpuplane.spec import parse_spec

SKUS = load_catalog().vm_skus()
HOURS = 3.0


def _spec(sku: VmSku, region: str, *, spot: bool = False, costs: str = "") -> str:
    return f"""apiVersion: gpuplane.io/v1alpha1
kind: Platform
cluster: {{name: c, provider: {sku.provider}, region: {region}}}
nodePools:
  - name: p
    accelerator: {sku.accelerator}
    vmSize: {sku.name}
    minNodes: 1
    maxNodes: 1
    spot: {{enabled: {str(spot).lower()}}}
teams:
  - name: t
    namespaces: [t]
    quotas: [{{pool: p, nominal: {sku.gpus}}}]
{costs}"""


def _source_rows() -> dict[tuple[str, str], list[dict[str, str]]]:
    text = (data_dir() / "prices.csv").read_text(encoding="utf-8")
    body = "".join(line for line in io.StringIO(text) if not line.startswith("#"))
    rows: dict[tuple[str, str], list[dict[str, str]]] = {}
    for row in csv.DictReader(io.StringIO(body)):
        rows.setdefault((row["provider"], row["vm"].lower()), []).append(row)
    return rows


ROWS = _source_rows()


def test_the_catalog_lists_the_families_a_team_uses_today() -> None:
    names = {(s.provider, s.name) for s in SKUS}
    wanted = {
        ("aks", "Standard_NC24ads_A100_v4"),
        ("aks", "Standard_ND96amsr_A100_v4"),
        ("aks", "Standard_NC40ads_H100_v5"),
        ("aks", "Standard_ND96isr_H100_v5"),
        ("aks", "Standard_ND96isr_H200_v5"),
        ("aks", "Standard_NV36ads_A10_v5"),
        ("aks", "Standard_NC4as_T4_v3"),
        ("gke", "a2-highgpu-1g"),
        ("gke", "a2-ultragpu-8g"),
        ("gke", "a3-highgpu-8g"),
        ("gke", "a3-megagpu-8g"),
        ("gke", "a4-highgpu-8g"),
        ("gke", "g2-standard-4"),
        ("eks", "p4d.24xlarge"),
        ("eks", "p4de.24xlarge"),
        ("eks", "p5.48xlarge"),
        ("eks", "p5e.48xlarge"),
        ("eks", "p5en.48xlarge"),
        ("eks", "p6-b200.48xlarge"),
        ("eks", "g5.xlarge"),
        ("eks", "g6.12xlarge"),
        ("eks", "g6e.2xlarge"),
        ("eks", "g4dn.xlarge"),
    }
    assert wanted <= names, wanted - names


def test_every_price_row_has_a_source_and_a_date_and_names_a_catalog_vm() -> None:
    skus = {(s.provider, s.name.lower()) for s in SKUS}
    for key, rows in ROWS.items():
        assert key in skus, key
        for row in rows:
            assert row["source"] and row["date"], row
            assert float(row["on_demand_hourly"]) > 0, row
            if row["spot_hourly"]:
                assert 0 < float(row["spot_hourly"]) < float(row["on_demand_hourly"]), row


@pytest.mark.parametrize("sku", SKUS, ids=lambda s: f"{s.provider}-{s.name}")
def test_every_catalog_vm_simulates_at_its_source_price_or_is_a_located_error(sku: VmSku) -> None:
    rows = ROWS.get((sku.provider, sku.name.lower()))
    if not rows:
        # No public price found: using it is an error naming the pool and the fix, not 0.
        with pytest.raises(InputError) as err:
            parse_spec(_spec(sku, "some-region"), "s.yaml", priced=True)
        text = str(err.value)
        assert "s.yaml:7:13: error: nodePools[0].vmSize: no price for pool 'p'" in text
        assert "costs.pools.p.onDemandHourly" in text
        # ... and pricing it in the spec makes it usable.
        priced = _spec(sku, "some-region", costs="costs:\n  pools:\n    p: {onDemandHourly: 7.5}\n")
        spec, _ = parse_spec(priced, "s.yaml", priced=True)
        return
    row = rows[0]
    spec, _ = parse_spec(_spec(sku, row["region"]), "s.yaml", priced=True)
    config = SimConfig(horizon_s=HOURS * 3600.0)
    summary = summarize(simulate(spec, [], config), config)
    (pool,) = summary.pools
    expected_hourly = float(row["on_demand_hourly"])
    assert expected_hourly > 0
    # One node (minNodes 1) billed for the whole window at the source row's node-hour price.
    assert pool.gpu_hour_price == pytest.approx(expected_hourly / sku.gpus, rel=1e-12)
    assert pool.cost.total == pytest.approx(expected_hourly * HOURS, rel=1e-9)


@pytest.mark.parametrize("sku", SKUS, ids=lambda s: f"{s.provider}-{s.name}")
def test_a_spot_pool_pays_the_source_spot_price_or_is_an_error(sku: VmSku) -> None:
    rows = ROWS.get((sku.provider, sku.name.lower())) or []
    for row in rows[:3]:
        text = _spec(sku, row["region"], spot=True)
        if not row["spot_hourly"]:
            with pytest.raises(InputError, match=r"runs on spot but the catalog has no spot price"):
                parse_spec(text, "s.yaml", priced=True)
            continue
        spec, _ = parse_spec(text, "s.yaml", priced=True)
        from gpuplane.costs import pool_price

        price = pool_price(spec, spec.node_pools[0])
        assert price.node_hourly == float(row["spot_hourly"])


def test_a_mistyped_vm_size_gets_did_you_mean_from_the_catalog() -> None:
    sku = load_catalog().vm_sku("eks", "g6.12xlarge")
    assert sku is not None
    text = _spec(sku, "us-east-1").replace("vmSize: g6.12xlarge", "vmSize: g6.12xlarg")
    with pytest.raises(InputError) as err:
        parse_spec(text, "s.yaml")
    assert "did you mean g6.12xlarge" in str(err.value)
    # Setting gpusPerNode (what the old message asked for) no longer makes it free.
    text = text.replace("    minNodes: 1\n", "    gpusPerNode: 4\n    minNodes: 1\n", 1)
    with pytest.raises(InputError) as err:
        parse_spec(text, "s.yaml", priced=True)
    assert "not in the eks catalog (did you mean g6.12xlarge" in str(err.value)
    assert "costs.pools.p.onDemandHourly" in str(err.value)
