"""The baselines of a twin run: the same accepted work bought as rented VMs and from a model API.

The one adapter from the twin's outcome to `gpuplane.baselines` (used by `simulate` and `plan`):
every workload whose run ended (completed, failed, killed) is rented on the accelerator it ran on.
"""

from __future__ import annotations

from typing import Any

from gpuplane.baselines import (
    ApiBaseline,
    ApiPrices,
    RentalBaseline,
    RunRequest,
    api_baseline,
    market_for,
    rental_baseline,
    requests_for_runs,
)
from gpuplane.sim.config import SimConfig
from gpuplane.sim.engine import Outcome
from gpuplane.spec import PlatformSpec

ENDED = ("completed", "failed", "killed")


def run_requests(outcome: Outcome, config: SimConfig) -> list[RunRequest]:
    """One request per workload whose run ended, on the accelerator of the pool it ran on."""
    ran = [
        (r.w, outcome.pools[r.pool].accelerator if r.pool >= 0 else None)
        for r in outcome.runs
        if r.outcome in ENDED
    ]
    return requests_for_runs(ran, dict(config.accepted_units))


def baselines_of(
    spec: PlatformSpec, outcome: Outcome, config: SimConfig, prices: ApiPrices | None = None
) -> tuple[RentalBaseline, ApiBaseline]:
    """The rental and model-API baselines of one run."""
    requests = run_requests(outcome, config)
    return rental_baseline(requests, market_for(spec)), api_baseline(requests, prices or ApiPrices(()))


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 6) + 0.0


def baselines_dict(rental: RentalBaseline, api: ApiBaseline) -> dict[str, Any]:
    """JSON-ready figures of both baselines (`simulate --json` key `baselines`)."""
    return {
        "rental": {
            "per_accepted_unit": _r(rental.per_accepted_unit),
            "cost": _r(rental.cost.total),
            "runs": rental.runs,
            "unpriced_runs": rental.unpriced_runs,
            "scaled_runs": rental.scaled_runs,
            "vm_hours": _r(rental.vm_hours),
            "billing": {"minimum_s": rental.billing.minimum_s, "increment_s": rental.billing.increment_s},
            "boot_s": rental.boot_s,
        },
        "api": {
            "per_accepted_unit": _r(api.per_accepted_unit),
            "cost": _r(api.cost),
            "units_priced": _r(api.units_priced),
            "units_unpriced": _r(api.units_unpriced),
            "cost_by_class": dict(api.by_class),
        },
    }
