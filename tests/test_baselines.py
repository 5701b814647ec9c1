"""The rental and model-API baselines, against hand-computed bills."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from gpuplane.baselines import (
    ApiPrices,
    BillingRule,
    RentalMarket,
    RunRequest,
    VmOffer,
    api_baseline,
    assumptions,
    billing_rule,
    market_for,
    rent,
    rental_baseline,
    requests_for_runs,
    requests_for_workloads,
    whole_gpus,
)
from gpuplane.errors import UsageError
from gpuplane.sim.whatif import builtin_spec
from gpuplane.spec import load_spec
from gpuplane.traces import FinalStatus, PodSet, Workload, WorkloadClass

REPO = Path(__file__).resolve().parents[1]
EXACT = BillingRule("generic", 0.0, 1.0, "test")


def _market(*offers: VmOffer, billing: BillingRule = EXACT, boot_s: float = 0.0) -> RentalMarket:
    return RentalMarket("generic", "", tuple(offers), billing, boot_s)


A100_1 = VmOffer("a100-1", "A100-80GB", 1, 4.0, "test")
A100_8 = VmOffer("a100-8", "A100-80GB", 8, 30.0, "test")
T4_1 = VmOffer("t4-1", "T4", 1, 0.5, "test")


def _workload(
    wid: str,
    pods: tuple[PodSet, ...],
    *,
    seconds: float,
    klass: WorkloadClass = "training",
    status: FinalStatus = "completed",
) -> Workload:
    gpus = sum(ps.count * ps.gpus_per_pod for ps in pods)
    work = (seconds * gpus, None) if klass != "inference" else (None, seconds)
    fraction = 1.0 if status == "completed" else 0.5
    return Workload(
        id=wid,
        team="t",
        queue="t",
        klass=klass,
        submit=0.0,
        pod_sets=pods,
        work_gpu_seconds=work[0],
        run_time=work[1],
        final_status=status,
        end_at_fraction=fraction,
    )


def test_a_pod_rents_the_cheapest_vm_with_enough_gpus() -> None:
    market = _market(A100_1, A100_8, T4_1)
    run = rent(RunRequest.single(2, 8, 3600.0, "A100-80GB"), market)
    assert run.vms == ((A100_8, 2),)
    assert run.cost == pytest.approx(2 * 30.0)
    one = rent(RunRequest.single(1, 1, 1800.0, "A100-80GB"), market)
    assert one.vms == ((A100_1, 1),) and one.cost == pytest.approx(4.0 / 2)


def test_any_gpu_takes_the_cheapest_accelerator() -> None:
    run = rent(RunRequest.single(1, 1, 3600.0), _market(A100_1, T4_1))
    assert run.vms == ((T4_1, 1),) and run.cost == pytest.approx(0.5)


def test_no_vm_big_enough_prices_per_gpu_and_says_so() -> None:
    run = rent(RunRequest.single(1, 8, 3600.0, "A100-80GB"), _market(A100_1))
    assert run.scaled and run.priced
    assert run.cost == pytest.approx(8 * 4.0)


def test_an_accelerator_nobody_sells_is_unpriced() -> None:
    run = rent(RunRequest.single(1, 1, 3600.0, "H100-80GB"), _market(A100_1))
    assert not run.priced and run.cost == 0.0


def test_boot_time_and_billing_minimum_are_billed() -> None:
    minimum = BillingRule("aks", 300.0, 1.0, "test")
    short = rent(RunRequest.single(1, 1, 10.0, "A100-80GB"), _market(A100_1, billing=minimum))
    assert short.billed_seconds == 300.0 and short.cost == pytest.approx(4.0 * 300 / 3600)
    booted = rent(RunRequest.single(1, 1, 3000.0, "A100-80GB"), _market(A100_1, boot_s=600.0))
    assert booted.billed_seconds == 3600.0 and booted.cost == pytest.approx(4.0)
    per_minute = BillingRule("x", 60.0, 60.0, "test")
    assert per_minute.billed_seconds(61.0) == 120.0
    assert per_minute.billed_seconds(0.0) == 0.0


def test_packaged_billing_rules_have_sources() -> None:
    for provider in ("aks", "gke", "eks", "generic"):
        rule = billing_rule(provider)
        assert rule.source and rule.increment_s > 0
    assert billing_rule("aks").minimum_s == 300.0
    assert set(assumptions()) >= {"one_vm_per_pod", "whole_gpus", "per_gpu_when_no_vm_fits"}


def test_fractions_and_mig_slices_rent_whole_gpus() -> None:
    assert whole_gpus(PodSet("p", 1, 0.5)) == 1
    assert whole_gpus(PodSet("p", 1, 2.0)) == 2
    assert whole_gpus(PodSet("p", 1, 0.0)) == 0
    # A100-80GB has 7 compute slices: one 3g.40gb -> 3/7 -> 1 GPU; four 2g.20gb -> 8/7 -> 2 GPUs.
    assert whole_gpus(PodSet("p", 1, 1.0, mig_profile="3g.40gb"), ("A100-80GB",)) == 1
    assert whole_gpus(PodSet("p", 1, 4.0, mig_profile="2g.20gb"), ("A100-80GB",)) == 2


def test_failed_runs_cost_but_earn_nothing() -> None:
    done = _workload("a", (PodSet("w", 1, 1.0),), seconds=3600.0)
    failed = _workload("b", (PodSet("w", 1, 1.0),), seconds=3600.0, status="failed")
    requests = requests_for_workloads([done, failed])
    assert [r.units for r in requests] == [1.0, 0.0]
    assert requests[1].seconds == pytest.approx(1800.0)  # stops after half its run, as in the trace
    baseline = rental_baseline(requests, _market(A100_1))
    assert baseline.cost.useful == pytest.approx(4.0)
    assert baseline.cost.failed == pytest.approx(2.0)
    assert baseline.accepted_units == 1.0
    assert baseline.per_accepted_unit == pytest.approx(6.0)
    assert baseline.vm_hours == pytest.approx(1.5)
    assert dict(baseline.by_vm) == {"a100-1": pytest.approx(6.0)}


def test_a_run_rents_the_accelerator_it_ran_on() -> None:
    w = _workload("a", (PodSet("w", 2, 1.0),), seconds=3600.0)
    (request,) = requests_for_runs([(w, "A100-80GB")], {"training": 2.0})
    assert request.accelerators == ("A100-80GB",) and request.units == 2.0
    assert rent(request, _market(A100_1, T4_1)).cost == pytest.approx(2 * 4.0)


def test_mig_workload_without_constraint_rents_a_gpu_with_that_profile() -> None:
    w = _workload("m", (PodSet("s", 1, 1.0, mig_profile="2g.20gb"),), seconds=3600.0, klass="inference")
    (request,) = requests_for_workloads([w])
    assert "A100-80GB" in request.accelerators and "T4" not in request.accelerators
    assert rent(request, _market(A100_1, T4_1)).vms == ((A100_1, 1),)


def test_market_of_a_spec_has_its_pools_at_spec_prices_and_catalog_vms_of_its_region() -> None:
    market = market_for(builtin_spec())
    offers = {o.vm: o for o in market.offers}
    # costs.pools override of the built-in platform (builtin-platform.yaml): 29.384 on demand.
    assert offers["Standard_ND96amsr_A100_v4"].hourly == 29.384
    assert offers["Standard_ND96amsr_A100_v4"].gpus == 8
    with (REPO / "src/gpuplane/catalog/data/prices.csv").open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(line for line in fh if not line.startswith("#"))]
    eastus = {
        r["vm"]: float(r["on_demand_hourly"])
        for r in rows
        if r["provider"] == "aks" and r["region"] == "eastus"
    }
    assert offers["Standard_NC4as_T4_v3"].hourly == eastus["Standard_NC4as_T4_v3"]
    assert all(o.vm in eastus or o.vm == "Standard_ND96amsr_A100_v4" for o in market.offers)
    assert market.billing.provider == "aks" and market.boot_s == 600.0


def test_built_in_week_rents_every_gpu_run() -> None:
    from gpuplane.sim.whatif import WorkloadSource

    spec = builtin_spec()
    workloads, _ = WorkloadSource().load(spec, 0)
    baseline = rental_baseline(requests_for_workloads(workloads), market_for(spec))
    assert baseline.runs == len(workloads)
    assert baseline.unpriced_runs == 0
    assert baseline.accepted_units == sum(w.final_status == "completed" for w in workloads)
    assert baseline.cost.total > 0


def test_example_spec_market_is_priced_from_the_catalog() -> None:
    market = market_for(load_spec(REPO / "examples/eks-mixed.yaml"))
    assert market.provider == "eks" and market.billing.minimum_s == 60.0
    assert all(o.hourly > 0 and o.gpus > 0 for o in market.offers)


def test_api_baseline_buys_accepted_units_of_priced_classes() -> None:
    requests = [
        RunRequest.single(1, 1, 60.0, klass="inference", units=3.0),
        RunRequest.single(1, 1, 60.0, klass="training", units=2.0),
        RunRequest.single(1, 1, 60.0, klass="inference", units=0.0),
    ]
    api = api_baseline(requests, ApiPrices.parse(["inference=0.5"]))
    assert api.cost == pytest.approx(1.5)
    assert api.units_priced == 3.0 and api.units_unpriced == 2.0
    assert api.per_accepted_unit == pytest.approx(0.5)
    assert api_baseline(requests, ApiPrices.parse([])).per_accepted_unit is None


@pytest.mark.parametrize("item", ["inference", "gpu=1", "inference=-1", "inference=abc", "batch=nan"])
def test_bad_api_price_is_a_usage_error(item: str) -> None:
    with pytest.raises(UsageError, match="CLASS=PRICE"):
        ApiPrices.parse([item])


def test_an_unpriced_run_leaves_the_rental_per_unit_unknown() -> None:
    requests = [RunRequest.single(1, 1, 3600.0, "A100-80GB"), RunRequest.single(1, 1, 3600.0, "H100-80GB")]
    baseline = rental_baseline(requests, _market(A100_1))
    assert baseline.unpriced_runs == 1 and baseline.per_accepted_unit is None
    assert baseline.cost.useful == pytest.approx(4.0)


def test_a_generic_pool_rents_its_own_node_at_the_spec_price() -> None:
    from gpuplane.spec import parse_spec

    spec, _ = parse_spec(
        "cluster: {name: g, provider: generic}\n"
        "nodePools: [{name: gpu, accelerator: A100-80GB, gpusPerNode: 4, maxNodes: 2}]\n"
        "costs: {pools: {gpu: {onDemandHourly: 10.0}}}\n",
        "<test>",
    )
    market = market_for(spec)
    assert [(o.vm, o.gpus, o.hourly) for o in market.offers] == [("gpu node", 4, 10.0)]
    assert market.billing.minimum_s == 0.0


def test_simulate_prints_and_writes_both_baselines(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from gpuplane.cli import app

    spec = tmp_path / "tiny.yaml"
    spec.write_text(
        "cluster: {name: tiny, provider: generic}\n"
        "nodePools: [{name: gpu, accelerator: A100-80GB, gpusPerNode: 8, minNodes: 1, maxNodes: 1,"
        " workloadClasses: [training, inference]}]\n"
        "teams: [{name: team-a, namespaces: [team-a], quotas: [{pool: gpu, nominal: 8}]}]\n"
        "costs: {pools: {gpu: {onDemandHourly: 20.0}}}\n",
        encoding="utf-8",
    )
    trace = tmp_path / "jobs.csv"
    trace.write_text(
        "id,team,class,submit_s,pod_sets,work_gpu_s,run_time_s\n"
        "j1,team-a,training,0,main:1x1,3600,\n"
        "s1,team-a,inference,0,main:1x1,,1800\n",
        encoding="utf-8",
    )
    out = tmp_path / "m.json"
    done = CliRunner().invoke(
        app, ["simulate", str(spec), "-w", str(trace), "--json", str(out), "--api-price", "inference=0.25"]
    )
    assert done.exit_code == 0, done.output
    import json

    base = json.loads(out.read_text())["baselines"]
    # By hand: each run rents the pool's own 8-GPU node at 20/h for its run time + 600 s boot:
    # (3600 + 600) + (1800 + 600) = 6600 s = 36.667; two accepted units.
    assert base["rental"]["cost"] == pytest.approx(20.0 * 6600 / 3600, abs=1e-6)
    assert base["rental"]["per_accepted_unit"] == pytest.approx(20.0 * 6600 / 3600 / 2, abs=1e-6)
    assert base["api"] == {
        "per_accepted_unit": 0.25,
        "cost": 0.25,
        "units_priced": 1.0,
        "units_unpriced": 1.0,
        "cost_by_class": {"inference": 0.25},
    }
    assert "rented VMs instead (per unit)" in done.output and "18.33" in done.output
